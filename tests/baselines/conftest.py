"""Tiny instances with brute-force optima, hard instances, and helpers for the baseline tests."""

from __future__ import annotations

import itertools
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.core.deadline import Deadline
from cosolve.core.method import Method, SolveContext
from cosolve.core.result import Result, Sense, Status, Termination, Trace
from cosolve.problems import (
    MIP,
    TSP,
    MaxCut,
    MaximumClique,
    MaximumIndependentSet,
    MinimumDominatingSet,
    Problem,
    SetCover,
)
from tests.oracles import brute_force_binary, brute_force_mip, brute_force_tsp

ROOT = Path(__file__).resolve().parents[2]
INF = math.inf


# ---------------------------------------------------------------- tiny instances


def random_graph(n: int, p: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(len(iu)) < p
    return np.stack([iu[keep], ju[keep]], axis=1)


def tiny_setcover(seed: int) -> SetCover:
    rng = np.random.default_rng(seed)
    a = (rng.random((8, 10)) < 0.25).astype(np.int8)
    a[np.arange(8), rng.integers(0, 10, 8)] = 1  # every row covered
    return SetCover(rng.integers(1, 6, 10).astype(float), sp.csr_array(a), name=f"cover{seed}")


def tiny_mixed_mip() -> MIP:
    """Minimise; two integer and two continuous variables, an equality and a ranged row."""
    a = np.array(
        [
            [1.0, 1.0, 1.0, 0.0],  # x1 + x2 + y1 == 4.5
            [2.0, 0.0, 0.0, -1.0],  # 1 <= 2 x1 - y2 <= 6
            [0.0, 1.0, 0.0, 1.0],  # x2 + y2 >= -1
            [1.0, -1.0, 1.0, 1.0],  # x1 - x2 + y1 + y2 <= 7
        ]
    )
    return MIP(
        c=np.array([3.0, -2.0, 1.0, 0.5]),
        matrix=sp.csr_array(a),
        row_lower=np.array([4.5, 1.0, -1.0, -INF]),
        row_upper=np.array([4.5, 6.0, INF, 7.0]),
        lower=np.array([0.0, -2.0, 0.0, -5.0]),
        upper=np.array([4.0, 3.0, 10.0, 5.0]),
        integrality=np.array([True, True, False, False]),
        offset=1.5,
        name="mixed",
    )


def tiny_integer_mip() -> MIP:
    """Maximise with an objective offset; all-integer (CP-SAT can take it)."""
    a = np.array(
        [
            [1.0, 2.0, 1.0],  # x1 + 2 x2 + x3 <= 9
            [1.0, -1.0, 2.0],  # 2 <= x1 - x2 + 2 x3 <= 6
            [1.0, 0.0, 1.0],  # x1 + x3 == 4
        ]
    )
    return MIP(
        c=np.array([2.0, 3.0, -1.0]),
        matrix=sp.csr_array(a),
        row_lower=np.array([-INF, 2.0, 4.0]),
        row_upper=np.array([9.0, 6.0, 4.0]),
        lower=np.array([0.0, 0.0, -3.0]),
        upper=np.array([5.0, 5.0, 3.0]),
        integrality=np.array([True, True, True]),
        sense=Sense.MAXIMIZE,
        offset=10.0,
        name="integer-max",
    )


def infeasible_mip() -> MIP:
    """2 x1 + 2 x2 == 5 over the integers: LP-feasible, integer-infeasible."""
    return MIP(np.array([1.0, 1.0]), sp.csr_array(np.array([[2.0, 2.0]])), [5.0], [5.0], [0, 0], [10, 10], [True, True])


def unbounded_mip() -> MIP:
    """Maximise x1 + x2 with x1 - x2 <= 1, x >= 0 integer."""
    a = sp.csr_array(np.array([[1.0, -1.0]]))
    return MIP(np.array([1.0, 1.0]), a, [-INF], [1.0], [0, 0], [INF, INF], [True, True], sense=Sense.MAXIMIZE)


def _graph_case(cls: type, seed: int) -> Problem:
    edges = random_graph(10, 0.4, seed)
    weights = np.random.default_rng(seed).integers(1, 5, len(edges)).astype(float) if cls is MaxCut else None
    return cls(10, edges, weights=weights, name=f"{cls.kind}-{seed}")


def _brute_force(problem: Problem) -> float | None:
    if isinstance(problem, SetCover):
        return brute_force_binary(problem, problem.n_cols)
    if isinstance(problem, TSP):
        return brute_force_tsp(problem)
    if isinstance(problem, MIP):
        return brute_force_mip(problem)
    return brute_force_binary(problem, problem.n)


def _tiny_factories() -> list[tuple[str, Callable[[], Problem]]]:
    """(id, factory) of the tiny instances: two of each family, plus two MIPs."""
    cases: list[tuple[str, Callable[[], Problem]]] = []
    for seed in (1, 2):
        cases.append((f"setcover-{seed}", partial(tiny_setcover, seed)))
        for cls in (MaximumIndependentSet, MaxCut, MaximumClique, MinimumDominatingSet):
            cases.append((f"{cls.kind}-{seed}", partial(_graph_case, cls, seed)))
        cases.append((f"tsp-{seed}", partial(tiny_tsp, seed)))
    cases += [("mip-mixed", tiny_mixed_mip), ("mip-integer-max", tiny_integer_mip)]
    return cases


def tiny_tsp(seed: int) -> TSP:
    return TSP(np.random.default_rng(seed).integers(0, 100, (7, 2)).astype(float), name=f"tsp-{seed}")


TINY_CASES = _tiny_factories()
_OPTIMA: dict[str, float | None] = {}


@pytest.fixture(params=TINY_CASES, ids=[c[0] for c in TINY_CASES])
def tiny_case(request: pytest.FixtureRequest) -> tuple[Problem, float]:
    """A tiny instance and its brute-force optimum (computed once per session)."""
    key, factory = request.param
    problem = factory()
    if key not in _OPTIMA:
        _OPTIMA[key] = _brute_force(problem)
    return problem, _OPTIMA[key]


# ---------------------------------------------------------------- hard instances


def hard_setcover(seed: int = 0) -> SetCover:
    """500 rows x 5000 columns, 2% density, costs 1..99: far beyond a few seconds of SCIP or CP-SAT."""
    rng = np.random.default_rng(seed)
    a = sp.random_array((500, 5000), density=0.02, rng=rng, format="csr")
    a.data[:] = 1
    return SetCover(rng.integers(1, 100, 5000).astype(float), a, name="hard-cover")


def hard_maxcut(seed: int = 0) -> MaxCut:
    """A random graph with 80 nodes and edge probability 0.3."""
    return MaxCut(80, random_graph(80, 0.3, seed), name="hard-maxcut")


def hard_tsp(seed: int = 0) -> TSP:
    """300 random cities: guided local search keeps improving for far longer than a test."""
    return TSP(np.random.default_rng(seed).random((300, 2)) * 10_000, name="hard-tsp")


# ---------------------------------------------------------------- result checks


def assert_monotone(result: Result) -> None:
    """The trace is non-empty, in time order, its incumbents improve and its bounds tighten."""
    assert result.trace, "empty trace"
    times = [p.time for p in result.trace]
    assert times == sorted(times)
    objectives = [p.objective for p in result.trace if p.objective is not None]
    bounds = [p.bound for p in result.trace if p.bound is not None]
    better = (lambda a, b: a <= b) if result.sense is Sense.MINIMIZE else (lambda a, b: a >= b)
    assert all(better(b, a) for a, b in itertools.pairwise(objectives)), objectives
    assert all(better(a, b) for a, b in itertools.pairwise(bounds)), bounds


def assert_optimal(result: Result, optimum: float) -> None:
    assert result.status is Status.OPTIMAL, result
    assert result.objective == pytest.approx(optimum, rel=1e-9, abs=1e-6)
    assert result.bound == result.objective
    assert result.gap == 0.0
    assert_monotone(result)


# ---------------------------------------------------------------- method-level runs


def context(problem: Problem, time_limit: float = INF, *, method: Method, seed: int = 0, threads: int = 1) -> SolveContext:
    """What :meth:`Solver.solve` hands ``method``, built here so that tests hold the deadline."""
    from cosolve.solver import verdict

    deadline = Deadline(time_limit)
    trace = Trace(problem.sense, deadline.elapsed, lambda x: verdict(problem, x))
    return SolveContext(deadline, trace, seed, threads, method.resolve(problem, time_limit))


def run(method: Method, problem: Problem, ctx: SolveContext) -> Termination:
    """Solve with ``method`` under ``ctx``; the termination the Solver would report."""
    from cosolve.solver import termination

    return termination(method.solve(problem, ctx), ctx.deadline)


# ---------------------------------------------------------------- Ctrl-C in a subprocess

CTRL_C_SCRIPT = """
import sys
from cosolve import Solver
sys.path.insert(0, {tests!r})
from conftest import {factory}
problem = {factory}()
def on_improvement(point):
    print("improved", point.objective, flush=True)
result = Solver({method!r}, time_limit=60, threads={threads}).solve(problem, on_improvement=on_improvement)
print("RESULT " + result.to_json(with_solution=False), flush=True)
"""


def run_and_interrupt(method: str, factory: str, *, threads: int = 1, after: float = 1.0) -> SimpleNamespace:
    """Run a 60 s solve of ``factory()`` in a fresh interpreter and send it SIGINT ``after``
    seconds after its first reported improvement. Checks that it prints one Result and exits
    with status 0; returns ``result``, ``to_result`` and ``to_exit`` (seconds from SIGINT to
    the printed Result and to the exit) and ``stderr``. A hung child is killed after 45 s."""
    script = CTRL_C_SCRIPT.format(tests=str(Path(__file__).parent), factory=factory, method=method, threads=threads)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    watchdog = threading.Timer(45, proc.kill)
    watchdog.start()
    try:
        line = proc.stdout.readline()
        while line and not line.startswith("improved"):
            line = proc.stdout.readline()
        assert line.startswith("improved"), f"no improvement reported: {proc.communicate()}"
        time.sleep(after)
        assert proc.poll() is None, "the solve ended before it was interrupted"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        lines = [proc.stdout.readline()]
        while lines[-1] and not lines[-1].startswith("RESULT "):
            lines.append(proc.stdout.readline())
        to_result = time.monotonic() - sent
        out, err = proc.communicate()
        to_exit = time.monotonic() - sent
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert lines[-1].startswith("RESULT ") and "RESULT" not in out, [*lines, out]
    result = Result.from_dict(json.loads(lines[-1][len("RESULT ") :]))
    return SimpleNamespace(result=result, to_result=to_result, to_exit=to_exit, stderr=err)


# ---------------------------------------------------------------- the helpers as one fixture


@pytest.fixture(scope="session")
def helpers() -> SimpleNamespace:
    """This module's instance factories and checks, for the test modules (which cannot import
    a conftest reliably)."""
    return SimpleNamespace(
        assert_monotone=assert_monotone,
        assert_optimal=assert_optimal,
        brute_force_binary=brute_force_binary,
        brute_force_tsp=brute_force_tsp,
        context=context,
        hard_maxcut=hard_maxcut,
        hard_setcover=hard_setcover,
        hard_tsp=hard_tsp,
        infeasible_mip=infeasible_mip,
        random_graph=random_graph,
        run=run,
        run_and_interrupt=run_and_interrupt,
        tiny_integer_mip=tiny_integer_mip,
        tiny_mixed_mip=tiny_mixed_mip,
        tiny_setcover=tiny_setcover,
        tiny_tsp=tiny_tsp,
        unbounded_mip=unbounded_mip,
    )
