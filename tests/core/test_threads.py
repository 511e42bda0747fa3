"""Thread limits: every solve and every fit runs with BLAS/OpenMP, numba and torch pools set to
``threads``, and the previous settings come back afterwards."""

from typing import ClassVar

import numba
import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_info

from cosolve import Solver, Termination
from cosolve.core import registry
from cosolve.core.method import Method, Outcome
from cosolve.core.registry import methods
from cosolve.core.threads import ThreadLimits
from cosolve.generators.graphs import erdos_renyi


def pools() -> dict[str, int]:
    """The thread counts in force now: torch, numba and every BLAS/OpenMP pool (the smallest)."""
    blas = [info["num_threads"] for info in threadpool_info()]
    return {"torch": torch.get_num_threads(), "numba": numba.get_num_threads(), "blas": min(blas) if blas else 1}


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
    monkeypatch.setitem(registry._METHODS, Recording.name, Recording)
    Recording.seen = []
    torch.set_num_threads(2)
    return Recording


def test_thread_limits_set_every_pool_and_restore_it():
    torch.set_num_threads(2)
    before = pools()
    with ThreadLimits(1):
        assert pools() == {"torch": 1, "numba": 1, "blas": 1}
    assert pools() == before


def test_a_solve_runs_within_its_threads_and_restores_them(recording):
    before = pools()
    problem = erdos_renyi(10, 0.3, problem="mis", seed=0)
    Solver("test-threads", threads=1).solve(problem)
    assert recording.seen == [{"torch": 1, "numba": 1, "blas": 1}]
    assert pools() == before


def test_a_fit_runs_within_its_threads_and_restores_them(recording):
    before = pools()
    graphs = [erdos_renyi(10, 0.3, problem="mis", seed=s) for s in range(2)]
    Solver("test-threads", threads=1).fit(graphs, progress=False)
    assert recording.seen == [{"torch": 1, "numba": 1, "blas": 1}]
    assert pools() == before
