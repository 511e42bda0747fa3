"""Maximum independent set: the iterated local search of Andrade, Resende & Werneck (2012, "Fast local search for the maximum
independent set problem"): (1,2)-swaps (remove one solution vertex, insert two of its 1-tight
neighbours) to a local optimum, perturbation by forcing k vertices in (k = 1, rarely more; the
oldest of four random outsiders), acceptance of a smaller set with probability 1 / (1 + delta *
delta_best); rejected moves are undone from a log (numba).

MaxClique runs it on the complement graph (a clique is an independent set there).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.graphs.local_search import GraphLocalSearch
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.numba_random import seed_numba_random
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def _toggle(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, push):
    """Toggle v in the solution (``count[0]``: the solution's size; ``tight[w]``: w's solution
    neighbours, ``owner[w]``: the sum of their ids, so w's one solution neighbour when w is
    1-tight); log it; with ``push``, queue the solution vertices that may now have a (1,2)-swap
    (the solution neighbour of each vertex that becomes 1-tight).
    Returns (nlog, stack pointer)."""
    if in_s[v]:
        in_s[v] = 0
        count[0] -= 1
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            tight[w] -= 1
            owner[w] -= v
            if push and tight[w] == 1 and not in_s[w]:
                y = owner[w]
                if not instack[y]:
                    instack[y] = 1
                    stack[sp_] = y
                    sp_ += 1
    else:
        in_s[v] = 1
        count[0] += 1
        for p in range(indptr[v], indptr[v + 1]):
            tight[indices[p]] += 1
            owner[indices[p]] += v
        if push and not instack[v]:
            instack[v] = 1
            stack[sp_] = v
            sp_ += 1
    age[v] = it
    if nlog < log.size:
        log[nlog] = v
    return nlog + 1, sp_


@njit(cache=True)
def _fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack):
    """Insert the free vertices (outside, no solution neighbour) among ``cands[:m]``, in random order."""
    np.random.shuffle(cands[:m])
    for i in range(m):
        v = cands[i]
        if not in_s[v] and tight[v] == 0:
            nlog, sp_ = _toggle(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
    return nlog, sp_


@njit(cache=True)
def _descend(indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, ones, mark, cands):
    """(1,2)-swaps from the queued solution vertices until none applies. Returns (nlog, gained)."""
    gained = 0
    while sp_ > 0:
        sp_ -= 1
        x = stack[sp_]
        instack[x] = 0
        if not in_s[x]:
            continue
        k = 0
        for p in range(indptr[x], indptr[x + 1]):
            u = indices[p]
            if not in_s[u] and tight[u] == 1:
                ones[k] = u
                k += 1
        if k < 2:
            continue
        a = -1
        b = -1
        for i in range(k - 1):
            u = ones[i]
            for p in range(indptr[u], indptr[u + 1]):
                mark[indices[p]] = 1
            for j in range(i + 1, k):
                if not mark[ones[j]]:
                    a, b = u, ones[j]
                    break
            for p in range(indptr[u], indptr[u + 1]):
                mark[indices[p]] = 0
            if a >= 0:
                break
        if a < 0:
            continue
        nlog, sp_ = _toggle(x, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _toggle(a, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _toggle(b, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        m = 0
        for p in range(indptr[x], indptr[x + 1]):
            cands[m] = indices[p]
            m += 1
        before = nlog
        nlog, sp_ = _fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack)
        gained += 1 + (nlog - before)
    return nlog, gained


@njit(cache=True)
def independent_set_start(indptr, indices, in_s, tight, owner, count, age, best, state, log, stack, instack, ones, mark, cands):
    """Make ``in_s`` maximal and (1,2)-swap optimal; set tightness, the best set and ``state``
    (size, best size, iteration)."""
    n = indptr.size - 1
    tight[:] = 0
    owner[:] = 0
    count[0] = in_s.sum()
    for v in range(n):
        if in_s[v]:
            for p in range(indptr[v], indptr[v + 1]):
                tight[indices[p]] += 1
                owner[indices[p]] += v
    for v in range(n):
        cands[v] = v
    nlog, sp_ = _fill(cands, n, indptr, indices, in_s, tight, owner, count, age, 0, log, 0, stack, 0, instack)
    for v in range(n):
        if in_s[v] and not instack[v]:
            instack[v] = 1
            stack[sp_] = v
            sp_ += 1
    _descend(indptr, indices, in_s, tight, owner, count, age, 0, log, nlog, stack, sp_, instack, ones, mark, cands)
    state[0] = count[0]
    state[1] = state[0]
    copy_into(best, in_s)


@njit(cache=True)
def independent_set_ils(
    indptr, indices, in_s, tight, owner, count, age, best, state, log, stack, instack, ones, mark, cands, iterations
):  # fmt: skip
    """``iterations`` ILS iterations (perturb, descend, accept or undo); returns True if the best
    set grew."""
    n = indptr.size - 1
    improved = False
    for _ in range(iterations):
        size, it = state[0], state[2] + 1
        state[2] = it
        if size >= n:
            break
        k = 1
        if np.random.random() < 1.0 / (2.0 * max(size, 1)):
            k = 2
            while np.random.random() < 0.5 and k < n:
                k += 1
        nlog, sp_ = 0, 0
        m = 0
        v = -1
        for _j in range(k):
            if v < 0:  # the oldest of four random outsiders
                for _t in range(4):
                    u = np.random.randint(n)
                    tries = 0
                    while in_s[u] and tries < 8:
                        u = np.random.randint(n)
                        tries += 1
                    if not in_s[u] and (v < 0 or age[u] < age[v]):
                        v = u
                if v < 0:
                    break
            else:  # a vertex two steps from the previous one
                if indptr[v + 1] == indptr[v]:
                    break
                y = indices[np.random.randint(indptr[v], indptr[v + 1])]
                if indptr[y + 1] == indptr[y]:
                    break
                z = indices[np.random.randint(indptr[y], indptr[y + 1])]
                if in_s[z]:
                    break
                v = z
            for p in range(indptr[v], indptr[v + 1]):  # force v in: its solution neighbours leave
                y = indices[p]
                if in_s[y]:
                    nlog, sp_ = _toggle(
                        y, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True
                    )
                    for q in range(indptr[y], indptr[y + 1]):
                        if m < cands.size:
                            cands[m] = indices[q]
                            m += 1
            nlog, sp_ = _toggle(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack)
        nlog, _g = _descend(
            indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, ones, mark, cands
        )
        new = count[0]
        if new > state[1]:
            state[1] = new
            copy_into(best, in_s)
            improved = True
        accept = True
        if new < size and nlog <= log.size:
            delta, delta_best = size - new, state[1] - new
            accept = np.random.random() < 1.0 / (1.0 + delta * delta_best)
        if accept:
            state[0] = new
        else:
            for i in range(nlog - 1, -1, -1):
                _toggle(log[i], indptr, indices, in_s, tight, owner, count, age, it, log, log.size + 1, stack, 0, instack, False)
            state[0] = size
    return improved


class IndependentSetSearch(GraphLocalSearch):
    """ARW iterated local search on the graph with symmetric 0/1 ``adjacency`` (n x n)."""

    def __init__(self, adjacency: sp.csr_array, start: np.ndarray, seed: int) -> None:
        a = sp.csr_array(adjacency)
        self.indptr, self.indices = index_arrays(a)
        n = a.shape[0]
        self.in_s = np.array(start, dtype=np.int8, copy=True)
        self.tight = np.zeros(n, np.int64)
        self.owner = np.zeros(n, np.int64)
        self.count = np.zeros(1, np.int64)
        self.age = np.zeros(n, np.int64)
        self.state = np.zeros(3, np.int64)
        self.log = np.zeros(4 * n + 64, np.int64)
        self.stack = np.zeros(n + 1, np.int64)
        self.instack = np.zeros(n, np.int8)
        self.ones = np.zeros(n + 1, np.int64)
        self.mark = np.zeros(n, np.int8)
        self.cands = np.zeros(max(n, int(np.diff(a.indptr).max(initial=0)) ** 2 + 1), np.int64)
        super().__init__(np.zeros(n, np.int8))
        seed_numba_random(seed)
        self._arrays = (self.indptr, self.indices, self.in_s, self.tight, self.owner, self.count, self.age, self.best, self.state)
        self._scratch = (self.log, self.stack, self.instack, self.ones, self.mark, self.cands)
        independent_set_start(*self._arrays, *self._scratch)

    def run(self, iterations: int) -> bool:
        return bool(independent_set_ils(*self._arrays, *self._scratch, int(iterations)))
