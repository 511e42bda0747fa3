"""The ``ils`` method for TSP: a start tour, then 2-opt + Or-opt with don't-look bits and an
iterated local search (local double-bridge kicks) until the time limit.

The start is the nearest neighbour tour from city 0 or the greedy edge tour over the candidate
edges (``start``); candidates are each city's ``neighbors`` nearest cities. The local search and
the kicks are :mod:`cosolve.heuristics.tsp.iterated_local_search`. Without a time limit, ``kicks`` bounds the
search (default: 100 per city). Nothing is proven: no bound is reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination

#: the start tours, by name
STARTS = ("nearest-neighbor", "greedy-edge")
#: ILS rounds per city when there is no time limit and ``kicks`` is 0
KICKS_PER_CITY = 100


def start_tour(problem: Problem, start: str, neighbors: np.ndarray, stop: Callable[[], bool]) -> np.ndarray | None:
    """The start tour (n,) named ``start`` (one of :data:`STARTS`), or None if ``stop`` fired."""
    from cosolve.heuristics.tsp.tour_construction import greedy_edge_tour, nearest_neighbor_tour

    points, metric = problem.points, problem.metric_code
    if start == "greedy-edge":
        return greedy_edge_tour(points, neighbors, metric=metric)
    return nearest_neighbor_tour(points, metric=metric, start=0, neighbors=neighbors, stop=stop)


@register
class TourIls(Method):
    """Iterated 2-opt + Or-opt local search for TSP (see the module doc)."""

    name: ClassVar[str] = "ils"
    problems: ClassVar[frozenset[str]] = frozenset({"tsp"})
    summary: ClassVar[str] = (
        "iterated local search for TSP: nearest-neighbour or greedy-edge start, 2-opt + Or-opt on candidate lists "
        "with don't-look bits, local double-bridge kicks until the time limit"
    )
    warm_up: ClassVar[bool] = True
    warm_up_options: ClassVar[dict[str, Any]] = {"kicks": 200}
    options: ClassVar[dict[str, Option]] = {
        "start": Option(str, "greedy-edge", "the start tour", choices=STARTS),
        "neighbors": Option(int, 10, "candidate cities per city (nearest first)", minimum=1),
        "or_opt": Option(bool, True, "Or-opt moves besides 2-opt"),
        "kicks": Option(
            int, 0, f"stop after this many ILS rounds (0: until the time limit; {KICKS_PER_CITY} per city without one)", minimum=0
        ),
    }

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.heuristics.numba_random import seed_numba_random
        from cosolve.heuristics.tsp.iterated_local_search import TourSearch, iterated_local_search
        from cosolve.heuristics.tsp.tour_construction import candidate_lists

        o = ctx.options
        stop = lambda: ctx.deadline.stop_requested  # noqa: E731
        if problem.n <= 3:
            tour = np.arange(problem.n, dtype=np.int64)
            ctx.trace.offer(tour, problem.tour_length(tour))
            return Outcome(Termination.COMPLETED)
        neighbors = candidate_lists(problem.points, o["neighbors"], metric=problem.metric_code)
        tour = start_tour(problem, o["start"], neighbors, stop)
        if tour is None:
            return Outcome(Termination.TIME_LIMIT)
        ctx.trace.offer(tour, problem.tour_length(tour))
        seed_numba_random(ctx.seed)
        search = TourSearch(problem.points, problem.metric_code, neighbors, tour, or_opt=o["or_opt"])
        kicks = o["kicks"] or (KICKS_PER_CITY * problem.n if math.isinf(ctx.deadline.time_limit) else 0)
        finished = iterated_local_search(search, stop=stop, offer=lambda t, length: ctx.trace.offer(t, length), kicks=kicks)
        stats = {"kicks": search.kicks, "improving_kicks": search.improvements}
        return Outcome(Termination.COMPLETED if finished else Termination.TIME_LIMIT, stats=stats)
