"""NuMVC (Cai, Su, Luo & Sattar 2013, "NuMVC: an efficient local search algorithm for minimum
vertex cover", JAIR 46) on the complement of an independent set (numba).

An independent set S is the complement of a vertex cover C = V \\ S, so a smaller cover is a larger
set. The search keeps a cover of the target size k: when C covers every edge it records C and
removes the vertex of highest ``dscore``; otherwise it makes the two-stage exchange of the paper:

1. remove the vertex u of C with the highest ``dscore`` (ties: the oldest), not the vertex added
   last (as in the authors' code), and set ``confChange(u) = 0``, ``confChange(z) = 1`` for z in N(u);
2. pick an uncovered edge at random, add its endpoint v with ``confChange(v) = 1`` and the higher
   ``dscore`` (ties: the older), set ``confChange(z) = 1`` for z in N(v);
3. add 1 to the weight of every uncovered edge; when the mean edge weight reaches ``gamma``
   (0.5 |V|), forget: ``w(e) = floor(rho * w(e))`` (rho = 0.3) and recompute every ``dscore``.

``dscore(v)`` is the change in the total weight of uncovered edges when v changes side (negative or
zero for v in C, positive or zero outside). Edges are numbered by the upper triangle of the
adjacency; ``edge_of[p]`` is the edge of the p-th CSR entry.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.graphs.local_search import GraphLocalSearch
from cosolve.heuristics.numba_random import seed_numba_random

#: mean edge weight (per node) at which the weights are scaled down, and the scale (the paper's values)
GAMMA_PER_NODE = 0.5
RHO = 0.3

# state: [cover size, best cover size, step, total edge weight, vertex added last (-1: none), uncovered count]
_SIZE, _BEST, _STEP, _TOTAL, _TABU, _UNCOVERED = range(6)


@njit(cache=True)
def _toggle(v, indptr, indices, edge_of, in_c, dscore, w, uncov, upos, clist, cpos, state):
    """Move v across the cover, keeping ``dscore``, the uncovered edges and the list of C exact."""
    dscore[v] = -dscore[v]
    if in_c[v]:
        in_c[v] = 0
        state[_SIZE] -= 1
        last = clist[state[_SIZE]]  # the last entry of C's list moves into v's slot
        clist[cpos[v]] = last
        cpos[last] = cpos[v]
        for p in range(indptr[v], indptr[v + 1]):
            u, e = indices[p], edge_of[p]
            if in_c[u]:  # now covered by u alone
                dscore[u] -= w[e]
            else:  # now uncovered
                dscore[u] += w[e]
                upos[e] = state[_UNCOVERED]
                uncov[state[_UNCOVERED]] = e
                state[_UNCOVERED] += 1
    else:
        in_c[v] = 1
        cpos[v] = state[_SIZE]
        clist[state[_SIZE]] = v
        state[_SIZE] += 1
        for p in range(indptr[v], indptr[v + 1]):
            u, e = indices[p], edge_of[p]
            if in_c[u]:  # was covered by u alone
                dscore[u] += w[e]
            else:  # was uncovered
                dscore[u] -= w[e]
                state[_UNCOVERED] -= 1
                last = uncov[state[_UNCOVERED]]
                uncov[upos[e]] = last
                upos[last] = upos[e]


@njit(cache=True)
def _scores(indptr, indices, edge_of, in_c, dscore, w, state):
    """Recompute every ``dscore`` and the total weight from scratch."""
    n = indptr.size - 1
    dscore[:] = 0
    for v in range(n):
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            if in_c[v] and not in_c[u]:
                dscore[v] -= w[edge_of[p]]
            elif not in_c[v] and not in_c[u]:
                dscore[v] += w[edge_of[p]]
    state[_TOTAL] = w.sum()


@njit(cache=True)
def vertex_cover_start(indptr, indices, edge_of, ends, in_c, dscore, w, uncov, upos, clist, cpos, best, state):
    """Index the cover ``in_c`` (must cover every edge): C's list, scores, weights 1; ``best``
    (the independent set V \\ C) and ``state``."""
    n = indptr.size - 1
    w[:] = 1
    state[_SIZE] = 0
    for v in range(n):
        if in_c[v]:
            cpos[v] = state[_SIZE]
            clist[state[_SIZE]] = v
            state[_SIZE] += 1
    state[_UNCOVERED] = 0
    for e in range(ends.shape[0]):
        if not in_c[ends[e, 0]] and not in_c[ends[e, 1]]:
            upos[e] = state[_UNCOVERED]
            uncov[state[_UNCOVERED]] = e
            state[_UNCOVERED] += 1
    _scores(indptr, indices, edge_of, in_c, dscore, w, state)
    state[_BEST] = state[_SIZE]
    state[_STEP] = 1
    state[_TABU] = -1
    for v in range(n):
        best[v] = 1 - in_c[v]


@njit(cache=True)
def _highest_in_cover(dscore, stamp, clist, size, skip):
    """The vertex of C (``clist[:size]``) with the highest dscore, ties to the oldest, not ``skip``."""
    b = -1
    for i in range(size):
        v = clist[i]
        if v == skip:
            continue
        if b < 0 or dscore[v] > dscore[b] or (dscore[v] == dscore[b] and stamp[v] < stamp[b]):
            b = v
    return b


@njit(cache=True)
def vertex_cover_search(
    indptr, indices, edge_of, ends, in_c, dscore, w, uncov, upos, clist, cpos, best, state, conf, stamp, gamma, rho, iterations
):  # fmt: skip
    """``iterations`` NuMVC steps; returns True if the best cover shrank (``best``: its complement)."""
    n = indptr.size - 1
    m = ends.shape[0]
    improved = False
    for _ in range(iterations):
        step = state[_STEP]
        state[_STEP] = step + 1
        if state[_UNCOVERED] == 0:
            if state[_SIZE] < state[_BEST]:
                state[_BEST] = state[_SIZE]
                for v in range(n):
                    best[v] = 1 - in_c[v]
                improved = True
            if state[_SIZE] == 0:
                break
            u = _highest_in_cover(dscore, stamp, clist, state[_SIZE], np.int64(-1))  # not a second signature
            _toggle(u, indptr, indices, edge_of, in_c, dscore, w, uncov, upos, clist, cpos, state)
            conf[u] = 0
            stamp[u] = step
            for p in range(indptr[u], indptr[u + 1]):
                conf[indices[p]] = 1
            continue
        u = _highest_in_cover(dscore, stamp, clist, state[_SIZE], state[_TABU])
        if u >= 0:
            _toggle(u, indptr, indices, edge_of, in_c, dscore, w, uncov, upos, clist, cpos, state)
            conf[u] = 0
            stamp[u] = step
            for p in range(indptr[u], indptr[u + 1]):
                conf[indices[p]] = 1
        e = uncov[np.random.randint(state[_UNCOVERED])]
        a, b = ends[e, 0], ends[e, 1]
        take_a = dscore[a] > dscore[b] or (dscore[a] == dscore[b] and stamp[a] < stamp[b])
        if (conf[a] == 0) != (conf[b] == 0):  # configuration checking decides
            take_a = conf[a] != 0
        v = a if take_a else b
        _toggle(v, indptr, indices, edge_of, in_c, dscore, w, uncov, upos, clist, cpos, state)
        stamp[v] = step
        for p in range(indptr[v], indptr[v + 1]):
            conf[indices[p]] = 1
        state[_TABU] = v
        for i in range(state[_UNCOVERED]):
            f = uncov[i]
            w[f] += 1
            dscore[ends[f, 0]] += 1
            dscore[ends[f, 1]] += 1
        state[_TOTAL] += state[_UNCOVERED]
        if state[_TOTAL] >= gamma * m:
            for f in range(m):
                w[f] = int(rho * w[f])
            _scores(indptr, indices, edge_of, in_c, dscore, w, state)
    return improved


def edge_numbering(adjacency: sp.csr_array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``indptr, indices`` of the symmetric pattern of ``adjacency`` (n x n, no self-loops), the
    edge number of each entry, and ``ends`` (m, 2): each edge's endpoints, lower id first."""
    upper = sp.triu(sp.csr_array(adjacency), k=1).tocoo()
    m = upper.nnz
    rows, cols = upper.row.astype(np.int64), upper.col.astype(np.int64)
    ids = np.arange(m, dtype=np.int64)
    n = adjacency.shape[0]
    both = sp.csr_array((np.r_[ids, ids], (np.r_[rows, cols], np.r_[cols, rows])), shape=(n, n))
    both.sort_indices()
    ends = np.stack([rows, cols], axis=1) if m else np.zeros((0, 2), np.int64)
    return (
        np.ascontiguousarray(both.indptr, np.int64),
        np.ascontiguousarray(both.indices, np.int64),
        np.ascontiguousarray(both.data, np.int64),
        np.ascontiguousarray(ends, np.int64),
    )


