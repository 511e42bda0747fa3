"""The row-weighting local search: its incremental scores, cover counts and uncovered-row list equal
a recomputation after every chunk of steps; it returns covers never worse than its start, reaches
brute-force optima on tiny instances and the known optimum of a bundled OR-Library one (from
Chvátal's greedy, which is above it), works on a core of the columns, and honours its stop."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
from cosolve.heuristics.setcover.row_weighting import rwls, rwls_kernel, rwls_on_core
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.io import read
from tests.heuristics.setcover.setcover_cases import random_cover
from tests.oracles import brute_force_setcover

ORLIB = Path(__file__).resolve().parents[3] / "instances" / "setcover"


def is_cover(p, x):
    return bool(np.all(p.matrix @ x.astype(np.int64) >= 1))


@pytest.mark.parametrize("unicost", [False, True])
def test_incremental_state_equals_a_recomputation(unicost):
    rng = np.random.default_rng(3)
    p = random_cover(rng, 40, 120, 0.08)
    costs = np.ones(p.n_cols) if unicost else np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    x = greedy_set_cover(costs, csr, csc).astype(np.int8)
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    m, n = csr.shape
    best_x, cover = x.copy(), np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
    weight = np.ones(m)
    score = -np.asarray(csc.T @ (cover == 1).astype(float)) * x
    can_add, stamp = x == 0, np.zeros(n, np.int64)
    uncovered, where = np.zeros(m + 1, np.int64), np.full(m, -1, np.int64)
    selected = np.zeros(n, np.int64)
    chosen = np.flatnonzero(x)
    selected[: chosen.size] = chosen
    state = np.array([0, -1, chosen.size, 0], np.int64)
    start = float(costs @ x)
    for chunk in range(30):
        best = rwls_kernel(
            costs, row_ptr, row_idx, col_ptr, col_idx, x, best_x, cover, score, weight, can_add, stamp,
            uncovered, where, selected, state, 50, chunk,
        )  # fmt: skip
        count = np.asarray(csr @ x.astype(np.int64))
        assert np.array_equal(count, cover)
        outside = np.asarray(csc.T @ (weight * (count == 0)))
        inside = -np.asarray(csc.T @ (weight * (count == 1)))
        assert np.allclose(score, np.where(x == 1, inside, outside))
        assert sorted(uncovered[1 : uncovered[0] + 1].tolist()) == np.flatnonzero(count == 0).tolist()
        assert sorted(selected[: state[2]].tolist()) == np.flatnonzero(x).tolist()
        assert is_cover(p, best_x) and best == pytest.approx(float(costs @ best_x)) and best <= start
    assert weight.max() > 1  # the search did leave rows uncovered and weighted them


@pytest.mark.parametrize("seed", range(12))
def test_rwls_returns_a_cover_no_worse_than_its_start_and_finds_tiny_optima(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(6, 14)), int(rng.integers(10, 16)), rng.uniform(0.15, 0.4))
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    y = rwls(p.costs, p.matrix, p.csc, x, stop=lambda: False, max_steps=20_000, seed=seed)
    assert is_cover(p, y)
    assert float(p.costs @ y) <= float(p.costs @ x) + 1e-9
    assert float(p.costs @ y) == pytest.approx(brute_force_setcover(p))


def test_rwls_reaches_the_optimum_of_an_orlibrary_instance_from_the_greedy():
    p = read(ORLIB / "scp41.txt")
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    assert float(p.costs @ x) > 429
    seen = []
    y = rwls(p.costs, p.matrix, p.csc, x, stop=lambda: False, max_steps=300_000, on_improve=lambda z, c: seen.append(c))
    assert is_cover(p, y) and float(p.costs @ y) == 429  # the proven optimum (instances/setcover/optima.csv)
    assert seen == sorted(seen, reverse=True) and seen[-1] == 429


def test_rwls_on_a_core_returns_a_cover_of_the_whole_instance():
    p = read(ORLIB / "scp41.txt")
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=300)
    covers = []
    y = rwls_on_core(
        p.costs, p.matrix, p.csc, lag, x, per_row=3, seed=1, stop=lambda: len(covers) >= 2,
        on_improve=lambda z, c: covers.append((z, c)),
    )  # fmt: skip
    assert y.shape == (p.n_cols,) and is_cover(p, y)
    for z, c in covers:
        assert z.shape == (p.n_cols,) and is_cover(p, z) and float(p.costs @ z) == c
    assert float(p.costs @ y) <= float(p.costs @ x)


def test_rwls_honours_its_stop_and_refuses_a_non_cover():
    p = read(ORLIB / "scp41.txt")
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    calls = []
    y = rwls(p.costs, p.matrix, p.csc, x, stop=lambda: calls.append(1) or len(calls) > 3, chunk=10)
    assert len(calls) == 4 and is_cover(p, y)
    with pytest.raises(ValueError, match="cover"):
        rwls(p.costs, p.matrix, p.csc, np.zeros(p.n_cols, np.int8), stop=lambda: True)


def test_rwls_handles_free_columns_and_an_instance_without_rows():
    rng = np.random.default_rng(5)
    p = random_cover(rng, 10, 14, 0.3)
    costs = p.costs.copy()
    costs[:3] = 0.0
    x = greedy_set_cover(costs, p.matrix, p.csc)
    y = rwls(costs, p.matrix, p.csc, x, stop=lambda: False, max_steps=20_000)
    assert is_cover(p, y) and float(costs @ y) <= float(costs @ x)
    empty = random_cover(rng, 4, 6, 0.5).matrix[:0]
    out = rwls(np.ones(6), empty, sp.csc_array(empty), np.ones(6, np.int8), stop=lambda: False)
    assert out.tolist() == [0] * 6


def test_rwls_on_given_columns_only_moves_among_them_and_the_start():
    p = read(ORLIB / "scp41.txt")
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=300)
    extra = np.random.default_rng(0).choice(p.n_cols, 300, replace=False).astype(np.int64)
    steps = iter(range(400))
    y = rwls_on_core(p.costs, p.matrix, p.csc, lag, x, per_row=0, extra=extra, seed=1, stop=lambda: next(steps, None) is None)
    allowed = np.zeros(p.n_cols, bool)
    allowed[extra] = True
    allowed[x == 1] = True
    assert is_cover(p, y) and np.all(allowed[y == 1]) and float(p.costs @ y) <= float(p.costs @ x)
