"""The contract every problem family fulfils: evaluate a solution, state an exact model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from cosolve.core.result import Sense
from cosolve.errors import InputError


@dataclass(frozen=True)
class Evaluation:
    """The problem's verdict on a candidate: its objective and, if infeasible, why."""

    objective: float
    feasible: bool
    violation: str | None = None


@dataclass
class ExactModel:
    """An exact model built by a problem for SCIP or CP-SAT.

    ``variables`` lists the model variables that carry the solution; ``decode`` maps their
    values (an array aligned with ``variables``) to the problem's solution array.
    ``objective_offset`` is added to the solver's objective to get the problem's objective.
    ``thread_safe`` is False for SCIP models with nonlinear constraints: SCIP's expression code
    (CppAD) keeps static state that crashes when solves run in different threads, so such a model
    is solved in the calling thread.
    ``objective_is_exact`` is False when a feasible model solution may score worse than its
    decoded solution (an epigraph variable that need not be tight), so the two are not compared.
    ``watch``: for a model whose callbacks should skip expensive work once the solve's deadline
    has passed (the TSP's fractional subtour separation), takes that deadline's stop test; the
    ``scip`` baseline calls it before solving.
    """

    model: Any
    variables: Sequence[Any]
    decode: Callable[[np.ndarray], np.ndarray]
    objective_offset: float = 0.0
    notes: str = ""
    objective_is_exact: bool = True
    thread_safe: bool = True
    watch: Callable[[Callable[[], bool]], None] | None = None


class Problem(ABC):
    """An instance of one problem family.

    Solutions are numpy arrays in the family's natural form (documented per family: a 0/1
    vector, a permutation, a vector of variable values). Problems know nothing of methods.
    """

    kind: ClassVar[str]
    sense: ClassVar[Sense]
    name: str = ""

    @abstractmethod
    def evaluate(self, solution: np.ndarray) -> Evaluation:
        """Objective and feasibility of ``solution`` (raises :class:`InputError` on a wrong shape)."""

    @abstractmethod
    def sizes(self) -> dict[str, int]:
        """Named sizes for display, e.g. ``{"rows": 200, "columns": 1000, "nonzeros": 4009}``."""

    def scip_model(self) -> ExactModel:
        """An exact MIP model as a ``pyscipopt.Model`` (imported lazily); kinds whose registry
        entry lists ``scip`` in ``exact`` have one."""
        raise NotImplementedError(f"{self.kind} has no MIP model")

    def export_model(self) -> ExactModel:
        """The exact model that model files (``cosolve export``) hold: :meth:`scip_model`, unless
        the family states a compact one for files."""
        return self.scip_model()

    def cpsat_model(self) -> ExactModel:
        """An exact CP-SAT model as an ``ortools.sat.python.cp_model.CpModel``; kinds whose
        registry entry lists ``cpsat`` in ``exact`` have one."""
        raise NotImplementedError(f"{self.kind} has no CP-SAT model")

    def cpsat_refusal(self) -> str | None:
        """Why this instance has no CP-SAT model although its kind has (None: it has one)."""
        return None

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        """The solution as text lines for :func:`cosolve.io.solution.write_solution`."""
        return [str(v) for v in np.asarray(solution).tolist()]

    def undrawable(self) -> str | None:
        """Why this instance's solutions cannot be drawn although its kind draws pictures (checked
        before solving, for ``--plot``), or None."""
        return None

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "problem": self.kind, "sense": self.sense.value, **self.sizes()}

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.sizes().items())
        return f"{type(self).__name__}({self.name!r}, {sizes})"


def as_binary_vector(solution: np.ndarray, n: int, what: str) -> np.ndarray:
    """Check that ``solution`` is a 0/1 vector of length ``n`` and return it as int8."""
    x = np.asarray(solution)
    if x.shape != (n,):
        raise InputError(f"{what} solution must be a 0/1 vector of length {n}, got shape {x.shape}")
    if x.size and not np.all((x == 0) | (x == 1)):
        bad = int(np.flatnonzero((x != 0) & (x != 1))[0])
        raise InputError(f"{what} solution must be 0/1; entry {bad} is {x[bad]}")
    return x.astype(np.int8, copy=False)


def round_binary(values: np.ndarray) -> np.ndarray:
    """Round solver values of binary variables (within 1e-6 of 0/1) to an int8 vector."""
    return (np.asarray(values, dtype=float) > 0.5).astype(np.int8)


class BuildStopped(Exception):
    """Raised inside a model builder when the deadline of :func:`build_deadline` has passed."""


_BUILD_STOP: ContextVar[Callable[[], bool] | None] = ContextVar("cosolve_build_stop", default=None)


@contextmanager
def build_deadline(stop: Callable[[], bool]) -> Iterator[None]:
    """While active, the model builders (``scip_model``/``cpsat_model``) call ``stop()`` every
    few thousand variables or constraints and raise :class:`BuildStopped` once it is true, so
    that building a huge model cannot overrun a solve's budget."""
    token = _BUILD_STOP.set(stop)
    try:
        yield
    finally:
        _BUILD_STOP.reset(token)


def build_range(n: int, every: int = 4096) -> Iterator[int]:
    """``range(n)`` for model-building loops, checking the active build deadline every
    ``every`` items (see :func:`build_deadline`)."""
    stop = _BUILD_STOP.get()
    if stop is None:
        yield from range(n)
        return
    for low in range(0, n, every):
        if stop():
            raise BuildStopped
        yield from range(low, min(n, low + every))


def verdict(problem: Problem, solution: Any) -> tuple[float, bool, str | None]:
    """``problem``'s evaluation of ``solution`` as a :class:`~cosolve.core.result.Trace` takes it:
    (objective, feasible, violation)."""
    e = problem.evaluate(solution)
    return e.objective, e.feasible, e.violation
