"""Random set cover instances in the style of Balas & Ho (1980), vectorised.

Every column covers at least one row, every row is covered by at least two columns, the
remaining nonzeros are spread uniformly at random, costs are uniform integers. A 10,000 x
1,000,000 instance with 10,000,000 nonzeros builds in a few seconds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.errors import InputError
from cosolve.problems.setcover import SetCover


def random_setcover(
    n_rows: int,
    n_cols: int,
    density: float | None = None,
    *,
    nnz: int | None = None,
    cost_range: tuple[int, int] = (1, 100),
    seed: int = 0,
    name: str | None = None,
) -> SetCover:
    """A random set cover with ``n_rows`` rows, ``n_cols`` columns and exactly ``nnz`` nonzeros
    (or ``round(density * n_rows * n_cols)``; default density 0.02).

    Costs: integers uniform in ``cost_range`` (inclusive). Needs ``n_cols >= 2`` and
    ``min(n_rows * n_cols, n_cols + 2 * n_rows) <= nnz <= n_rows * n_cols``. Deterministic in ``seed``.
    """
    m, n = int(n_rows), int(n_cols)
    if m < 1 or n < 2:
        raise InputError(f"random set cover needs at least 1 row and 2 columns, got {m} x {n}")
    if nnz is None:
        nnz = round((0.02 if density is None else density) * m * n)
    elif density is not None:
        raise InputError("give density or nnz, not both")
    nnz = int(nnz)
    low = min(m * n, n + 2 * m)
    if not low <= nnz <= m * n:
        raise InputError(
            f"a {m} x {n} set cover with every column used and every row covered twice needs {low}..{m * n} nonzeros, got {nnz}"
        )
    lo, hi = cost_range
    if lo < 0 or hi < lo:
        raise InputError(f"cost range must satisfy 0 <= low <= high, got {cost_range}")
    rng = np.random.default_rng(seed)

    # forced entries, as keys row * n + col: one row per column, two distinct columns per row
    col_rows = rng.integers(0, m, n)
    first = rng.integers(0, n, m)
    second = (first + rng.integers(1, n, m)) % n
    rows = np.arange(m, dtype=np.int64)
    forced = np.unique(np.concatenate([col_rows * n + np.arange(n), rows * n + first, rows * n + second]))
    keys = _fill(rng, forced, nnz, m * n)
    row, col = np.divmod(keys, n)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=m), out=indptr[1:])
    dtype = np.int32 if len(keys) < 2**31 - 1 else np.int64
    matrix = sp.csr_array((np.ones(len(keys), dtype=np.int8), col.astype(np.int32), indptr.astype(dtype)), shape=(m, n))
    costs = rng.integers(lo, hi + 1, n).astype(np.float64)
    return SetCover(costs, matrix, name=name or f"rand{m}x{n}_{len(keys)}_s{seed}")


def _fill(rng: np.random.Generator, forced: np.ndarray, total: int, cells: int) -> np.ndarray:
    """Sorted distinct cell keys: the sorted distinct ``forced`` keys plus ``total - len(forced)``
    other cells of ``range(cells)`` drawn uniformly without replacement."""
    extra = total - len(forced)
    if extra <= 0:
        return forced
    if cells <= 4 * total:  # dense: draw from the explicit list of free cells
        free = np.ones(cells, dtype=bool)
        free[forced] = False
        pool = np.flatnonzero(free)
        return np.sort(np.concatenate([forced, pool[rng.choice(len(pool), extra, replace=False)]]))
    draws = int(extra * (1.02 + 1.5 * total / cells)) + 1000
    while True:  # sparse: draw with replacement, drop repeats and forced cells, trim at random
        # tag forced keys even and drawn keys odd so that, per cell, a forced key sorts first
        tagged = np.sort(np.concatenate([forced * 2, rng.integers(0, cells, draws) * 2 + 1]))
        cell = tagged >> 1
        first = np.ones(len(tagged), dtype=bool)
        first[1:] = cell[1:] != cell[:-1]
        drawn = first & (tagged & 1 == 1)
        surplus = int(drawn.sum()) - extra
        if surplus >= 0:
            break
        draws *= 2
    if surplus:
        drawn_at = np.flatnonzero(drawn)
        drawn[drawn_at[rng.choice(len(drawn_at), surplus, replace=False)]] = False
    keep = first & ((tagged & 1 == 0) | drawn)
    return cell[keep]
