"""Deprecated: the Solver facade moved to :mod:`cosolve.solver` (``from cosolve import Solver``).

The facade sits above every layer, so this old path forwards by name, with a warning, and imports
nothing of it."""

from __future__ import annotations

import importlib
import warnings

_MOVED = frozenset({"Solver", "solve", "load_instance", "check_fit_out", "missing_paths", "termination", "SOLVE_SHARE"})


def __getattr__(name: str) -> object:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = "cosolve.io.detect" if name == "load_instance" else "cosolve.solver"
    warnings.warn(f"cosolve.core.solver.{name} moved to {home}.{name}", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(home), name)
