"""Small random set covers shared by the set cover heuristic tests (brute force: tests/oracles.py)."""

import numpy as np
import scipy.sparse as sp

from cosolve.problems import SetCover


def random_cover(rng: np.random.Generator, m: int, n: int, density: float = 0.3) -> SetCover:
    """An m x n cover with entries of ``density``, every row covered, integer costs 1..9."""
    a = (rng.random((m, n)) < density).astype(np.int8)
    for i in np.flatnonzero(a.sum(axis=1) == 0):
        a[i, rng.integers(n)] = 1
    return SetCover(rng.integers(1, 10, n).astype(float), sp.csr_array(a))
