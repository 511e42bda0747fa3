"""Validation of method options (Python keywords or ``--set key=value`` strings)."""

from __future__ import annotations

import math
from typing import Any

from cosolve.core.method import Option
from cosolve.errors import UsageError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _convert(method: str, key: str, option: Option, value: Any) -> Any:
    if option.default is None and (value is None or (isinstance(value, str) and value.strip().lower() == "auto")):
        return None
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
            raise UsageError(f"option {key}={value!r} of method {method}: expected {option.type.__name__}") from None
    elif option.type is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    elif not isinstance(value, option.type) or (option.type is int and isinstance(value, bool)):
        raise UsageError(f"option {key}={value!r} of method {method}: expected {option.type.__name__}")
    if option.type is float and not math.isfinite(value):
        raise UsageError(f"option {key}={value!r} of method {method}: must be a finite number")
    if option.minimum is not None and value < option.minimum:
        raise UsageError(f"option {key}={value!r} of method {method}: must be at least {option.minimum:g}")
    if option.below is not None and not value < option.below:
        raise UsageError(f"option {key}={value!r} of method {method}: must be below {option.below:g}")
    if option.choices is not None and value not in option.choices:
        names = ", ".join('"" (the default)' if c == "" else str(c) for c in option.choices)
        raise UsageError(f"option {key}={value!r} of method {method}: choose one of {names}")
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


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}`` (values stay strings until resolved)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out
