"""Warm-up solves: run a method once on a tiny instance of a problem kind, so that imports, JIT
compilation (numba) and lazy initialisation happen before a timed solve rather than inside it."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np

from cosolve.core.deadline import Deadline
from cosolve.core.result import Trace
from cosolve.errors import CosolveError
from cosolve.problems.base import Problem

if TYPE_CHECKING:
    from cosolve.core.method import Method

WARM_UP_SECONDS = 0.5
WARM_UP_PASSES = 3
#: a pass that ends past this multiple of its deadline ran into something it could not interrupt
OVERRUN_FACTOR = 1.5


def tiny_instance(kind: str) -> Problem | None:
    """A few-variable instance of ``kind`` (None for kinds without one, such as mip)."""
    import scipy.sparse as sp

    from cosolve.problems.graphs import GRAPH_PROBLEMS

    if kind in GRAPH_PROBLEMS:
        return GRAPH_PROBLEMS[kind](4, np.array([[0, 1], [1, 2], [2, 3]]), name="warm-up")
    if kind == "setcover":
        from cosolve.problems.setcover import SetCover

        return SetCover(np.ones(3), sp.csr_array(np.array([[1, 1, 0], [0, 1, 1]])), name="warm-up")
    if kind == "tsp":
        from cosolve.problems.tsp import TSP

        return TSP(np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0], [1.0, 2.0]]), name="warm-up")
    if kind == "sorting":
        from cosolve.problems.sorting import Sorting

        return Sorting(np.array([0.3, 0.1, 0.2]), name="warm-up")
    if kind == "jigsaw":
        from cosolve.problems.jigsaw import cut

        return cut(np.arange(64.0).reshape(8, 8) / 64.0, 2, seed=1, name="warm-up")
    if kind == "conjoint":
        from cosolve.conjoint.design import Design
        from cosolve.conjoint.model import OutcomeModel
        from cosolve.problems.conjoint import BestProfile

        design = Design.uniform(["a", "b"], [["0", "1"], ["0", "1", "2"]])
        params = np.array([0.5, 0.1, -0.05, 0.02, 0.03, -0.04])  # alpha, 3 main effects, 2 interactions
        return BestProfile(OutcomeModel(design, "identity", True, params, np.eye(6)), name="warm-up")
    if kind == "portfolio":
        from cosolve.problems.portfolio import PortfolioPeriod

        return PortfolioPeriod(np.array([1.02, 0.99, 1.0, 1.01]), np.array([0.5, 0.5, 0.0, 0.0]), k=2, mu=1.0, name="warm-up")
    return None


def warm_up(method: Method, kind: str) -> None:
    """Solve a tiny instance of ``kind`` with ``method`` (one round for methods with a
    ``rounds`` option); the result is discarded.

    Each pass has a deadline of :data:`WARM_UP_SECONDS`. Another pass runs (at most
    :data:`WARM_UP_PASSES` in all) when one may have skipped code, and so its numba
    compilation, behind a deadline check: when the deadline stopped it before it found a
    solution (say the imports took the time), or when it ended well past the deadline (busy
    in something it could not interrupt, such as compiling). A pass that simply used its time
    on the tiny instance is the last one.
    """
    problem = tiny_instance(kind)
    if problem is None:
        return
    for _ in range(WARM_UP_PASSES):
        deadline = Deadline(WARM_UP_SECONDS)
        found = _warm_up_pass(method, problem, deadline)
        if not deadline.expired() or (found and deadline.elapsed() < OVERRUN_FACTOR * WARM_UP_SECONDS):
            return


def _warm_up_pass(method: Method, problem: Problem, deadline: Deadline) -> bool:
    """One warm-up solve; whether it found a solution."""
    from cosolve.core.method import SolveContext
    from cosolve.core.solver import _verdict

    options = dict(method.config)
    if "rounds" in method.options:
        options["rounds"] = 1
    trace = Trace(problem.sense, deadline.elapsed, lambda x: _verdict(problem, x))
    ctx = SolveContext(deadline, trace, seed=0, threads=1, options=options)
    with contextlib.suppress(CosolveError):
        method.solve(problem, ctx)
    return trace.solution is not None
