"""One-time set-up (warm-up solve, model loading) happens before the clock and is reported."""

import time

import numpy as np
import pytest

from cosolve import Solver, Termination
from cosolve.core import registry
from cosolve.core.method import Method, Outcome
from cosolve.core.registry import methods
from cosolve.core.warmup import OVERRUN_FACTOR, WARM_UP_PASSES, WARM_UP_SECONDS, tiny_instance
from cosolve.generators.graphs import erdos_renyi
from cosolve.problems.registry import get_kind, problem_kinds


@pytest.mark.parametrize("prepare_first", [True, False])
def test_every_result_reports_the_set_up_done_once_for_its_kind(prepare_first, monkeypatch):
    warm_ups = []

    class Counting(Method):
        name = "counting-setup"
        problems = frozenset({"mis", "maxcut"})
        warm_up = True

        def solve(self, problem, ctx):
            if problem.name == "warm-up":
                warm_ups.append(problem.kind)
            ctx.trace.offer(np.zeros(problem.n, np.int8))
            return Outcome(Termination.COMPLETED)

    methods()  # the registry is loaded before the test method joins it
    monkeypatch.setitem(registry._METHODS, Counting.name, Counting)
    solver = Solver("counting-setup", time_limit=5)
    problem = erdos_renyi(30, 0.2, problem="mis", seed=0)
    prepared = solver.prepare(problem) if prepare_first else None
    first, second = solver.solve(problem), solver.solve(problem)
    assert warm_ups == ["mis"]  # one warm-up solve for the kind
    assert first.setup_time == second.setup_time > 0
    if prepare_first:
        assert first.setup_time == prepared
    solver.solve(erdos_renyi(30, 0.2, problem="maxcut", seed=0))
    assert warm_ups == ["mis", "maxcut"]  # a new kind is prepared once more


@pytest.mark.parametrize("kind", [k for k, v in problem_kinds().items() if v.tiny is not None])
def test_every_kinds_tiny_instance_is_solved_feasibly_by_its_default_method(kind):
    problem = tiny_instance(kind)
    assert problem.kind == kind and problem.name == "warm-up"
    result = Solver(time_limit=1).solve(problem)
    assert result.method == get_kind(kind).default_method
    assert result.solution is not None and problem.evaluate(result.solution).feasible


def test_kinds_without_a_tiny_instance_have_none():
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
