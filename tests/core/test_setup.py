"""One-time set-up (warm-up solve, model loading) happens before the clock and is reported."""

import time

import numpy as np

from cosolve import Solver
from cosolve.core.method import Method
from cosolve.core.warmup import OVERRUN_FACTOR, WARM_UP_PASSES, WARM_UP_SECONDS, tiny_instance
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


def test_a_warm_up_pass_cut_short_by_its_deadline_is_followed_by_another():
    # the first pass spends its half second "importing", so it reaches the deadline check before
    # the "kernel" and skips it, as the greedy MaxClique solve did on a cold numba cache
    passes = []

    class SlowImports(Method):
        name = "slow-imports"
        problems = frozenset({"mis"})
        warm_up = True

        def solve(self, problem, ctx):
            passes.append("start")
            if len(passes) == 1:
                time.sleep(WARM_UP_SECONDS + 0.05)
            if ctx.deadline.stop_requested:
                return None
            passes.append("kernel")

    SlowImports().prepare(erdos_renyi(5, 0.5, problem="mis"))
    assert passes == ["start", "start", "kernel"]


def _spinning_method(passes, *, solve_first, block=0.0):
    class Spinning(Method):
        name = "spinning"
        problems = frozenset({"mis"})
        warm_up = True

        def solve(self, problem, ctx):
            passes.append(1)
            if solve_first:
                ctx.trace.offer(np.zeros(problem.n, np.int8))
            if len(passes) == 1 and block:
                time.sleep(block)  # e.g. a numba compilation the deadline cannot interrupt
            ctx.deadline.wait(10.0)

    return Spinning()


def test_a_pass_that_uses_its_time_after_finding_a_solution_is_the_last():
    passes = []
    _spinning_method(passes, solve_first=True).prepare(erdos_renyi(5, 0.5, problem="mis"))
    assert passes == [1]


def test_a_pass_that_overran_its_deadline_is_followed_by_another():
    passes = []
    _spinning_method(passes, solve_first=True, block=WARM_UP_SECONDS * (OVERRUN_FACTOR + 0.1)).prepare(
        erdos_renyi(5, 0.5, problem="mis")
    )
    assert passes == [1, 1]


def test_warm_up_passes_are_bounded_when_no_pass_finds_a_solution():
    passes = []
    _spinning_method(passes, solve_first=False).prepare(erdos_renyi(5, 0.5, problem="mis"))
    assert len(passes) == WARM_UP_PASSES
