"""Module attributes imported on first use (PEP 562), so that importing a package does not import
every module it re-exports, and names that moved, still given at their old path with a warning:
``__getattr__, __dir__ = lazy_exports(__name__, {"Name": "module"})``.

The modules are named as strings: a deprecated alias in a low layer forwards to a higher one
without importing it (``docs/architecture.md`` lists those aliases)."""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable
from typing import Any


def lazy_exports(
    module: str, exports: dict[str, str], *, moved: bool = False
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``module`` for ``exports``: public name -> where it is,
    ``"package.module"`` or ``"package.module:new_name"``. A name is imported once and kept in the
    module's namespace; with ``moved`` (names retired from ``module``) each use warns that the name
    moved (a ``DeprecationWarning``) and gets it from its new home."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, _, attribute = target.partition(":")
        attribute = attribute or name
        if moved:
            warnings.warn(f"{module}.{name} moved to {home}.{attribute}", DeprecationWarning, stacklevel=2)
        value = getattr(importlib.import_module(home), attribute)
        if not moved:
            setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *exports})

    return __getattr__, __dir__
