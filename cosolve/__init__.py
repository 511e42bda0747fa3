"""cosolve: learned and classical solvers for combinatorial optimisation behind one interface."""

from cosolve.core.deadline import Deadline
from cosolve.core.result import Result, Sense, Status, Termination, TracePoint
from cosolve.errors import CosolveError, InputError, UsageError
from cosolve.solver import Solver, solve

__version__ = "0.1.0"


def read(path, *, format=None, problem=None):
    """Read an instance file into a Problem (see :func:`cosolve.io.read`)."""
    from cosolve.io import read as _read

    return _read(path, format=format, problem=problem)


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
