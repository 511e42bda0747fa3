"""Set cover heuristics on CSR/CSC arrays: Chvátal's greedy and redundancy removal.

Shapes and dtypes (``m`` rows, ``n`` columns, ``nnz`` nonzeros):

* ``costs``: (n,) float64, >= 0.
* CSR ``row_ptr`` (m+1,), ``row_idx`` (nnz,): the columns covering row ``i`` are
  ``row_idx[row_ptr[i]:row_ptr[i+1]]``.
* CSC ``col_ptr`` (n+1,), ``col_idx`` (nnz,): the rows of column ``j`` are
  ``col_idx[col_ptr[j]:col_ptr[j+1]]``. Index arrays are int32 (or all int64 when too big).
* ``x``: (n,) int8 0/1 selection of columns.

The ``*_kernel``/``chvatal_start``/``chvatal_run`` functions are numba ``@njit`` and can be
called from other jitted code (e.g. a large neighbourhood search that completes partial
covers); the plain functions are the Python entry points. ``heap_sift_down``/``heapify``
keep a binary min-heap of ``(key, id)`` pairs (float64 ``keys``, int64 ``ids``, C-contiguous;
ties by smaller id); they have explicit signatures, so they compile (or load from the cache)
once, at import, without extra specialisations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.errors import InputError
from cosolve.heuristics.sparse_index import index_arrays

# --------------------------------------------------------------------------- binary min-heap


@njit("void(float64[::1], int64[::1], int64, int64)", cache=True)
def heap_sift_down(keys: np.ndarray, ids: np.ndarray, size: int, pos: int) -> None:
    """Move entry ``pos`` down until both children are larger (heap of ``size`` entries)."""
    k = keys[pos]
    v = ids[pos]
    while True:
        c = 2 * pos + 1
        if c >= size:
            break
        if c + 1 < size and (keys[c + 1] < keys[c] or (keys[c + 1] == keys[c] and ids[c + 1] < ids[c])):
            c += 1
        if not (keys[c] < k or (keys[c] == k and ids[c] < v)):
            break
        keys[pos] = keys[c]
        ids[pos] = ids[c]
        pos = c
    keys[pos] = k
    ids[pos] = v


@njit("int64(float64[::1], int64[::1], int64)", cache=True)
def heap_pop_root(keys: np.ndarray, ids: np.ndarray, size: int) -> int:
    """Remove the root of a heap of ``size`` entries; returns the new size."""
    size -= 1
    keys[0] = keys[size]
    ids[0] = ids[size]
    heap_sift_down(keys, ids, size, 0)
    return size


@njit("void(float64[::1], int64[::1], int64)", cache=True)
def heapify(keys: np.ndarray, ids: np.ndarray, size: int) -> None:
    """Turn the first ``size`` entries of ``keys``/``ids`` into a min-heap in O(size)."""
    for pos in range(size // 2 - 1, -1, -1):
        heap_sift_down(keys, ids, size, pos)


@njit(cache=True)
def smallest_k(keys: np.ndarray, ids: np.ndarray, k: int, out: np.ndarray) -> int:
    """Write into ``out`` the ``ids`` of the ``k`` smallest ``keys`` (all when fewer), in no
    particular order, with a bounded max-heap: O(len log k). Returns how many were written."""
    size = 0
    heap_keys = np.empty(k)
    heap_ids = np.empty(k, np.int64)
    for t in range(keys.size):
        key = keys[t]
        if size < k:  # push, sift up
            pos = size
            size += 1
            while pos > 0:
                parent = (pos - 1) // 2
                if heap_keys[parent] >= key:
                    break
                heap_keys[pos] = heap_keys[parent]
                heap_ids[pos] = heap_ids[parent]
                pos = parent
            heap_keys[pos] = key
            heap_ids[pos] = ids[t]
        elif key < heap_keys[0]:  # replace the root (the largest kept), sift down
            pos = 0
            while True:
                c = 2 * pos + 1
                if c >= size:
                    break
                if c + 1 < size and heap_keys[c + 1] > heap_keys[c]:
                    c += 1
                if heap_keys[c] <= key:
                    break
                heap_keys[pos] = heap_keys[c]
                heap_ids[pos] = heap_ids[c]
                pos = c
            heap_keys[pos] = key
            heap_ids[pos] = ids[t]
    for t in range(size):  # a loop, not a slice assignment (see cosolve.heuristics.kernel_arrays)
        out[t] = heap_ids[t]
    return size


# --------------------------------------------------------------------------- Chvátal's greedy


@njit(cache=True)
def chvatal_start(
    costs: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    x: np.ndarray,
    covered: np.ndarray,
    count: np.ndarray,
    keys: np.ndarray,
    ids: np.ndarray,
) -> tuple[int, int]:
    """Prepare the greedy state for completing the partial cover ``x`` (may be all zeros).

    Fills ``covered`` (m,) int8 with the rows ``x`` covers, ``count`` (n,) int64 with the
    number of uncovered rows of each unselected column, and the first ``size`` entries of
    ``keys`` (n,) float64 / ``ids`` (n,) int64 with a heap of ratios ``cost / count``.
    Returns ``(size, uncovered)``: the heap size and the number of uncovered rows.
    """
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    covered[:] = 0
    for j in range(n):
        if x[j]:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                covered[col_idx[p]] = 1
    uncovered = 0
    for i in range(m):
        if covered[i] == 0:
            uncovered += 1
    size = 0
    for j in range(n):
        c = 0
        if x[j] == 0:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                if covered[col_idx[p]] == 0:
                    c += 1
        count[j] = c
        if c > 0:
            keys[size] = costs[j] / c
            ids[size] = j
            size += 1
    heapify(keys, ids, size)
    return size, uncovered


@njit(cache=True)
def chvatal_run(
    costs: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    x: np.ndarray,
    covered: np.ndarray,
    count: np.ndarray,
    keys: np.ndarray,
    ids: np.ndarray,
    size: int,
    uncovered: int,
    max_work: int,
) -> tuple[int, int]:
    """Run Chvátal's greedy on the state of :func:`chvatal_start` for about ``max_work`` steps.

    Repeatedly pops the smallest ratio; a stale entry (its column lost uncovered rows since
    it was pushed) is re-keyed and sifted down instead (ratios only grow, so a popped entry
    whose ratio is current is the true minimum, ties by smaller column index). Selecting a
    column sets ``x[j] = 1``, covers its rows and decrements the counts of every column of
    each newly covered row. Zero-cost columns have ratio 0 and so come first.
    Returns ``(size, uncovered)``; the cover is complete when ``uncovered == 0``.
    """
    work = 0
    while uncovered > 0 and size > 0 and work < max_work:
        j = ids[0]
        c = count[j]
        work += 1
        if c == 0:  # drop the root
            size = heap_pop_root(keys, ids, size)
            continue
        ratio = costs[j] / c
        if ratio > keys[0]:
            keys[0] = ratio
            heap_sift_down(keys, ids, size, 0)
            continue
        x[j] = 1
        size = heap_pop_root(keys, ids, size)
        for p in range(col_ptr[j], col_ptr[j + 1]):
            i = col_idx[p]
            if covered[i] == 0:
                covered[i] = 1
                uncovered -= 1
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    count[row_idx[q]] -= 1
                work += row_ptr[i + 1] - row_ptr[i]
        work += col_ptr[j + 1] - col_ptr[j]
    return size, uncovered


@njit(cache=True)
def chvatal_greedy_kernel(
    costs: np.ndarray, row_ptr: np.ndarray, row_idx: np.ndarray, col_ptr: np.ndarray, col_idx: np.ndarray, x: np.ndarray
) -> int:
    """Complete the partial cover ``x`` (n,) int8 in place with Chvátal's greedy, in one call.

    Returns the number of rows left uncovered (0 unless some row has no column).
    """
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    covered = np.empty(m, np.int8)
    count = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    ids = np.empty(n, np.int64)
    size, uncovered = chvatal_start(costs, row_ptr, row_idx, col_ptr, col_idx, x, covered, count, keys, ids)
    size, uncovered = chvatal_run(
        costs, row_ptr, row_idx, col_ptr, col_idx, x, covered, count, keys, ids, size, uncovered, np.iinfo(np.int64).max
    )
    return uncovered


# --------------------------------------------------------------------------- redundancy removal


@njit(cache=True)
def remove_redundant_kernel(col_ptr: np.ndarray, col_idx: np.ndarray, n_rows: int, x: np.ndarray, order: np.ndarray) -> int:
    """Drop redundant columns of the cover ``x`` (n,) int8 in place, in the given ``order``.

    ``order`` lists candidate columns (int64); a selected column is dropped when each of its
    rows is covered at least twice. One pass leaves no redundant column: a kept column has a
    row covered once, and later drops only lower cover counts. Returns the number dropped.
    """
    cover = np.zeros(n_rows, np.int64)
    n = col_ptr.size - 1
    for j in range(n):
        if x[j]:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                cover[col_idx[p]] += 1
    dropped = 0
    for k in range(order.size):
        j = order[k]
        if x[j] == 0:
            continue
        redundant = True
        for p in range(col_ptr[j], col_ptr[j + 1]):
            if cover[col_idx[p]] < 2:
                redundant = False
                break
        if redundant:
            x[j] = 0
            dropped += 1
            for p in range(col_ptr[j], col_ptr[j + 1]):
                cover[col_idx[p]] -= 1
    return dropped


# --------------------------------------------------------------------------- Python entry points


def chvatal_greedy(
    costs: np.ndarray,
    csr: sp.csr_array | sp.csr_matrix,
    csc: sp.csc_array | sp.csc_matrix | None = None,
    *,
    start: np.ndarray | None = None,
    stop: Callable[[], bool] | None = None,
    work_per_check: int = 20_000_000,
) -> np.ndarray | None:
    """Chvátal's greedy cover of the (m x n) 0/1 matrix ``csr`` with ``costs`` (n,).

    Picks the column of least ``cost / (number of still uncovered rows it covers)`` until
    every row is covered, completing ``start`` (n,) 0/1 if given. ``csc`` is the same matrix
    column-wise (computed if omitted). ``stop`` is polled every ``work_per_check`` elementary
    steps; when it returns True the greedy gives up and returns None.
    Returns the selection (n,) int8. Raises :class:`InputError` if some row has no column.
    """
    csr = sp.csr_array(csr)
    csc = csr.tocsc() if csc is None else sp.csc_array(csc)
    m, n = csr.shape
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    x = np.zeros(n, np.int8) if start is None else np.array(start, dtype=np.int8, copy=True)
    covered = np.empty(m, np.int8)
    count = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    ids = np.empty(n, np.int64)
    size, uncovered = chvatal_start(costs, row_ptr, row_idx, col_ptr, col_idx, x, covered, count, keys, ids)
    budget = np.iinfo(np.int64).max if stop is None else int(work_per_check)
    while uncovered > 0 and size > 0:
        if stop is not None and stop():
            return None
        size, uncovered = chvatal_run(
            costs, row_ptr, row_idx, col_ptr, col_idx, x, covered, count, keys, ids, size, uncovered, budget
        )
    if uncovered > 0:
        raise InputError(f"set cover is infeasible: {uncovered} rows are covered by no column")
    return x


def remove_redundant(costs: np.ndarray, csc: sp.csc_array | sp.csc_matrix, x: np.ndarray) -> np.ndarray:
    """A copy of the cover ``x`` (n,) without redundant columns, most expensive dropped first.

    ``csc`` is the (m x n) matrix column-wise; ties in cost are taken by smaller index.
    The result is a minimal cover: no selected column can be dropped.
    """
    csc = sp.csc_array(csc)
    col_ptr, col_idx = index_arrays(csc)
    x = np.array(x, dtype=np.int8, copy=True)
    selected = np.flatnonzero(x)
    order = selected[np.argsort(-np.asarray(costs, dtype=np.float64)[selected], kind="stable")].astype(np.int64)
    remove_redundant_kernel(col_ptr, col_idx, csc.shape[0], x, order)
    return x


def greedy_set_cover(
    costs: np.ndarray,
    csr: sp.csr_array | sp.csr_matrix,
    csc: sp.csc_array | sp.csc_matrix | None = None,
    *,
    stop: Callable[[], bool] | None = None,
) -> np.ndarray | None:
    """:func:`chvatal_greedy` followed by :func:`remove_redundant`; None if ``stop`` fired."""
    csc = sp.csr_array(csr).tocsc() if csc is None else csc
    x = chvatal_greedy(costs, csr, csc, stop=stop)
    return None if x is None else remove_redundant(costs, csc, x)
