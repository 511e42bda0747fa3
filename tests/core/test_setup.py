"""One-time set-up (warm-up solve, model loading) happens before the clock and is reported."""

from cosolve import Solver
from cosolve.core.method import Method
from cosolve.core.warmup import tiny_instance
from cosolve.generators.graphs import erdos_renyi


def test_setup_is_reported_once_per_kind_and_kept_out_of_the_solve_time():
    solver = Solver("greedy", time_limit=5)
    problem = erdos_renyi(30, 0.2, problem="mis", seed=0)
    first = solver.solve(problem)
    second = solver.solve(problem)
    assert first.setup_time > 0 and second.setup_time < 0.01
    assert first.objective == second.objective
    assert solver.prepare(erdos_renyi(30, 0.2, problem="maxcut", seed=0)) > 0  # a new kind is prepared once more


def test_tiny_instances_are_feasible_to_solve():
    for kind in ("setcover", "mis", "maxcut", "maxclique", "mds", "tsp"):
        problem = tiny_instance(kind)
        assert problem.kind == kind
    assert tiny_instance("mip") is None


def test_methods_without_warm_up_are_not_run_by_prepare():
    calls = []

    class Counting(Method):
        name = "counting"
        problems = frozenset({"mis"})

        def solve(self, problem, ctx):
            calls.append(problem.name)

    Counting().prepare(erdos_renyi(5, 0.5, problem="mis"))
    assert calls == []
