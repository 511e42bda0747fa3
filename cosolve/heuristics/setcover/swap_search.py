"""A cheap local search for set cover: 1-1 swaps and redundancy removal until neither improves.

A *swap* replaces a selected column ``j`` by one unselected column ``k`` with ``c_k < c_j`` that
covers every row only ``j`` covers; a column that covers no row alone is dropped. Arrays follow
:mod:`cosolve.heuristics.setcover.greedy_cover`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def swap_pass_kernel(
    costs: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    x: np.ndarray,
    cover: np.ndarray,
    order: np.ndarray,
    allowed: np.ndarray,
) -> float:
    """One pass over the selected columns in ``order``: drop each redundant one, else swap it for
    the cheapest cheaper column (``allowed[k]`` true) that covers all the rows it covers alone.
    ``cover`` (m,) int64 holds each row's number of selected columns and is kept up to date.
    Returns the total cost saved by the pass."""
    m = row_ptr.size - 1
    mark = np.zeros(m, np.int64)
    stamp = 0
    saved = 0.0
    for t in range(order.size):
        j = order[t]
        if x[j] == 0:
            continue
        stamp += 1
        alone = 0
        pivot = -1
        for p in range(col_ptr[j], col_ptr[j + 1]):
            i = col_idx[p]
            if cover[i] == 1:
                mark[i] = stamp
                alone += 1
                if pivot < 0 or row_ptr[i + 1] - row_ptr[i] < row_ptr[pivot + 1] - row_ptr[pivot]:
                    pivot = i
        best, best_cost = -1, costs[j]
        if alone > 0:
            for q in range(row_ptr[pivot], row_ptr[pivot + 1]):
                k = row_idx[q]
                if x[k] or not allowed[k] or costs[k] >= best_cost:
                    continue
                hits = 0
                for p in range(col_ptr[k], col_ptr[k + 1]):
                    if mark[col_idx[p]] == stamp:
                        hits += 1
                if hits == alone:
                    best, best_cost = k, costs[k]
            if best < 0:
                continue
        x[j] = 0
        for p in range(col_ptr[j], col_ptr[j + 1]):
            cover[col_idx[p]] -= 1
        saved += costs[j]
        if best >= 0:
            x[best] = 1
            for p in range(col_ptr[best], col_ptr[best + 1]):
                cover[col_idx[p]] += 1
            saved -= costs[best]
    return saved


def swap_local_search(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    x: np.ndarray,
    *,
    allowed: np.ndarray | None = None,
    max_passes: int = 50,
) -> np.ndarray:
    """A copy of the cover ``x`` (n,) improved by passes of :func:`swap_pass_kernel` (most
    expensive columns first) until a pass saves nothing. ``allowed`` (n,) bool limits the
    columns that may enter (e.g. those not fixed out by reduced costs). The result is a cover
    that costs no more than ``x`` and has no redundant column."""
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    x = np.array(x, dtype=np.int8, copy=True)
    cover = np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
    allowed = np.ones(costs.size, np.bool_) if allowed is None else np.ascontiguousarray(allowed, dtype=np.bool_)
    for _ in range(max_passes):
        selected = np.flatnonzero(x)
        order = selected[np.argsort(-costs[selected], kind="stable")].astype(np.int64)
        if swap_pass_kernel(costs, row_ptr, row_idx, col_ptr, col_idx, x, cover, order, allowed) <= 0:
            break
    return x
