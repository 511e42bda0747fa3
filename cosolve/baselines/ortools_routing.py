"""OR-Tools routing (one vehicle) with guided local search on TSP."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import CallbackGuard, build_within, ran_out_of_time, time_left
from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem, build_range
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination


def _distance_lists(problem: Problem) -> list[list[int]]:
    """The integer distance matrix as Python lists (what ``RegisterTransitMatrix`` takes), built
    in row blocks so that the build deadline is checked while it grows (O(n^2) entries)."""
    rows: list[list[int]] = []
    block = 64
    for b in build_range((problem.n + block - 1) // block, every=1):
        rows.extend(problem.distance_rows(b * block, min(problem.n, (b + 1) * block)).astype(np.int64).tolist())
    return rows


def _tour(routing: Any, manager: Any, next_value: Any) -> np.ndarray:
    """The cities of vehicle 0's route from the depot, ``next_value(index)`` giving successors."""
    index, tour = routing.Start(0), []
    while not routing.IsEnd(index):
        tour.append(manager.IndexToNode(index))
        index = next_value(index)
    return np.array(tour, dtype=np.int64)


@register
class OrToolsRouting(Method):
    """OR-Tools' vehicle routing solver on TSP, as one vehicle starting and ending at city 1.

    Arc costs are the instance's TSPLIB distances, precomputed as an integer matrix and registered
    with ``RegisterTransitMatrix`` (no Python callback per arc). First solution
    ``PATH_CHEAPEST_ARC``, then ``GUIDED_LOCAL_SEARCH``, the metaheuristic OR-Tools recommends
    when a time limit is given; the time limit is the time left after building the model
    (without a limit GLS runs until interrupted). GLS never completes: termination is
    ``time_limit`` when the search used its time, and nothing is proven (no bound).

    The routing search is single-threaded and has no seed parameter; it is deterministic for
    a given instance, so ``threads`` and ``seed`` are ignored.

    Anytime trace: an at-solution callback reads the cost variable at each solution of the
    local search and, when it improves, walks the ``NextVar`` values to offer the tour. The
    search holds the GIL between callbacks, so the callback is also where an interrupt
    (Ctrl-C or ``Deadline.interrupt()`` from another thread) is noticed: it calls
    ``CancelSearch`` and the best tour found is kept.
    """

    name: ClassVar[str] = "ortools-routing"
    problems: ClassVar[frozenset[str]] = frozenset({"tsp"})
    summary: ClassVar[str] = "OR-Tools routing: cheapest-arc start, then guided local search until the time limit"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {}

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from ortools.constraint_solver import pywrapcp, routing_enums_pb2

        matrix = build_within(ctx, lambda: _distance_lists(problem))
        if matrix is None:  # the budget ran out while building the model
            return Outcome(Termination.TIME_LIMIT)
        manager = pywrapcp.RoutingIndexManager(problem.n, 1, 0)
        routing = pywrapcp.RoutingModel(manager)
        transit = routing.RegisterTransitMatrix(matrix)
        del matrix
        routing.SetArcCostEvaluatorOfAllVehicles(transit)
        params = pywrapcp.DefaultRoutingSearchParameters()
        params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
        params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH

        guard = CallbackGuard()
        best: list[int] = []

        def on_solution() -> None:
            try:
                if ctx.deadline.interrupted:
                    routing.CancelSearch()
                    return
                cost = routing.CostVar().Value()
                if not best or cost < best[0]:
                    best[:] = [cost]
                    ctx.trace.offer(_tour(routing, manager, lambda i: routing.NextVar(i).Value()), float(cost))
            except BaseException as error:  # re-raised after the solve
                guard.record(error)
                routing.CancelSearch()

        routing.AddAtSolutionCallback(on_solution)

        remaining = time_left(ctx.deadline)  # measured after building the model
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        if remaining is not None:
            params.time_limit.FromMilliseconds(max(1, int(remaining * 1000)))
        assignment = routing.SolveWithParameters(params)
        guard.reraise()

        if assignment is not None:
            tour = _tour(routing, manager, lambda i: assignment.Value(routing.NextVar(i)))
            ctx.trace.offer(tour, float(assignment.ObjectiveValue()))
        status = routing.status()
        if status == routing_enums_pb2.RoutingSearchStatus.ROUTING_OPTIMAL:
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)
        if status == routing_enums_pb2.RoutingSearchStatus.ROUTING_FAIL_TIMEOUT or ran_out_of_time(ctx.deadline):
            return Outcome(Termination.TIME_LIMIT)
        return Outcome(Termination.COMPLETED)