class VertexCoverSearch(GraphLocalSearch):
    """NuMVC on the graph with symmetric 0/1 ``adjacency`` (n x n), from the independent set
    ``start`` (n,) 0/1; ``best`` is the best independent set found (the complement of the best cover).
    ``state``: cover size, best cover size, step, total edge weight, vertex added last, uncovered edges."""

    def __init__(self, adjacency: sp.csr_array, start: np.ndarray, seed: int) -> None:
        self.indptr, self.indices, self.edge_of, self.ends = edge_numbering(adjacency)
        n, m = adjacency.shape[0], self.ends.shape[0]
        in_c = (1 - np.asarray(start, dtype=np.int8)).astype(np.int8)
        if m and np.any((in_c[self.ends[:, 0]] == 0) & (in_c[self.ends[:, 1]] == 0)):
            raise ValueError("the start of a vertex cover search must be an independent set")
        self.in_c, self.dscore, self.weight = in_c, np.zeros(n, np.int64), np.zeros(m, np.int64)
        self.uncovered, self.uncovered_at = np.zeros(m, np.int64), np.zeros(m, np.int64)
        self.cover, self.cover_at = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.state = np.zeros(6, np.int64)
        arrays = (
            self.indptr, self.indices, self.edge_of, self.ends, in_c, self.dscore, self.weight,
            self.uncovered, self.uncovered_at, self.cover, self.cover_at,
        )  # fmt: skip
        super().__init__(np.zeros(n, np.int8))
        seed_numba_random(seed)
        vertex_cover_start(*arrays, self.best, self.state)
        self._arrays = (*arrays, self.best, self.state, np.ones(n, np.int8), np.zeros(n, np.int64))
        self._parameters = (GAMMA_PER_NODE * n, RHO)

    def run(self, iterations: int) -> bool:
        return bool(vertex_cover_search(*self._arrays, *self._parameters, int(iterations)))
