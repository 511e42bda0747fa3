"""One-time set-up (warm-up solve, model loading) happens before the clock and is reported."""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cosolve import Solver, Termination
from cosolve.core import registry, warmup
from cosolve.core.method import Method, Outcome
from cosolve.core.warmup import OVERRUN_FACTOR, WARM_UP_PASSES, warm_up
from cosolve.generators.graphs import erdos_renyi
from cosolve.method_catalog import methods
from cosolve.problems.registry import get_kind, problem_kinds, tiny_instance


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
    monkeypatch.setitem(registry.METHODS._items, Counting.name, Counting)
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
    result = Solver(time_limit=0.25).solve(problem)  # the anytime methods find one at once, then use the limit
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

    warm_up(Counting(), tiny_instance("mis"))
    assert calls == []


@pytest.fixture
def short_passes(monkeypatch):
    """Warm-up passes of 0.25 s instead of 0.5 s: the rules below are about the deadline, whatever its length
    (OVERRUN_FACTOR of it still leaves 0.125 s for the scheduling of a busy machine)."""
    monkeypatch.setattr(warmup, "WARM_UP_SECONDS", 0.25)
    return 0.25


def _slow_first_pass(passes, *, rounds):
    """A method whose first pass sleeps past the warm-up deadline before its "kernel"; with
    ``rounds`` it has a ``rounds`` option (its work is bounded by one round) and finds a solution
    before the sleep, as cam's sampler does before its polish."""
    from typing import ClassVar

    from cosolve.core.method import Option

    class SlowFirstPass(Method):
        name = "slow-first-pass"
        problems = frozenset({"mis"})
        warm_up = True
        options: ClassVar[dict[str, Option]] = (
            {"rounds": Option(int, 0, "rounds (0: until the deadline)", minimum=0)} if rounds else {}
        )

        def solve(self, problem, ctx):
            passes.append("start")
            if rounds:
                ctx.trace.offer(np.zeros(problem.n, np.int8))
            if len(passes) == 1:
                time.sleep(warmup.WARM_UP_SECONDS + 0.05)
            if ctx.deadline.stop_requested:
                return None
            passes.append("kernel")

    return SlowFirstPass()


def test_a_warm_up_pass_cut_short_by_its_deadline_is_followed_by_another(short_passes):
    # the first pass spends its half second "importing", so it reaches the deadline check before
    # the "kernel" and skips it, as the greedy MaxClique solve did on a cold numba cache
    passes = []
    warm_up(_slow_first_pass(passes, rounds=False), tiny_instance("mis"))
    assert passes == ["start", "start", "kernel"]


def test_a_round_bounded_pass_that_found_a_solution_but_reached_its_deadline_is_followed_by_another(short_passes):
    # cam on a cold numba cache: the sampler's round compiled, found a solution and used the
    # deadline, so the polish after it was skipped and compiled inside the first timed solve
    passes = []
    warm_up(_slow_first_pass(passes, rounds=True), tiny_instance("mis"))
    assert passes == ["start", "start", "kernel"]


def _spinning_method(passes, *, solve_first, block=0.0, first_pass=None):
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
            if len(passes) == 1 and first_pass is not None:
                first_pass()
            ctx.deadline.wait(10.0)

    return Spinning()


def test_a_pass_that_uses_its_time_after_finding_a_solution_is_the_last(short_passes):
    passes = []
    warm_up(_spinning_method(passes, solve_first=True), tiny_instance("mis"))
    assert passes == [1]


def test_a_pass_that_overran_its_deadline_is_followed_by_another(short_passes):
    passes = []
    warm_up(_spinning_method(passes, solve_first=True, block=short_passes * (OVERRUN_FACTOR + 0.1)), tiny_instance("mis"))
    assert passes == [1, 1]


def test_warm_up_passes_are_bounded_when_no_pass_finds_a_solution(monkeypatch):
    monkeypatch.setattr(warmup, "WARM_UP_SECONDS", 0.1)  # each pass waits out its deadline: no overrun to tell apart
    passes = []
    warm_up(_spinning_method(passes, solve_first=False), tiny_instance("mis"))
    assert len(passes) == WARM_UP_PASSES


