"""Chvátal's greedy and redundancy removal against Python references and brute force."""

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.errors import InputError
from cosolve.heuristics.setcover.greedy_cover import (
    chvatal_greedy,
    chvatal_greedy_kernel,
    greedy_set_cover,
    remove_redundant,
)
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.problems import SetCover
from tests.oracles import brute_force_setcover


def random_cover(rng, m, n, density=0.3, integer_costs=True, zero_cost=0):
    a = (rng.random((m, n)) < density).astype(np.int8)
    for i in np.flatnonzero(a.sum(axis=1) == 0):  # every row needs a column
        a[i, rng.integers(n)] = 1
    costs = rng.integers(1, 6, n).astype(float) if integer_costs else rng.uniform(0.5, 3.0, n)
    costs[rng.choice(n, zero_cost, replace=False)] = 0.0
    return SetCover(costs, sp.csr_array(a))


def reference_chvatal(costs, dense, start=None):
    """Textbook Chvátal greedy: least cost / newly covered rows, ties by smaller column index."""
    n = dense.shape[1]
    x = np.zeros(n, np.int8) if start is None else start.copy()
    covered = dense[:, x == 1].any(axis=1)
    while not covered.all():
        gains = dense[~covered].sum(axis=0)
        ratios = np.where((gains > 0) & (x == 0), costs / np.maximum(gains, 1), np.inf)
        j = int(np.argmin(ratios))  # argmin takes the first (smallest index) minimum
        x[j] = 1
        covered |= dense[:, j] == 1
    return x


def is_redundant_free(problem, x):
    cover = problem.matrix @ x.astype(np.int32)
    dense = problem.matrix.toarray()
    return all((cover[dense[:, j] == 1] < 2).any() for j in np.flatnonzero(x))


@pytest.mark.parametrize("seed", range(25))
def test_kernel_makes_the_same_choices_as_the_textbook_greedy(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(3, 30)), int(rng.integers(3, 40)), rng.uniform(0.05, 0.5), seed % 2 == 0, seed % 3)
    x = chvatal_greedy(p.costs, p.matrix, p.csc)
    assert np.array_equal(x, reference_chvatal(p.costs, p.matrix.toarray()))
    assert p.evaluate(x).feasible


@pytest.mark.parametrize("seed", range(40))
def test_greedy_is_within_the_harmonic_factor_of_the_brute_force_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    p = random_cover(rng, int(rng.integers(4, 15)), 12, rng.uniform(0.1, 0.4), seed % 2 == 0)
    opt = brute_force_setcover(p)
    raw = chvatal_greedy(p.costs, p.matrix, p.csc)
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    harmonic = sum(1.0 / k for k in range(1, int(np.diff(p.csc.indptr).max()) + 1))
    assert p.evaluate(x).feasible
    assert opt - 1e-9 <= p.evaluate(x).objective <= p.evaluate(raw).objective <= harmonic * opt + 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_redundancy_removal_leaves_a_minimal_cover(seed):
    rng = np.random.default_rng(200 + seed)
    p = random_cover(rng, 20, 30, 0.2)
    start = (rng.random(30) < 0.7).astype(np.int8)
    x = chvatal_greedy(p.costs, p.matrix, p.csc, start=start)  # a cover with plenty of redundancy
    assert np.all(x >= start)
    y = remove_redundant(p.costs, p.csc, x)
    assert p.evaluate(y).feasible and np.all(y <= x)
    assert is_redundant_free(p, y)
    assert not is_redundant_free(p, x)  # the check can fail: the start had redundant columns


def test_redundancy_removal_drops_the_most_expensive_column_first():
    # rows 0, 1; columns 0 and 1 each cover both rows: both are redundant alone, the dearer goes
    a = sp.csr_array(np.array([[1, 1], [1, 1]]))
    costs = np.array([2.0, 5.0])
    assert list(remove_redundant(costs, a.tocsc(), np.array([1, 1]))) == [1, 0]
    assert list(remove_redundant(costs[::-1].copy(), a.tocsc(), np.array([1, 1]))) == [0, 1]


def test_the_ratio_rule_picks_the_cheapest_per_row_column_even_when_it_is_not_optimal():
    # rows 0..3: S0={0,1} cost 1, S1={2,3} cost 1, S2={0,1,2} cost 1.4 (ratio 0.467 < 0.5)
    a = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 1, 0]])
    p = SetCover(np.array([1.0, 1.0, 1.4]), sp.csr_array(a))
    x = greedy_set_cover(p.costs, p.matrix)
    assert list(x) == [0, 1, 1] and p.evaluate(x).objective == pytest.approx(2.4)  # optimum is 2.0
    assert brute_force_setcover(p) == 2.0


def test_zero_cost_columns_come_first_and_redundancy_removal_keeps_the_cost():
    # column 2 is free and covers row 0; column 0 (cost 1) covers rows 0-2, column 1 (cost 1) row 1
    a = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 0]])
    p = SetCover(np.array([1.0, 1.0, 0.0]), sp.csr_array(a))
    x = chvatal_greedy(p.costs, p.matrix)
    assert list(x) == [1, 0, 1]
    y = remove_redundant(p.costs, p.csc, x)
    assert p.evaluate(y).objective == 1.0 and p.evaluate(y).feasible


def test_one_shot_kernel_matches_the_chunked_driver_and_stop_gives_up():
    p = random_cover(np.random.default_rng(7), 300, 500, 0.02)
    x = chvatal_greedy(p.costs, p.matrix, p.csc, stop=lambda: False, work_per_check=50)  # many small chunks
    y = np.zeros(p.n_cols, np.int8)
    rp, ri, cp, ci = index_arrays(p.matrix, p.csc)
    assert chvatal_greedy_kernel(p.costs, rp, ri, cp, ci, y) == 0
    assert np.array_equal(x, y) and np.array_equal(x, chvatal_greedy(p.costs, p.matrix))
    assert chvatal_greedy(p.costs, p.matrix, p.csc, stop=lambda: True) is None
    assert rp.dtype == np.int32 and ci.dtype == np.int32


def test_a_row_without_columns_is_reported():
    a = sp.csr_array(np.array([[1, 0], [0, 0], [0, 1]]))
    with pytest.raises(InputError, match="1 rows"):
        chvatal_greedy(np.ones(2), a)


def test_large_sparse_instance_is_covered():
    rng = np.random.default_rng(3)
    m, n, per_col = 20_000, 200_000, 10
    rows = rng.integers(0, m, n * per_col)
    cols = np.repeat(np.arange(n), per_col)
    a = sp.csr_array((np.ones(rows.size, np.int8), (rows, cols)), shape=(m, n))
    p = SetCover(rng.integers(1, 100, n).astype(float), a)
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    assert p.evaluate(x).feasible
    cover = p.matrix @ x.astype(np.int32)
    for j in np.flatnonzero(x)[:200]:  # spot check minimality
        assert cover[p.csc.indices[p.csc.indptr[j] : p.csc.indptr[j + 1]]].min() == 1
