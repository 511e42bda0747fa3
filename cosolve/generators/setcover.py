"""Random set cover instances, vectorised.

:func:`random_setcover`, in the style of Balas & Ho (1980) and Beasley's OR-Library sets: every
column covers at least one row, every row is covered by at least two columns, the remaining
nonzeros are spread uniformly at random, costs are uniform integers. A 10,000 x 1,000,000
instance with 10,000,000 nonzeros builds in a few seconds.

:func:`rail_like`, in the style of the OR-Library crew-scheduling ("rail") instances: many short
columns (1..12 rows in up to three runs of consecutive rows, as a duty covers a few stretches of
trips close in time), costs 1 or 2 (2 more often for longer columns).
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


def rail_like(
    n_rows: int,
    n_cols: int,
    *,
    max_cover: int = 12,
    max_pieces: int | None = 3,
    spread: float = 3.0,
    seed: int = 0,
    name: str | None = None,
) -> SetCover:
    """A rail-like set cover with ``n_rows`` rows (trips, in time order) and ``n_cols`` columns (duties).

    Column j covers k_j = 1 + Binomial(``max_cover`` - 1, 1/2) rows in p_j = 1 + Binomial(
    ``max_pieces`` - 1, 1/2) runs of consecutive rows (at most k_j runs, each of ceil(k_j / p_j)
    rows but the last), as a duty covers a few stretches of consecutive trips (``max_pieces`` None:
    p_j = k_j, every row drawn on its own, the "scattered" variant); the runs start at
    uniform offsets in a window of ``spread`` * k_j rows from a uniform first row (cyclically, runs
    may overlap: a column can cover fewer than k_j rows). Its cost is 2 with probability
    (k_j - 1) / (``max_cover`` - 1), else 1. Rows no column reaches get a one-row column each
    (cost 1). Runs of consecutive rows bring the LP relaxation closer to integral (one run per
    column makes it exact): on 500 x 60,000 (three seeds) the LP bound is 6-9% below the cover
    cft finds in 10 s, where rows drawn one by one in the window left about 30%; OR-Library's rail
    instances are closer still (about 1%).
    Deterministic in ``seed``.
    """
    m, n, top = int(n_rows), int(n_cols), int(max_cover)
    most = top if max_pieces is None else int(max_pieces)
    if m < 1 or n < 1:
        raise InputError(f"a rail-like set cover needs at least 1 row and 1 column, got {m} x {n}")
    if not 1 <= top <= m:
        raise InputError(f"max_cover must be in 1..{m} (the rows), got {top}")
    if most < 1:
        raise InputError(f"max_pieces must be at least 1, got {most}")
    if spread < 1:
        raise InputError(f"spread must be at least 1, got {spread}")
    rng = np.random.default_rng(seed)
    k = 1 + rng.binomial(top - 1, 0.5, n) if top > 1 else np.ones(n, np.int64)
    pieces = k.copy() if max_pieces is None else np.minimum(k, 1 + rng.binomial(most - 1, 0.5, n))
    run = -(-k // pieces)  # rows per run, ceil
    window = np.maximum(k, np.floor(k * rng.uniform(1.0, spread, n)).astype(np.int64))
    first = rng.integers(0, m, n)
    piece_at = np.r_[0, np.cumsum(pieces)[:-1]]  # where column j's runs start in the run arrays
    offset = np.floor(rng.random(int(pieces.sum())) * np.repeat(window, pieces)).astype(np.int64)
    col = np.repeat(np.arange(n, dtype=np.int64), k)
    slot = np.arange(len(col)) - np.repeat(np.r_[0, np.cumsum(k)[:-1]], k)  # 0..k_j-1 within column j
    piece = slot // run[col]
    row = (first[col] + offset[piece_at[col] + piece] + slot % run[col]) % m
    keys = np.sort(col * m + row)
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # repeats dropped (sorting beats np.unique's hashing here)
    col, row = np.divmod(keys, m)
    costs = np.where(rng.random(n) < (k - 1) / max(top - 1, 1), 2.0, 1.0)
    missing = np.flatnonzero(np.bincount(row, minlength=m) == 0)
    if len(missing):  # a one-row column for each row no column reaches (keys stay sorted by column)
        col = np.concatenate([col, n + np.arange(len(missing))])
        row = np.concatenate([row, missing])
        costs = np.concatenate([costs, np.ones(len(missing))])
        n += len(missing)
    colptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(col, minlength=n), out=colptr[1:])
    by_column = sp.csc_array((np.ones(len(row), dtype=np.int8), row.astype(np.int32), colptr), shape=(m, n))
    matrix = sp.csr_array(by_column.tocsr())
    return SetCover(costs, matrix, name=name or f"rail{m}x{n}_s{seed}")


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
