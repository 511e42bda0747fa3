"""Neighbourhoods for set cover LNS: which columns a repair may change, and which rows it must cover.

A neighbourhood is built from a ranking of columns (by instability for GLNS, at random for
``lns-random``): the rows of the top-ranked columns are taken one column at a time, and each
row brings its *candidate* columns (its few columns of least Lagrangian reduced cost, see
:func:`candidate_lists`) and the incumbent's columns covering it, until the free set reaches its
size budget. Everything else stays fixed at the incumbent. The sub-problem then asks to cover,
with free columns only, every row that the fixed columns leave uncovered.

Arrays follow :mod:`cosolve.heuristics.setcover.greedy_cover` (CSR ``row_ptr``/``row_idx``, CSC
``col_ptr``/``col_idx``); candidate lists are a CSR-like pair ``cand_ptr`` (m+1,), ``cand_idx``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.core.numba_compile import njit
from cosolve.heuristics.setcover.greedy_cover import smallest_k


@njit(cache=True)
def candidate_lists(
    reduced: np.ndarray, allowed: np.ndarray, row_ptr: np.ndarray, row_idx: np.ndarray, per_row: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, its ``per_row`` allowed columns of least reduced cost (all of them when fewer),
    as ``(cand_ptr (m+1,) int64, cand_idx int64)``."""
    m = row_ptr.size - 1
    cand_ptr = np.zeros(m + 1, np.int64)
    chosen = np.empty(row_idx.size, np.int64)  # enough room: at most the row's length each
    out = np.empty(per_row, np.int64)
    for i in range(m):
        cols = np.empty(row_ptr[i + 1] - row_ptr[i], np.int64)
        vals = np.empty(cols.size)
        count = 0
        for p in range(row_ptr[i], row_ptr[i + 1]):
            j = row_idx[p]
            if allowed[j]:
                cols[count] = j
                vals[count] = reduced[j]
                count += 1
        taken = smallest_k(vals[:count], cols[:count], per_row, out)
        for t in range(taken):  # a loop, not a slice assignment (see cosolve.heuristics.kernel_arrays)
            chosen[cand_ptr[i] + t] = out[t]
        cand_ptr[i + 1] = cand_ptr[i] + taken
    cand_idx = chosen[: cand_ptr[m]].copy()
    return cand_ptr, cand_idx


@njit(cache=True)
def free_columns_kernel(
    ranking: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    cand_ptr: np.ndarray,
    cand_idx: np.ndarray,
    x: np.ndarray,
    budget: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Walk the columns of ``ranking`` in order; each unseen row of a column adds its candidates
    and the incumbent's (``x``) columns covering it to the free set, until the free set holds
    ``budget`` columns. Returns ``(free columns, rows taken)``, both int64."""
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    in_free = np.zeros(n, np.bool_)
    row_seen = np.zeros(m, np.bool_)
    free = np.empty(n, np.int64)
    rows = np.empty(m, np.int64)
    nf = 0
    nr = 0
    for t in range(ranking.size):
        if nf >= budget:
            break
        j0 = ranking[t]
        for p in range(col_ptr[j0], col_ptr[j0 + 1]):
            i = col_idx[p]
            if row_seen[i]:
                continue
            row_seen[i] = True
            rows[nr] = i
            nr += 1
            for q in range(cand_ptr[i], cand_ptr[i + 1]):
                j = cand_idx[q]
                if not in_free[j]:
                    in_free[j] = True
                    free[nf] = j
                    nf += 1
            for q in range(row_ptr[i], row_ptr[i + 1]):
                j = row_idx[q]
                if x[j] and not in_free[j]:
                    in_free[j] = True
                    free[nf] = j
                    nf += 1
            if nf >= budget:
                break
    return free[:nf].copy(), rows[:nr].copy()


@njit(cache=True)
def subproblem_kernel(
    free: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    x: np.ndarray,
    cover: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows that the fixed columns (``x`` outside ``free``) leave uncovered, and, per such
    row, its free columns. ``cover`` (m,) int64 counts the incumbent's columns per row.
    Returns ``(rows (r,), sub_ptr (r+1,), sub_idx)`` with ``sub_idx`` positions into ``free``."""
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    position = np.full(n, -1, np.int64)
    for k in range(free.size):
        position[free[k]] = k
    freed = np.zeros(m, np.int64)  # incumbent columns of the free set covering each row
    for k in range(free.size):
        j = free[k]
        if x[j]:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                freed[col_idx[p]] += 1
    rows = np.empty(m, np.int64)
    r = 0
    for i in range(m):
        if freed[i] > 0 and cover[i] - freed[i] == 0:
            rows[r] = i
            r += 1
    sub_ptr = np.zeros(r + 1, np.int64)
    for t in range(r):
        i = rows[t]
        c = 0
        for p in range(row_ptr[i], row_ptr[i + 1]):
            if position[row_idx[p]] >= 0:
                c += 1
        sub_ptr[t + 1] = sub_ptr[t] + c
    sub_idx = np.empty(sub_ptr[r], np.int64)
    for t in range(r):
        i = rows[t]
        c = sub_ptr[t]
        for p in range(row_ptr[i], row_ptr[i + 1]):
            k = position[row_idx[p]]
            if k >= 0:
                sub_idx[c] = k
                c += 1
    return rows[:r].copy(), sub_ptr, sub_idx


@dataclass
class Subproblem:
    """A repair problem: choose among ``free`` (f,) columns to cover ``rows`` (r,), where row t is
    covered by the free columns ``free[sub_idx[sub_ptr[t]:sub_ptr[t+1]]]``. ``start`` (f,) int8 is
    the incumbent's choice among the free columns, a feasible start."""

    free: np.ndarray
    rows: np.ndarray
    sub_ptr: np.ndarray
    sub_idx: np.ndarray
    start: np.ndarray

    @property
    def size(self) -> int:
        return int(self.free.size)


class AdaptiveSize:
    """The free-set budget of the next neighbourhood: grows by ``factor`` after a repair that was
    solved to optimality without improving (too small to help), shrinks after one that ran out
    of time (too big to solve), stays after an improvement. Kept within ``[low, high]`` and under
    the ``ceiling`` that :meth:`cap` sets (``high`` may be reset; the ceiling stays)."""

    def __init__(self, start: int, *, low: int, high: int, factor: float = 1.25) -> None:
        self.low, self.high, self.factor = max(1, low), max(1, high), factor
        self.ceiling = float("inf")
        self.value = float(min(max(start, self.low), self.high))

    def __int__(self) -> int:
        return round(self.value)

    def update(self, *, improved: bool, optimal: bool) -> None:
        if improved:
            return
        top = min(self.high, self.ceiling)
        self.value = min(top, self.value * self.factor) if optimal else max(self.low, self.value / self.factor)

    def cap(self, limit: float) -> None:
        """Never again above ``limit`` (at least ``low``): e.g. half of what a repair whose model
        could not be built within its slice got built."""
        self.ceiling = max(float(self.low), min(self.ceiling, float(limit)))
        self.value = min(self.value, self.ceiling)
