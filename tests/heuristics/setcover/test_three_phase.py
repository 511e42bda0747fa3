"""CFT's Lagrangian greedy (pick order), the residual instance, column fixing, three-phase and
refinement: covers only, never worse than the start, the brute-force optimum on tiny instances, the
optimum on a bundled OR-Library one, and the stop callback honoured."""

from pathlib import Path

import numpy as np
import pytest

from cosolve.heuristics.setcover import three_phase as cft
from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound, lagrangian_greedy_kernel
from cosolve.heuristics.setcover.three_phase import FIX_THRESHOLD, CoverPool, RefineStats, Residual, columns_to_fix, refine
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.io import read
from tests.heuristics.setcover.setcover_cases import random_cover
from tests.oracles import brute_force_setcover

ORLIB = Path(__file__).resolve().parents[3] / "instances" / "setcover"


def is_cover(p, x):
    return bool(np.all(p.matrix @ x.astype(np.int64) >= 1))


def start(p):
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=300)
    return x, lag


@pytest.mark.parametrize("seed", range(5))
def test_greedy_records_the_columns_it_takes_in_order(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, 30, 60, 0.1)
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(p.matrix, p.csc)
    u = rng.uniform(0, 3, p.n_rows)
    x = np.zeros(p.n_cols, np.int8)
    picked = np.empty(p.n_cols + 1, np.int64)
    assert lagrangian_greedy_kernel(p.costs, row_ptr, row_idx, col_ptr, col_idx, u, x, picked) == 0
    taken = picked[: np.argmax(picked < 0)]
    assert sorted(taken.tolist()) == np.flatnonzero(x).tolist()
    assert is_cover(p, x)
    # every column taken covered a row that the columns taken before it left uncovered
    covered = np.zeros(p.n_rows, bool)
    for j in taken:
        rows = p.csc.indices[p.csc.indptr[j] : p.csc.indptr[j + 1]]
        assert not covered[rows].all()
        covered[rows] = True


VARIANTS = [{}, {"consensus": 4}, {"pi_reset": True, "fresh_multipliers": True}]


@pytest.mark.parametrize("variant", VARIANTS, ids=["plain", "consensus", "pi-reset-fresh"])
@pytest.mark.parametrize("seed", range(10))
def test_refine_returns_a_cover_no_worse_than_its_start_and_finds_tiny_optima(seed, variant):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(6, 14)), int(rng.integers(10, 16)), rng.uniform(0.15, 0.4))
    x, lag = start(p)
    seen = []
    stats = RefineStats()
    best = refine(
        p.costs, p.matrix, p.csc, lag, x, stop=lambda: False, rng=np.random.default_rng(seed),
        on_improve=lambda y, cost: seen.append((is_cover(p, y), cost, float(p.costs @ y))), stats=stats, **variant,
    )  # fmt: skip
    assert is_cover(p, best)
    assert p.costs @ best <= p.costs @ x
    assert all(ok and cost == value for ok, cost, value in seen)
    assert [c for _, c, _ in seen] == sorted((c for _, c, _ in seen), reverse=True)
    assert p.costs @ best == brute_force_setcover(p)
    assert stats.rounds >= 1


def test_refine_reaches_the_optimum_of_an_orlib_instance_the_greedy_misses():
    p = read(ORLIB / "scpa2.txt")  # optimum 252; greedy gives 270
    x, lag = start(p)
    assert p.costs @ x > 252
    best = refine(p.costs, p.matrix, p.csc, lag, x, stop=lambda: False, rng=np.random.default_rng(0))
    assert is_cover(p, best)
    assert p.costs @ best == 252


def test_refine_honours_stop_and_returns_the_start():
    p = read(ORLIB / "scpa1.txt")
    x, lag = start(p)
    best = refine(p.costs, p.matrix, p.csc, lag, x, stop=lambda: True, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(best, x)


@pytest.mark.parametrize("seed", range(5))
def test_residual_keeps_the_rows_left_uncovered_and_the_other_columns_touching_them(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, 40, 80, 0.1)
    whole = Residual.whole(p.costs, p.matrix, p.csc)
    first = rng.choice(p.n_cols, 3, replace=False)
    res = whole.without(first)
    second = rng.choice(res.cols.size, 2, replace=False)
    taken = np.concatenate([first, res.cols[second]])
    res = res.without(second)
    dense = p.matrix.toarray()
    rows = np.flatnonzero(dense[:, taken].sum(axis=1) == 0)
    cols = np.setdiff1d(np.flatnonzero(dense[rows].sum(axis=0) > 0), taken)
    np.testing.assert_array_equal(res.rows, rows)
    np.testing.assert_array_equal(res.cols, cols)
    np.testing.assert_array_equal(res.csr.toarray(), dense[np.ix_(rows, cols)])
    np.testing.assert_array_equal(res.csc.toarray(), dense[np.ix_(rows, cols)])
    np.testing.assert_array_equal(res.costs, p.costs[cols])
    for matrix in (res.csr, res.csc):  # what the kernels and scipy's products expect
        assert matrix.dtype == p.matrix.dtype and matrix.indices.dtype == p.matrix.indices.dtype
        starts, ends = matrix.indptr[:-1], matrix.indptr[1:]
        assert all(np.all(np.diff(matrix.indices[a:b]) > 0) for a, b in zip(starts, ends, strict=True))


@pytest.mark.parametrize("seed", range(5))
def test_column_fixing_takes_lone_negative_columns_then_the_greedy_s_first_picks(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, 40, 120, 0.08)
    x, _ = start(p)
    res = Residual.whole(p.costs, p.matrix, p.csc)
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=50)
    fixed = columns_to_fix(res, lag, 3)
    negative = np.flatnonzero(lag.reduced < FIX_THRESHOLD)
    dense = p.matrix.toarray()
    lone = [j for j in negative if not any(dense[:, j] @ dense[:, k] for k in negative if k != j)]
    assert fixed[: len(lone)].tolist() == lone
    rest = fixed[len(lone) :]
    assert 1 <= rest.size <= 3 and not set(rest) & set(lone)
    # the rest are the greedy's first picks after the lone columns
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(p.matrix, p.csc)
    g = np.zeros(p.n_cols, np.int8)
    g[lone] = 1
    picked = np.empty(p.n_cols + 1, np.int64)
    lagrangian_greedy_kernel(p.costs, row_ptr, row_idx, col_ptr, col_idx, lag.multipliers, g, picked)
    assert rest.tolist() == picked[: rest.size].tolist()


