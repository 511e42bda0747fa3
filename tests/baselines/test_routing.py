"""The ``ortools-routing`` baseline: guided local search on TSP, time limit and interruption."""

import time

import pytest

from cosolve import Solver, Status, Termination
from cosolve.baselines.ortools_routing import OrToolsRouting
from cosolve.method_catalog import methods


def test_registered_for_tsp_only():
    cls = methods()["ortools-routing"]
    assert cls is OrToolsRouting and cls.summary and cls.__doc__
    assert cls.problems == {"tsp"}


@pytest.mark.slow
def test_finds_the_optimum_of_a_small_tour(helpers):
    problem = helpers.tiny_tsp(1)
    result = Solver("ortools-routing", time_limit=0.5).solve(problem)  # its first tour (in ms) is optimal
    assert result.objective == helpers.brute_force_tsp(problem)
    assert problem.evaluate(result.solution).feasible
    assert result.status is Status.FEASIBLE and result.termination is Termination.TIME_LIMIT
    assert result.bound is None and result.gap is None
    helpers.assert_monotone(result)


def test_time_limit_is_honoured(helpers):
    problem = helpers.hard_tsp()
    result = Solver("ortools-routing", time_limit=0.5).solve(problem)
    print(f"ortools-routing: time {result.time:.3f} s for a 0.5 s limit (overshoot {result.time - 0.5:+.3f} s)")
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert problem.evaluate(result.solution).feasible
    assert len(result.trace) > 1
    helpers.assert_monotone(result)


def test_no_solve_when_the_deadline_is_already_up(helpers):
    problem = helpers.tiny_tsp(1)
    method = OrToolsRouting()
    ctx = helpers.context(problem, 1e-6, method=method)
    time.sleep(0.01)
    assert helpers.run(method, problem, ctx) is Termination.TIME_LIMIT
    assert ctx.trace.solution is None


def test_errors_in_callbacks_are_raised(helpers):
    problem = helpers.tiny_tsp(1)
    method = OrToolsRouting()
    ctx = helpers.context(problem, 5, method=method)
    offers = []

    def offer(solution, objective=None):
        offers.append(objective)
        raise RuntimeError("offer failed")

    ctx.trace.offer = offer
    with pytest.raises(RuntimeError, match="offer failed"):
        method.solve(problem, ctx)
    assert len(offers) == 1  # the search stopped at the first failing callback
