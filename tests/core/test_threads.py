"""Thread limits: every solve and every fit runs with BLAS/OpenMP, numba (once its pool runs) and
torch pools set to ``threads``, and the previous settings come back afterwards."""

import subprocess
import sys
from typing import ClassVar

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_info

from cosolve import Solver, Termination
from cosolve.core import registry
from cosolve.core.method import Method, Outcome
from cosolve.core.threads import ThreadLimits
from cosolve.generators.graphs import erdos_renyi
from cosolve.method_catalog import methods


def pools() -> dict[str, int]:
    """The thread counts in force now: torch and the BLAS/OpenMP pools (the largest of them)."""
    blas = [info["num_threads"] for info in threadpool_info()]
    return {"torch": torch.get_num_threads(), "blas": max(blas, default=1)}


class Recording(Method):
    """Records the thread counts it runs with, in solve and in fit."""

    name = "test-threads"
    problems = frozenset({"mis"})
    seen: ClassVar[list[dict[str, int]]] = []

    def solve(self, problem, ctx):
        Recording.seen.append(pools())
        ctx.trace.offer(np.zeros(problem.n, np.int8))
        return Outcome(Termination.COMPLETED)

    def fit(self, data, ctx):
        Recording.seen.append(pools())
        return self


@pytest.fixture
def recording(monkeypatch):
    methods()
    monkeypatch.setitem(registry.METHODS._items, Recording.name, Recording)
    Recording.seen = []
    torch.set_num_threads(2)
    return Recording


def test_thread_limits_set_every_pool_and_restore_it():
    torch.set_num_threads(2)
    before = pools()
    with ThreadLimits(1):
        assert pools() == {"torch": 1, "blas": 1}
    assert pools() == before


def test_numba_is_limited_once_its_pool_runs_and_never_started_by_the_limit():
    # in a fresh process: starting numba's OpenMP pool here would leave spinning threads behind
    code = """
import numba, numba.np.ufunc.parallel as parallel
from cosolve.core.threads import ThreadLimits
with ThreadLimits(1):
    pass
print(parallel._is_initialized)
before = numba.get_num_threads()  # starts the pool
with ThreadLimits(1):
    inside = numba.get_num_threads()
print(before, inside, numba.get_num_threads())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "False"  # the limit itself did not start the pool
    before, inside, after = map(int, out[1:])
    assert inside == 1 and after == before


def test_a_solve_runs_within_its_threads_and_restores_them(recording):
    before = pools()
    problem = erdos_renyi(10, 0.3, problem="mis", seed=0)
    Solver("test-threads", threads=1).solve(problem)
    assert recording.seen == [{"torch": 1, "blas": 1}]
    assert pools() == before


def test_a_fit_runs_within_its_threads_and_restores_them(recording):
    before = pools()
    graphs = [erdos_renyi(10, 0.3, problem="mis", seed=s) for s in range(2)]
    Solver("test-threads", threads=1).fit(graphs, progress=False)
    assert recording.seen == [{"torch": 1, "blas": 1}]
    assert pools() == before
