"""Minimum dominating set: swap search with row weights and configuration checking (as in CC2FS, Wang et al. 2017): when the
set dominates, record it and drop the vertex whose loss is smallest; otherwise swap: drop a low-loss
vertex (best of 50 sampled), add the vertex of highest weighted gain in the closed neighbourhood of
a random undominated vertex, and raise the weights of the undominated vertices (numba)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.graphs.greedy_constructions import closed_neighborhoods
from cosolve.heuristics.graphs.local_search import GraphLocalSearch
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.numba_random import seed_numba_random
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def _toggle(v, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate):
    """Add or drop v (closed neighbourhoods ``indptr, indices``), keeping the undominated list,
    the member list and configuration checking up to date."""
    if in_d[v]:
        in_d[v] = 0
        last = dlist[istate[2] - 1]
        dlist[dpos[v]] = last
        dpos[last] = dpos[v]
        istate[2] -= 1
        for p in range(indptr[v], indptr[v + 1]):
            y = indices[p]
            covered[y] -= 1
            if covered[y] == 0:
                upos[y] = istate[1]
                undom[istate[1]] = y
                istate[1] += 1
            conf[y] = 1
        conf[v] = 0
    else:
        in_d[v] = 1
        dpos[v] = istate[2]
        dlist[istate[2]] = v
        istate[2] += 1
        for p in range(indptr[v], indptr[v + 1]):
            y = indices[p]
            covered[y] += 1
            if covered[y] == 1:
                last = undom[istate[1] - 1]
                undom[upos[y]] = last
                upos[last] = upos[y]
                istate[1] -= 1
            conf[y] = 1
    age[v] = it


@njit(cache=True)
def _loss(v, indptr, indices, covered, weight):
    s = 0
    for p in range(indptr[v], indptr[v + 1]):
        if covered[indices[p]] == 1:
            s += weight[indices[p]]
    return s


@njit(cache=True)
def dominating_set_start(indptr, indices, in_d, covered, weight, conf, age, undom, upos, dlist, dpos, best, istate):
    """State of the dominating set ``in_d`` (it must dominate); ``istate`` = (iteration,
    undominated count, set size, best size, last added)."""
    n = indptr.size - 1
    start = in_d.copy()
    in_d[:] = 0
    covered[:] = 0
    weight[:] = 1
    conf[:] = 1
    istate[1] = n
    for v in range(n):
        undom[v] = v
        upos[v] = v
    istate[2] = 0
    for v in range(n):
        if start[v]:
            _toggle(v, indptr, indices, in_d, covered, conf, age, 0, undom, upos, dlist, dpos, istate)
    istate[3] = istate[2]
    istate[4] = -1
    copy_into(best, in_d)


@njit(cache=True)
def dominating_set_swaps(indptr, indices, in_d, covered, weight, conf, age, undom, upos, dlist, dpos, best, istate, iterations):
    """``iterations`` drop or swap moves; returns True if a smaller dominating set was found."""
    improved = False
    for _ in range(iterations):
        it = istate[0] + 1
        istate[0] = it
        if istate[1] == 0:
            if istate[2] < istate[3]:
                istate[3] = istate[2]
                copy_into(best, in_d)
                improved = True
            if istate[2] <= 1:
                break
            u, lu = -1, 0
            for i in range(istate[2]):
                v = dlist[i]
                lv = _loss(v, indptr, indices, covered, weight)
                if u < 0 or lv < lu or (lv == lu and age[v] < age[u]):
                    u, lu = v, lv
            _toggle(u, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
            continue
        u, lu = -1, 0
        samples = min(50, istate[2])
        for _s in range(samples):
            v = dlist[np.random.randint(istate[2])] if samples < istate[2] else dlist[_s]
            if v == istate[4] and istate[2] > 1:
                continue
            lv = _loss(v, indptr, indices, covered, weight)
            if u < 0 or lv < lu or (lv == lu and age[v] < age[u]):
                u, lu = v, lv
        if u >= 0:
            _toggle(u, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
        x = undom[np.random.randint(istate[1])]
        a, ga, a_any, g_any = -1, 0, -1, 0
        for p in range(indptr[x], indptr[x + 1]):
            v = indices[p]
            gv = 0
            for q in range(indptr[v], indptr[v + 1]):
                if covered[indices[q]] == 0:
                    gv += weight[indices[q]]
            if a_any < 0 or gv > g_any or (gv == g_any and age[v] < age[a_any]):
                a_any, g_any = v, gv
            if v != u and conf[v] and (a < 0 or gv > ga or (gv == ga and age[v] < age[a])):
                a, ga = v, gv
        if a < 0:
            a = a_any
        _toggle(a, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
        istate[4] = a
        for i in range(istate[1]):
            weight[undom[i]] += 1
    return improved


class DominatingSetSearch(GraphLocalSearch):
    """Swap search on the graph with symmetric 0/1 ``adjacency``; ``start`` must dominate."""

    def __init__(self, adjacency: sp.csr_array, start: np.ndarray, seed: int) -> None:
        closed = closed_neighborhoods(adjacency)
        self.indptr, self.indices = index_arrays(closed)
        n = closed.shape[0]
        self.in_d = np.array(start, dtype=np.int8, copy=True)
        self.covered = np.zeros(n, np.int64)
        self.weight = np.ones(n, np.int64)
        self.conf = np.ones(n, np.int8)
        self.age = np.zeros(n, np.int64)
        self.undom, self.upos = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.dlist, self.dpos = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.istate = np.zeros(5, np.int64)
        super().__init__(np.zeros(n, np.int8))
        seed_numba_random(seed)
        self._arrays = (
            self.indptr, self.indices, self.in_d, self.covered, self.weight, self.conf, self.age, self.undom, self.upos,
            self.dlist, self.dpos, self.best, self.istate,
        )  # fmt: skip
        dominating_set_start(*self._arrays)
        if self.istate[1]:
            raise ValueError("the start of a dominating set search must dominate every node")

    def run(self, iterations: int) -> bool:
        return bool(dominating_set_swaps(*self._arrays, int(iterations)))
