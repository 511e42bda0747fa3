"""Method options: their declaration (:class:`Option`), and their validation from Python keywords
or ``--set key=value`` strings, done once (:func:`resolve_options`): types, ranges, choices, and
``auto`` (None) for an option whose value is worked out from the problem and the budget."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cosolve.errors import UsageError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Option:
    """A method option: its type (used to parse ``--set key=value``), default and help; optional
    ``choices``, an inclusive ``minimum`` and ``maximum`` and an exclusive upper bound ``below``;
    ``problems``, the problem kinds it applies to (None: every kind the method solves); ``path``: the
    value names a file or folder (relative to the current directory), which a benchmark suite
    checks exists before it runs a job. An option
    whose default is None is worked out from the problem and the budget by the method
    (:meth:`cosolve.core.method.Method.resolve`), and takes ``auto`` (or None) for that default."""

    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    below: float | None = None
    problems: tuple[str, ...] | None = None
    path: bool = False

    def applies_to(self, kind: str) -> bool:
        """Whether the option means anything for a problem of kind ``kind``."""
        return self.problems is None or kind in self.problems

    @property
    def auto(self) -> bool:
        """True when the default is worked out per solve (shown as ``auto``)."""
        return self.default is None

    def describe_default(self) -> str:
        return "auto" if self.auto else repr(self.default)


def _convert(method: str, key: str, option: Option, value: Any) -> Any:
    if option.auto and (value is None or (isinstance(value, str) and value.strip().lower() == "auto")):
        return None
    where = f"option {key}={value!r} of method {method}"  # a value that does not convert: as given
    if isinstance(value, str) and option.type is not str:
        text = value.strip().lower()
        try:
            if option.type is bool:
                if text not in _TRUE | _FALSE:
                    raise ValueError(value)
                value = text in _TRUE
            else:
                value = option.type(value)
        except ValueError:
            spelled = " (true or false)" if option.type is bool else ""
            raise UsageError(f"{where}: expected {option.type.__name__}{spelled}") from None
    elif option.type is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    elif not isinstance(value, option.type) or (option.type is int and isinstance(value, bool)):
        raise UsageError(f"{where}: expected {option.type.__name__}")
    where = f"option {key}={value!r} of method {method}"  # as converted
    if option.type is float and not math.isfinite(value):
        raise UsageError(f"{where}: must be a finite number")
    if option.minimum is not None and value < option.minimum:
        raise UsageError(f"{where}: must be at least {option.minimum:g}")
    if option.maximum is not None and value > option.maximum:
        raise UsageError(f"{where}: must be at most {option.maximum:g}")
    if option.below is not None and not value < option.below:
        raise UsageError(f"{where}: must be below {option.below:g}")
    if option.choices is not None and value not in option.choices:
        names = ", ".join('"" (the default)' if c == "" else str(c) for c in option.choices)
        raise UsageError(f"{where}: choose one of {names}")
    return value


def resolve_options(method: str, declared: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Defaults of ``declared`` overridden by ``given``; unknown keys name the valid ones."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        valid = ", ".join(sorted(declared)) or "none"
        raise UsageError(f"unknown option {unknown[0]!r} for method {method}; valid options: {valid}")
    values = {key: option.default for key, option in declared.items()}
    for key, value in given.items():
        values[key] = _convert(method, key, declared[key], value)
    return values


def parse_assignments(items: list[str], flag: str = "--set") -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}`` (values stay strings until resolved); a key
    given twice is a :class:`UsageError`."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} expects KEY=VALUE, got {item!r}")
        if key.strip() in out:
            raise UsageError(f"{flag} {key.strip()} given twice ({out[key.strip()]!r} and {value.strip()!r}); give it once")
        out[key.strip()] = value.strip()
    return out
