"""The ``greedy`` baseline: a constructive heuristic plus a simple local improvement per family.

========== =====================================================================================
setcover   Chvátal's greedy (least cost per newly covered row), then redundancy removal and the
           swap local search (:mod:`cosolve.heuristics.setcover.swap_search`)
mis        min-degree greedy (take a node of least remaining degree, delete its neighbours)
maxclique  from each of the ``clique_starts`` highest-degree nodes, grow a clique by the
           candidate with most neighbours among the candidates (a maximal clique each; the
           min-degree MIS rule on the complement, without building the complement)
maxcut     random sides (``seed``), then best-improvement 1-flip local search
mds        greedy by most newly dominated nodes, then removal of redundant nodes
tsp        nearest neighbour tour from city 0, then 2-opt until no move improves
========== =====================================================================================

The greedy result is offered to the trace as soon as it exists, improvements after that a
few times (at most once a second, less often as time goes on) and at the end. No bound is
ever reported. The numba kernels live in :mod:`cosolve.heuristics` and are imported (and
compiled on first use, then cached) only when a problem of their family is solved. Large
TSPs (from 1000 cities) use 10-nearest candidate lists for the nearest neighbour tour and a
first 2-opt phase; the full 2-opt sweeps after it are O(n^2) each, so on very large
instances the deadline usually ends them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination


class _Reporter:
    """Offers improving solutions to the trace a few times: always when ``force``, otherwise
    once ``interval`` seconds (at least 1, growing to a quarter of the elapsed solve time)
    have passed since the last offer, so a long run makes O(log time) offers.

    ``objective`` is a function of the solution, called only when the solution is offered.
    """

    def __init__(self, ctx: SolveContext, objective: Callable[[np.ndarray], float]) -> None:
        self.ctx = ctx
        self.objective = objective
        self.last = ctx.deadline.elapsed()

    def offer(self, solution: np.ndarray, *, force: bool = False) -> None:
        now = self.ctx.deadline.elapsed()
        if force or now - self.last >= max(1.0, 0.25 * now):
            self.ctx.trace.offer(solution, self.objective(solution))
            self.last = now


#: what a family's solve returns when its deadline stopped it
_STOPPED = Outcome(Termination.TIME_LIMIT)


def _done(converged: bool = True) -> Outcome:
    return Outcome(Termination.COMPLETED) if converged else _STOPPED


def _set_cover(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
    from cosolve.heuristics.setcover.swap_search import swap_local_search

    stop = _stop(ctx)
    costs, csc = problem.costs, problem.csc
    x = chvatal_greedy(costs, problem.matrix, csc, stop=stop)
    if x is None:
        return _STOPPED
    ctx.trace.offer(x, float(costs @ x))
    if ctx.options["improve"]:
        if stop():
            return _STOPPED
        x = remove_redundant(costs, csc, x)
        ctx.trace.offer(x, float(costs @ x))
        if stop():
            return _STOPPED
        x = swap_local_search(costs, problem.matrix, csc, x)
        ctx.trace.offer(x, float(costs @ x))
    return _done()


def _mis(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.graphs.greedy_constructions import min_degree_mis

    x = min_degree_mis(problem.adjacency)
    ctx.trace.offer(x, float(x.sum()))
    return _done()


def _max_clique(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.graphs.greedy_constructions import clique_starts, greedy_clique_kernel
    from cosolve.heuristics.sparse_index import index_arrays

    count = ctx.options["clique_starts"]
    indptr, indices = index_arrays(problem.adjacency)
    best = 0
    for start in clique_starts(problem.degrees, count).tolist():
        if ctx.deadline.stop_requested:
            return _STOPPED
        clique = greedy_clique_kernel(indptr, indices, start)
        if len(clique) > best:
            best = len(clique)
            x = np.zeros(problem.n, np.int8)
            x[clique] = 1
            ctx.trace.offer(x, float(best))
    return _done()


def _max_cut(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.graphs.greedy_constructions import maxcut_local_search, weighted_adjacency

    x = ctx.rng.integers(0, 2, problem.n).astype(np.int8)
    ctx.trace.offer(x, problem.cut_value(x))
    if not ctx.options["improve"]:
        return _done()
    report = _Reporter(ctx, problem.cut_value)
    weighted = weighted_adjacency(problem.n, problem.edges, problem.weights)
    x, converged = maxcut_local_search(weighted, x, stop=_stop(ctx), on_progress=report.offer)
    report.offer(x, force=True)
    return _done(converged)


def _dominating_set(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.graphs.greedy_constructions import closed_neighborhoods
    from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant

    closed = closed_neighborhoods(problem.adjacency)  # symmetric: its own CSC
    costs = np.ones(problem.n)
    stop = _stop(ctx)
    x = chvatal_greedy(costs, closed, closed.T, stop=stop)
    if x is None:
        return _STOPPED
    ctx.trace.offer(x, float(x.sum()))
    if ctx.options["improve"]:
        if stop():
            return _STOPPED
        x = remove_redundant(costs, closed.T, x)
        ctx.trace.offer(x, float(x.sum()))
    return _done()


def _tsp(problem: Problem, ctx: SolveContext) -> Outcome:
    from cosolve.heuristics.tsp.tour_construction import (
        NEIGHBOR_LIST_MIN_CITIES,
        candidate_lists,
        nearest_neighbor_tour,
        two_opt,
    )
    from cosolve.problems.tsp_distances import tour_length

    points, metric, stop = problem.points, problem.metric_code, _stop(ctx)
    neighbors = candidate_lists(points, metric=metric) if problem.n >= NEIGHBOR_LIST_MIN_CITIES else None
    tour = nearest_neighbor_tour(points, metric=metric, start=0, neighbors=neighbors, stop=stop)
    if tour is None:
        return _STOPPED
    ctx.trace.offer(tour, tour_length(points, tour, metric=metric))
    if not ctx.options["improve"]:
        return _done()
    report = _Reporter(ctx, lambda t: tour_length(points, t, metric=metric))
    tour, converged = two_opt(points, tour, metric=metric, neighbors=neighbors, stop=stop, on_progress=report.offer)
    report.offer(tour, force=True)
    return _done(converged)


def _stop(ctx: SolveContext) -> Callable[[], bool]:
    deadline = ctx.deadline
    return lambda: deadline.stop_requested


_SOLVERS: dict[str, Callable[[Problem, SolveContext], Outcome]] = {
    "setcover": _set_cover,
    "mis": _mis,
    "maxclique": _max_clique,
    "maxcut": _max_cut,
    "mds": _dominating_set,
    "tsp": _tsp,
}


@register
class Greedy(Method):
    """Greedy construction and local improvement for each supported family (see the module doc)."""

    name: ClassVar[str] = "greedy"
    problems: ClassVar[frozenset[str]] = frozenset(_SOLVERS)
    summary: ClassVar[str] = "greedy construction + simple local improvement (Chvátal, min-degree, NN + 2-opt, 1-flip); no bound"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "improve": Option(
            bool,
            True,
            "run the improvement step: redundancy removal and swaps (setcover), redundancy removal (mds), "
            "1-flip search (maxcut), 2-opt (tsp)",
        ),
        "clique_starts": Option(
            int, 32, "maxclique: grow one clique from each of this many highest-degree nodes", minimum=1, problems=("maxclique",)
        ),
    }

    def prepare(self, problem: Problem) -> None:
        super().prepare(problem)
        if problem.kind == "tsp":
            from cosolve.heuristics.tsp.tour_construction import NEIGHBOR_LIST_MIN_CITIES, warm_candidate_list_path

            if problem.n >= NEIGHBOR_LIST_MIN_CITIES:  # the path the warm-up's ten cities never take
                warm_candidate_list_path()

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        return _SOLVERS[problem.kind](problem, ctx)