class SlowSetUp(Method):
    """A method whose one-time set-up takes at least ``seconds``; each solve reports the limit it got."""

    name = "slow-setup"
    problems = frozenset({"mis"})
    seconds = 0.2

    def prepare(self, problem):
        if not self.__dict__.get("ready"):
            time.sleep(self.seconds)
            self.ready = True

    def solve(self, problem, ctx):
        ctx.trace.offer(np.zeros(problem.n, np.int8))
        return Outcome(Termination.COMPLETED, stats={"limit": ctx.deadline.time_limit})


@pytest.fixture
def slow_setup(monkeypatch):
    methods()  # the registry is loaded before the test method joins it
    monkeypatch.setitem(registry.METHODS._items, SlowSetUp.name, SlowSetUp)
    return SlowSetUp


def test_by_default_the_set_up_is_not_part_of_the_budget(slow_setup):
    # what Solver.solve and every benchmark job do: the set-up happens before the clock starts
    problem = erdos_renyi(10, 0.3, problem="mis", seed=0)
    result = Solver("slow-setup", time_limit=1).solve(problem)
    assert result.setup_time >= slow_setup.seconds
    assert result.stats["limit"] == 1.0 and result.time_limit == 1


@pytest.mark.parametrize("prepare_first", [True, False])
def test_with_setup_in_budget_the_first_solve_gets_what_the_set_up_left(slow_setup, prepare_first):
    problem = erdos_renyi(10, 0.3, problem="mis", seed=0)
    solver = Solver("slow-setup", time_limit=1, setup_in_budget=True)
    if prepare_first:  # as the CLI does, to print the set-up time before the log
        solver.prepare(problem)
    first = solver.solve(problem)
    setup = first.setup_time
    assert setup >= slow_setup.seconds and first.time_limit == 1
    assert first.stats["limit"] == max(1.0 - setup, 0.5)  # the solve's own deadline
    # its time and its trace count from the start of the set-up
    assert first.time >= setup and first.trace and all(point.time >= setup for point in first.trace)
    second = solver.solve(problem)  # the set-up is done and was counted once
    assert second.stats["limit"] == 1.0 and second.setup_time == setup


def test_a_set_up_longer_than_half_the_budget_leaves_the_solve_half_of_it(slow_setup):
    problem = erdos_renyi(10, 0.3, problem="mis", seed=0)
    result = Solver("slow-setup", time_limit=0.2, setup_in_budget=True).solve(problem)  # set-up >= 0.2 s
    assert result.stats["limit"] == pytest.approx(0.1) and result.time >= result.setup_time >= 0.2


def test_a_pass_during_which_numba_compiled_is_followed_by_another(monkeypatch, short_passes):
    # the greedy on a cold numba cache: its construction compiled and used the deadline, so the
    # local search after it was skipped and compiled inside the first timed solve
    from types import SimpleNamespace

    from cosolve.core import numba_compile

    clock = SimpleNamespace(seconds=0.0)
    monkeypatch.setattr(numba_compile, "_clock", clock)
    passes = []

    def compile_a_kernel():
        clock.seconds += 0.3

    warm_up(_spinning_method(passes, solve_first=True, first_pass=compile_a_kernel), tiny_instance("mis"))
    assert passes == [1, 1]


def test_compiling_never_uses_up_a_pass_so_every_kernel_compiles_however_slow_the_machine(monkeypatch):
    # the greedy set cover on a slow machine: each of its kernels compiled for longer than a
    # pass's deadline, so the passes reached one kernel each and the swap search compiled inside
    # the first timed solve; compiling does not count against a pass's deadline
    from types import SimpleNamespace

    from cosolve.core import numba_compile, warmup

    clock = SimpleNamespace(seconds=0.0)
    monkeypatch.setattr(numba_compile, "_clock", clock)
    monkeypatch.setattr(warmup, "WARM_UP_SECONDS", 0.1)
    compiled, passes = [], []

    class SlowKernels(Method):
        name = "slow-kernels"
        problems = frozenset({"mis"})
        warm_up = True

        def solve(self, problem, ctx):
            passes.append(1)
            for kernel in range(4):
                if ctx.deadline.stop_requested:
                    return Outcome(Termination.TIME_LIMIT)
                if kernel not in compiled:
                    time.sleep(0.15)  # longer than the pass's deadline
                    clock.seconds += 0.15
                    compiled.append(kernel)
                ctx.trace.offer(np.zeros(problem.n, np.int8))
            return Outcome(Termination.COMPLETED)

    warm_up(SlowKernels(), tiny_instance("mis"))
    assert compiled == [0, 1, 2, 3]
    assert passes == [1, 1]  # the second pass compiled nothing: the warm-up is done


