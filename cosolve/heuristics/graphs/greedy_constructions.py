"""Greedy heuristics for the graph problems: MIS, MaxClique, MaxCut, minimum dominating set.

Graphs are undirected and simple, given by their symmetric adjacency in CSR form:
``indptr`` (n+1,) and ``indices`` (2E,) int32 (or int64), the neighbours of node ``v`` being
``indices[indptr[v]:indptr[v+1]]``; MaxCut also takes ``weights`` (2E,) float64 aligned with
``indices``. Solutions are (n,) int8 0/1 vectors. The ``*_kernel`` functions are numba
``@njit`` (callable from jitted code); the plain functions are the Python entry points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.heap import heap_build, heap_fix
from cosolve.heuristics.sparse_index import index_arrays

# --------------------------------------------------------------------------- maximum independent set


@njit(cache=True)
def _take(
    v: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    deg: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
    alive: np.ndarray,
    x: np.ndarray,
    dmin: int,
) -> tuple[int, int]:
    """Put the live node v in the set and delete it and its neighbours from the bucket queue
    (lists ``head``/``nxt``/``prv`` per degree ``deg``); returns (nodes deleted, the new lowest
    degree that may hold a node)."""
    x[v] = 1
    removed = 0
    for k in range(indptr[v], indptr[v + 1] + 1):
        u = v if k == indptr[v + 1] else indices[k]  # the neighbours, then v itself
        if alive[u] == 0:
            continue
        alive[u] = 0
        removed += 1
        if prv[u] != -1:
            nxt[prv[u]] = nxt[u]
        else:
            head[deg[u]] = nxt[u]
        if nxt[u] != -1:
            prv[nxt[u]] = prv[u]
        if u == v:
            continue
        for p in range(indptr[u], indptr[u + 1]):  # u leaves: its live neighbours lose a degree
            w = indices[p]
            if alive[w] == 0 or w == v:
                continue
            d = deg[w]
            if prv[w] != -1:
                nxt[prv[w]] = nxt[w]
            else:
                head[d] = nxt[w]
            if nxt[w] != -1:
                prv[nxt[w]] = prv[w]
            d -= 1
            deg[w] = d
            prv[w] = -1
            nxt[w] = head[d]
            if head[d] != -1:
                prv[head[d]] = w
            head[d] = w
            dmin = min(dmin, d)
    return removed, dmin


@njit(cache=True)
def min_degree_mis_kernel(indptr: np.ndarray, indices: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Min-degree greedy independent set: (n,) int8, after the nodes of ``first`` (int64 node
    indices, taken in that order, each while none of its neighbours is taken; empty: none).

    Repeatedly takes a node of minimum degree in the remaining graph and deletes it and its
    neighbours. Degrees live in a bucket queue (doubly linked list per degree), so the whole
    run is O(n + E). The result is a maximal independent set.
    """
    n = indptr.size - 1
    deg = np.empty(n, np.int64)
    max_deg = 0
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
        max_deg = max(max_deg, deg[v])
    head = np.full(max_deg + 1, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    prv = np.full(n, -1, np.int64)
    for v in range(n - 1, -1, -1):  # so each bucket lists its nodes by increasing index
        d = deg[v]
        nxt[v] = head[d]
        if head[d] != -1:
            prv[head[d]] = v
        head[d] = v
    alive = np.ones(n, np.int8)
    x = np.zeros(n, np.int8)
    remaining = n
    dmin = np.int64(0)  # not the literal 0, which would compile _take a second time
    for v in first:
        if alive[v]:
            removed, dmin = _take(v, indptr, indices, deg, head, nxt, prv, alive, x, dmin)
            remaining -= removed
    while remaining > 0:
        while head[dmin] == -1:
            dmin += 1
        removed, dmin = _take(head[dmin], indptr, indices, deg, head, nxt, prv, alive, x, dmin)
        remaining -= removed
    return x


def min_degree_mis(adjacency: sp.csr_array | sp.csr_matrix, first: np.ndarray | None = None) -> np.ndarray:
    """Maximal independent set (n,) int8 of the graph with symmetric (n x n) ``adjacency``: the
    nodes of ``first`` in order while independent (none: no such nodes), completed by the
    min-degree greedy."""
    indptr, indices = index_arrays(sp.csr_array(adjacency))
    first = np.zeros(0, np.int64) if first is None else np.asarray(first, np.int64)
    return min_degree_mis_kernel(indptr, indices, first)


# --------------------------------------------------------------------------- maximum clique


@njit(cache=True)
def greedy_clique_kernel(indptr: np.ndarray, indices: np.ndarray, start: int) -> np.ndarray:
    """A maximal clique containing ``start``: (k,) int64 node ids, ``start`` first.

    The candidates are the common neighbours of the clique so far (initially N(start)); each
    step adds the candidate with the most neighbours among the candidates (ties: smaller
    index) and keeps only its neighbours. That is the min-degree MIS greedy run on the
    complement graph restricted to the candidates, without building the complement, so it
    suits sparse and dense graphs alike. Cost per step O(sum of candidate degrees).
    """
    n = indptr.size - 1
    lo, hi = indptr[start], indptr[start + 1]
    cand = np.empty(hi - lo, np.int64)
    in_cand = np.zeros(n, np.int8)
    for k in range(hi - lo):
        cand[k] = indices[lo + k]
        in_cand[cand[k]] = 1
    clique = np.empty(hi - lo + 1, np.int64)
    clique[0] = start
    size = 1
    nc = cand.size
    mark = np.zeros(n, np.int8)
    while nc > 0:
        best = -1
        best_d = -1
        for k in range(nc):
            u = cand[k]
            d = 0
            for p in range(indptr[u], indptr[u + 1]):
                d += in_cand[indices[p]]
            if d > best_d or (d == best_d and u < best):
                best = u
                best_d = d
        clique[size] = best
        size += 1
        for p in range(indptr[best], indptr[best + 1]):
            mark[indices[p]] = 1
        kept = 0
        for k in range(nc):
            u = cand[k]
            if mark[u] == 1:
                cand[kept] = u
                kept += 1
            else:
                in_cand[u] = 0
        for p in range(indptr[best], indptr[best + 1]):
            mark[indices[p]] = 0
        nc = kept
    return clique[:size]


def greedy_clique(adjacency: sp.csr_array | sp.csr_matrix, start: int) -> np.ndarray:
    """Node ids (k,) of a maximal clique grown greedily from ``start``; see :func:`greedy_clique_kernel`."""
    indptr, indices = index_arrays(sp.csr_array(adjacency))
    return greedy_clique_kernel(indptr, indices, int(start))


def clique_starts(degrees: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` nodes of highest degree (ties: smaller index), highest first."""
    order = np.argsort(-np.asarray(degrees), kind="stable")
    return order[: max(1, int(count))]


# --------------------------------------------------------------------------- maximum cut


@njit(cache=True)
def maxcut_one_flip_kernel(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, x: np.ndarray, max_moves: int, eps: float
) -> int:
    """Best-improvement 1-flip local search on the sides ``x`` (n,) int8, in place.

    The gain of flipping ``v`` is ``sum(w to v's side) - sum(w to the other side)``; gains
    are computed afresh, kept in an indexed max-heap (ties: smaller node) and re-sifted one
    at a time after each flip. Stops at a local optimum (no gain > ``eps``) or after
    ``max_moves`` flips.
    Returns the number of flips made.
    """
    n = indptr.size - 1
    gain = np.zeros(n, np.float64)
    for v in range(n):
        g = 0.0
        for p in range(indptr[v], indptr[v + 1]):
            g += weights[p] if x[indices[p]] == x[v] else -weights[p]
        gain[v] = g
    heap = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)
    heap_build(heap, pos, gain, np.arange(n))  # not an argsort: that compiles for about 1.5 s
    moves = 0
    while moves < max_moves and n > 0:
        v = heap[0]
        if not gain[v] > eps:
            break
        x[v] = 1 - x[v]
        gain[v] = -gain[v]
        heap_fix(heap, pos, gain, n, v)
        for k in range(indptr[v], indptr[v + 1]):
            u = np.int64(indices[k])  # one heap_fix signature for int32 and int64 indices
            gain[u] += 2.0 * weights[k] if x[u] == x[v] else -2.0 * weights[k]
            heap_fix(heap, pos, gain, n, u)
        moves += 1
    return moves


def weighted_adjacency(n: int, edges: np.ndarray, weights: np.ndarray) -> sp.csr_array:
    """Symmetric (n x n) CSR float64 matrix with ``weights`` (E,) on ``edges`` (E, 2) both ways."""
    u, v = edges[:, 0], edges[:, 1]
    w = np.asarray(weights, dtype=np.float64)
    return sp.csr_array((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(n, n))


def maxcut_local_search(
    weighted: sp.csr_array | sp.csr_matrix,
    x: np.ndarray,
    *,
    stop: Callable[[], bool] | None = None,
    moves_per_check: int = 100_000,
    on_progress: Callable[[np.ndarray], None] | None = None,
) -> tuple[np.ndarray, bool]:
    """Best-improvement 1-flip local search from the sides ``x`` (n,) 0/1.

    ``weighted`` is the symmetric (n x n) weight matrix (:func:`weighted_adjacency`).
    Gains are recomputed exactly at every chunk of ``moves_per_check`` flips, between which
    ``stop`` is polled and ``on_progress`` (if given) sees the current sides.
    Returns ``(sides, converged)``: converged is False if ``stop`` ended the search early.
    """
    a = sp.csr_array(weighted)
    indptr, indices = index_arrays(a)
    weights = np.ascontiguousarray(a.data, dtype=np.float64)
    x = np.array(x, dtype=np.int8, copy=True)
    eps = 1e-9 * max(1.0, float(np.abs(weights).max(initial=0.0)))
    while True:
        if stop is not None and stop():
            return x, False
        moves = maxcut_one_flip_kernel(indptr, indices, weights, x, int(moves_per_check), eps)
        if moves == 0:
            return x, True
        if on_progress is not None:
            on_progress(x)


# --------------------------------------------------------------------------- minimum dominating set


def closed_neighborhoods(adjacency: sp.csr_array | sp.csr_matrix) -> sp.csr_array:
    """``A + I`` as CSR int8: row (and, by symmetry, column) v lists N[v] = {v} | N(v)."""
    a = sp.csr_array(adjacency)
    n = a.shape[0]
    diagonal = np.arange(n)
    closed = sp.csr_array(a.astype(np.int8) + sp.csr_array((np.ones(n, np.int8), (diagonal, diagonal)), shape=(n, n)))
    closed.data[:] = 1
    return closed


def greedy_dominating_set(
    adjacency: sp.csr_array | sp.csr_matrix, *, stop: Callable[[], bool] | None = None
) -> np.ndarray | None:
    """Minimal dominating set (n,) int8: greedy then redundancy removal; None if ``stop`` fired.

    Greedy: repeatedly take the node that dominates the most not yet dominated nodes (ties:
    smaller index), i.e. Chvátal's set cover greedy with unit costs on the closed
    neighbourhoods (a symmetric matrix, so it is its own CSC). Then drop nodes whose closed
    neighbourhood stays dominated without them, so no node can be removed.
    """
    from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant  # the set cover kernels: MDS only

    closed = closed_neighborhoods(adjacency)
    n = closed.shape[0]
    costs = np.ones(n)
    x = chvatal_greedy(costs, closed, closed.T, stop=stop)  # closed.T: the same arrays read as CSC
    return None if x is None else remove_redundant(costs, closed.T, x)
