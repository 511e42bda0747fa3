"""cosolve: learned and classical solvers for combinatorial optimisation behind one interface.

The names below are imported on first use, so that ``import cosolve`` (and every ``cosolve``
command, whose modules live in this package) pays only for what it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cosolve.core.lazy_exports import lazy_exports

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "CosolveError": "cosolve.errors",
    "InputError": "cosolve.errors",
    "UsageError": "cosolve.errors",
    "Deadline": "cosolve.core.deadline",
    "Result": "cosolve.core.result",
    "Sense": "cosolve.core.result",
    "Status": "cosolve.core.result",
    "Termination": "cosolve.core.result",
    "TracePoint": "cosolve.core.result",
    "Solver": "cosolve.solver",
    "solve": "cosolve.solver",
}

if TYPE_CHECKING:
    from cosolve.core.deadline import Deadline
    from cosolve.core.result import Result, Sense, Status, Termination, TracePoint
    from cosolve.errors import CosolveError, InputError, UsageError
    from cosolve.solver import Solver, solve


def read(path: Any, *, format: str | None = None, problem: str | None = None) -> Any:
    """Read an instance file into a Problem (see :func:`cosolve.io.read`)."""
    from cosolve.io import read as _read

    return _read(path, format=format, problem=problem)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CosolveError",
    "Deadline",
    "InputError",
    "Result",
    "Sense",
    "Solver",
    "Status",
    "Termination",
    "TracePoint",
    "UsageError",
    "__version__",
    "read",
    "solve",
]
