"""Small random set covers and their brute-force answers, shared by the set cover heuristic tests."""

import itertools

import numpy as np
import scipy.sparse as sp

from cosolve.problems import SetCover


def random_cover(rng: np.random.Generator, m: int, n: int, density: float = 0.3) -> SetCover:
    """An m x n cover with entries of ``density``, every row covered, integer costs 1..9."""
    a = (rng.random((m, n)) < density).astype(np.int8)
    for i in np.flatnonzero(a.sum(axis=1) == 0):
        a[i, rng.integers(n)] = 1
    return SetCover(rng.integers(1, 10, n).astype(float), sp.csr_array(a))


def all_covers(problem: SetCover) -> np.ndarray:
    """Every feasible 0/1 choice of columns (rows of the result)."""
    subsets = np.array(list(itertools.product([0, 1], repeat=problem.n_cols)), dtype=np.int32)
    feasible = ((problem.matrix @ subsets.T) > 0).all(axis=0)
    return subsets[feasible]


def brute_force_optimum(problem: SetCover) -> float:
    return float((all_covers(problem) @ problem.costs).min())