_GREEDY_SOLVE_COMPILES = """
from cosolve import Solver, read
from cosolve.core.numba_compile import compile_seconds
for path in ({paths}):
    problem = read(path)
    solver = Solver("greedy", time_limit=5)
    solver.prepare(problem)
    before = compile_seconds()
    solver.solve(problem)
    print(compile_seconds() - before)
"""


_GREEDY_FILES = ("instances/setcover/scp41.txt", "instances/tsplib/eil51.tsp", "instances/tsplib-large/pr1002.tsp")


@pytest.fixture(scope="module")
def printed_on_an_empty_numba_cache(tmp_path_factory):
    """The lines each program of the two tests below prints, run with numba's cache in an empty folder
    of its own. Both start when the first of the tests asks, side by side (compiling takes most of
    their time, and the second core idles while a test waits); each test waits for its own."""
    root = Path(__file__).resolve().parents[2]
    programs = {
        "greedy": _GREEDY_SOLVE_COMPILES.format(paths=", ".join(repr(str(root / p)) for p in _GREEDY_FILES)),
        "lns": _SETCOVER_LNS_SOLVE_COMPILES,
    }
    running = {
        name: subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp(f"numba-cache-{name}"))},
        )
        for name, code in programs.items()
    }

    def printed(name: str) -> list[str]:
        out, err = running[name].communicate(timeout=600)
        assert running[name].returncode == 0, err
        return out.splitlines()

    yield printed
    for proc in running.values():
        if proc.poll() is None:  # its test was not run
            proc.kill()
            proc.communicate()


def test_on_an_empty_numba_cache_the_greedy_compiles_nothing_inside_its_solve(printed_on_an_empty_numba_cache):
    printed = printed_on_an_empty_numba_cache("greedy")
    # set cover's swap search, TSP's 2-opt, and from 1,000 cities its candidate-list 2-opt: in the set-up
    assert [float(v) for v in printed] == [0.0, 0.0, 0.0]


_SETCOVER_LNS_SOLVE_COMPILES = """
from cosolve import Solver
from cosolve.core.numba_compile import compile_seconds
from cosolve.generators.setcover import random_setcover
problem = random_setcover(200, 2000, nnz=8000, cost_range=(1, 2), seed=3)  # no bound proves it: the loop runs
for method in ("lns-random", "glns"):
    solver = Solver(method, time_limit=0.5, threads=1)  # the row-weighting search starts within 0.2 s
    solver.prepare(problem)
    before = compile_seconds()
    result = solver.solve(problem)
    print(compile_seconds() - before, result.stats["rwls_time"])
"""


def test_on_an_empty_numba_cache_the_set_cover_lns_compiles_nothing_inside_its_solve(printed_on_an_empty_numba_cache):
    lines = printed_on_an_empty_numba_cache("lns")
    assert len(lines) == 2
    for line in lines:
        compiled, local_search = (float(v) for v in line.split())
        assert local_search > 0  # the row-weighting local search ran (its kernel compiled in the bench's first jobs)
        assert compiled == 0.0


def test_a_result_counts_the_set_up_compiling_only_when_the_set_up_counts(monkeypatch):
    from types import SimpleNamespace

    from cosolve.core import numba_compile

    clock = SimpleNamespace(seconds=0.0)
    monkeypatch.setattr(numba_compile, "_clock", clock)

    class Compiling(Method):
        name = "compiling"
        problems = frozenset({"mis"})

        def prepare(self, problem):
            clock.seconds += 2.0  # the set-up's kernels

        def solve(self, problem, ctx):
            clock.seconds += 0.5  # one kernel the set-up did not reach
            ctx.trace.offer(np.zeros(problem.n, np.int8))
            return Outcome(Termination.COMPLETED)

    methods()
    monkeypatch.setitem(registry.METHODS._items, Compiling.name, Compiling)
    graph = erdos_renyi(5, 0.5, problem="mis")
    counted = Solver("compiling", time_limit=5, setup_in_budget=True)
    assert [counted.solve(graph).compile_time for _ in range(2)] == [2.5, 0.5]  # the set-up counts once
    assert Solver("compiling", time_limit=5).solve(graph).compile_time == 0.5