def test_cover_pool_keeps_the_cheapest_distinct_covers_and_the_columns_all_of_them_share():
    pool = CoverPool(2)
    a, b, c = (np.array(v, np.int8) for v in ([1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 1]))
    pool.offer(a, 5.0)
    assert pool.agreed() is None  # one cover agrees with nothing yet
    pool.offer(a.copy(), 5.0)  # the same cover again
    pool.offer(c, 9.0)
    pool.offer(b, 6.0)  # cheaper than c: c leaves
    assert sorted(cost for cost, _ in pool.covers.values()) == [5.0, 6.0]
    np.testing.assert_array_equal(pool.agreed(), [True, False, False, False])
    pool.offer(c, 9.0)  # dearer than every kept cover: not taken
    assert sorted(cost for cost, _ in pool.covers.values()) == [5.0, 6.0]


def test_consensus_rounds_fix_the_columns_shared_by_every_pooled_cover(monkeypatch):
    p = read(ORLIB / "scp41.txt")
    x, lag = start(p)
    calls = []
    real = cft.three_phase

    def spy(whole, fixed, u, *, on_cover, **kwargs):
        pool = on_cover.__self__  # the CoverPool whose offer refine passes
        calls.append((fixed.copy(), [y.copy() for _, y in pool.covers.values()]))
        return real(whole, fixed, u, on_cover=on_cover, **kwargs)

    monkeypatch.setattr(cft, "three_phase", spy)
    refine(p.costs, p.matrix, p.csc, lag, x, stop=lambda: False, rng=np.random.default_rng(0), max_rounds=6, consensus=5)
    consensus_rounds = [(fixed, pooled) for k, (fixed, pooled) in enumerate(calls) if k % 2 == 1 and len(pooled) >= 2]
    assert consensus_rounds  # the pool filled during the first round
    for fixed, pooled in consensus_rounds:
        np.testing.assert_array_equal(fixed, np.logical_and.reduce([y == 1 for y in pooled]))
        assert 0 < fixed.sum() < min(int(y.sum()) for y in pooled)


@pytest.mark.parametrize("pi_reset", [False, True])
def test_a_round_that_improves_sets_the_fixing_fraction_back_only_with_pi_reset(monkeypatch, pi_reset):
    p = read(ORLIB / "scpa2.txt")  # the greedy's 270 is improved over several rounds (optimum 252)
    x, lag = start(p)
    rounds = []
    real = cft.three_phase

    def spy(whole, fixed, u, **kwargs):
        found, cost = real(whole, fixed, u, **kwargs)
        covered = np.asarray(whole.csr @ fixed.astype(np.int64)) > 0
        rounds.append((covered.mean(), found is not None))
        return found, cost

    monkeypatch.setattr(cft, "three_phase", spy)
    refine(p.costs, p.matrix, p.csc, lag, x, stop=lambda: False, rng=np.random.default_rng(0), max_rounds=12, pi_reset=pi_reset)
    widest = max(np.diff(p.csc.indptr)) / p.n_rows  # one column's share of the rows
    after_improving = [rounds[k + 1][0] for k in range(1, len(rounds) - 1) if rounds[k][1] and rounds[k][0] > 0.31]
    assert after_improving  # an improving round past the first two, with pi above its start
    for share in after_improving:
        assert (0.3 <= share < 0.3 + widest) == pi_reset


def test_on_cover_sees_every_completed_cover_as_columns_of_the_whole_instance():
    p = read(ORLIB / "scpa2.txt")
    x, lag = start(p)
    seen = []
    best = refine(p.costs, p.matrix, p.csc, lag, x, stop=lambda: False, rng=np.random.default_rng(0), max_rounds=3,
                  on_cover=lambda columns, cost: seen.append((columns.copy(), cost)))  # fmt: skip
    assert len(seen) >= 2 and min(cost for _, cost in seen) <= float(p.costs @ best)  # the best came from one of them
    for columns, cost in seen:  # feasible covers of the whole instance, at the costs given
        y = np.zeros(p.costs.size, np.int8)
        y[columns] = 1
        assert is_cover(p, y) and float(p.costs[columns].sum()) == pytest.approx(cost)
