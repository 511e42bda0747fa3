"""Deprecated: the Solver facade moved to :mod:`cosolve.solver` (``from cosolve import Solver``).

The facade sits above every layer, so this old path forwards by name, with a warning, and imports
nothing of it."""

from __future__ import annotations

from cosolve.core.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **{
            name: "cosolve.solver" for name in ("Solver", "solve", "check_fit_out", "missing_paths", "termination", "SOLVE_SHARE")
        },
        "load_instance": "cosolve.io.detect",
    },
    moved=True,
)
