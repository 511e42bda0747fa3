"""The swap local search: feasible, never worse, no redundant column, and it finds a planted swap."""

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.problems import SetCover


def random_cover(rng, m, n, density):
    a = (rng.random((m, n)) < density).astype(np.int8)
    for i in np.flatnonzero(a.sum(axis=1) == 0):
        a[i, rng.integers(n)] = 1
    return SetCover(rng.integers(1, 20, n).astype(float), sp.csr_array(a))


@pytest.mark.parametrize("seed", range(20))
def test_result_is_a_minimal_cover_no_worse_than_the_start(seed):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(5, 60)), int(rng.integers(5, 120)), rng.uniform(0.03, 0.4))
    start = np.ones(p.n_cols, np.int8) if seed % 2 else greedy_set_cover(p.costs, p.matrix, p.csc)
    x = swap_local_search(p.costs, p.matrix, p.csc, start)
    assert p.evaluate(x).feasible
    assert p.costs @ x <= p.costs @ start
    cover = p.matrix @ x.astype(np.int64)
    dense = p.matrix.toarray()
    assert all((cover[dense[:, j] == 1] == 1).any() for j in np.flatnonzero(x))  # nothing redundant


def test_a_cheaper_column_covering_the_rows_only_j_covers_replaces_j():
    # rows 0-1 only by column 0 (cost 10) in the start; column 2 (cost 3) covers both; column 1 covers row 2
    a = sp.csr_array(np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0]], dtype=np.int8))
    p = SetCover(np.array([10.0, 1.0, 3.0]), a)
    x = swap_local_search(p.costs, p.matrix, p.csc, np.array([1, 1, 0], np.int8))
    assert x.tolist() == [0, 1, 1]
    blocked = swap_local_search(p.costs, p.matrix, p.csc, np.array([1, 1, 0], np.int8), allowed=np.array([1, 1, 0], bool))
    assert blocked.tolist() == [1, 1, 0]
