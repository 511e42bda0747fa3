"""Local searches that polish a feasible graph solution, run in chunks of iterations (numba).

===========  ======================================================================================
mis          iterated local search of Andrade, Resende & Werneck (2012, "Fast local search for the
             maximum independent set problem"): (1,2)-swaps (remove one solution vertex, insert two
             of its 1-tight neighbours) to a local optimum, perturbation by forcing k vertices in
             (k = 1, rarely more; the oldest of four random outsiders), acceptance of a smaller set
             with probability 1 / (1 + delta * delta_best); rejected moves are undone from a log
maxclique    the same search on the complement graph (a clique is an independent set there)
maxcut       1-flip tabu search: the best non-tabu flip, from an indexed max-heap of gains (a flipped
             node moves to a second heap for ``tenure`` moves, whose top is taken instead when it
             beats the best cut), restarted from the best cut with random flips after ``patience``
             moves without a new best; the tenure is drawn anew at each restart (short tenures
             suit dense graphs, long ones sparse toroidal grids)
mds          swap search with row weights and configuration checking (as in CC2FS, Wang et al.
             2017): when the set dominates, record it and drop the vertex whose loss is smallest;
             otherwise swap: drop a low-loss vertex (best of 50 sampled), add the vertex of highest
             weighted gain in the closed neighbourhood of a random undominated vertex, and raise the
             weights of the undominated vertices
===========  ======================================================================================

Every search keeps its whole state in arrays, so :meth:`GraphLocalSearch.run` can be called again
and again (between calls a caller checks its deadline); numba's random generator is seeded once,
so a given seed and number of iterations give the same result however the iterations are chunked.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.heap import heap_build, heap_fix, heap_push, heap_remove
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def seed_numba_random(seed: int) -> None:
    """Seed numba's random generator (one per thread, shared by every jitted function)."""
    np.random.seed(seed)


# --------------------------------------------------------------------------- independent sets (ARW ILS)


@njit(cache=True)
def _is_flip(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, push):
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
def _is_fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack):
    """Insert the free vertices (outside, no solution neighbour) among ``cands[:m]``, in random order."""
    np.random.shuffle(cands[:m])
    for i in range(m):
        v = cands[i]
        if not in_s[v] and tight[v] == 0:
            nlog, sp_ = _is_flip(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
    return nlog, sp_


@njit(cache=True)
def _is_descend(indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, ones, mark, cands):
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
        nlog, sp_ = _is_flip(x, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _is_flip(a, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _is_flip(b, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        m = 0
        for p in range(indptr[x], indptr[x + 1]):
            cands[m] = indices[p]
            m += 1
        before = nlog
        nlog, sp_ = _is_fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack)
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
    nlog, sp_ = _is_fill(cands, n, indptr, indices, in_s, tight, owner, count, age, 0, log, 0, stack, 0, instack)
    for v in range(n):
        if in_s[v] and not instack[v]:
            instack[v] = 1
            stack[sp_] = v
            sp_ += 1
    _is_descend(indptr, indices, in_s, tight, owner, count, age, 0, log, nlog, stack, sp_, instack, ones, mark, cands)
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
                    nlog, sp_ = _is_flip(
                        y, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True
                    )
                    for q in range(indptr[y], indptr[y + 1]):
                        if m < cands.size:
                            cands[m] = indices[q]
                            m += 1
            nlog, sp_ = _is_flip(v, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack, True)
        nlog, sp_ = _is_fill(cands, m, indptr, indices, in_s, tight, owner, count, age, it, log, nlog, stack, sp_, instack)
        nlog, _g = _is_descend(
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
                _is_flip(log[i], indptr, indices, in_s, tight, owner, count, age, it, log, log.size + 1, stack, 0, instack, False)
            state[0] = size
    return improved


# --------------------------------------------------------------------------- maximum cut (tabu search)


@njit(cache=True)
def _cut_gains(indptr, indices, weights, x, gain):
    cut = 0.0
    for v in range(indptr.size - 1):
        g = 0.0
        for p in range(indptr[v], indptr[v + 1]):
            if x[indices[p]] == x[v]:
                g += weights[p]
            else:
                g -= weights[p]
                cut += 0.5 * weights[p]
        gain[v] = g
    return cut


@njit(cache=True)
def _jitter(gain, key, tie):
    """Heap keys: the gains plus a random amount below ``tie`` (smaller than any difference of
    distinct gains), so that ties among the best moves are broken at random."""
    for v in range(gain.size):
        key[v] = gain[v] + tie * np.random.random()


@njit(cache=True)
def cut_tabu_start(indptr, indices, weights, x, gain, key, tie, free, free_pos, held, held_pos, best, fstate, istate, tenures):
    """Gains, heaps and best cut of the sides ``x``; ``fstate`` = (cut, best cut), ``istate`` =
    (iteration, free heap size, held heap size, last improvement, unsaved best, queue head, queue
    length, tenure), the tenure drawn from ``tenures`` = (lo, hi)."""
    n = indptr.size - 1
    cut = _cut_gains(indptr, indices, weights, x, gain)
    _jitter(gain, key, tie)
    istate[1] = heap_build(free, free_pos, key, np.arange(n))
    held_pos[:] = -1
    istate[2] = 0
    fstate[0] = cut
    fstate[1] = cut
    copy_into(best, x)
    istate[3] = istate[0]
    istate[4] = 0
    istate[5] = 0
    istate[6] = 0
    istate[7] = np.random.randint(tenures[0], tenures[1] + 1)


@njit(cache=True)
def cut_tabu(
    indptr, indices, weights, x, gain, key, tie, free, free_pos, held, held_pos, until, queue, queue_at, best, fstate,
    istate, tenures, patience, eps, guide, iterations,
):  # fmt: skip
    """``iterations`` tabu moves; returns True if the best cut grew.

    After ``patience`` moves without a new best the search restarts from the best cut with n/100 to
    n/20 random flips: of nodes drawn uniformly, or, when ``guide`` (n,) is not empty, in proportion
    to weights whose cumulative sums it holds.

    Non-tabu nodes sit in the max-heap ``free``, tabu ones in the max-heap ``held`` (both keyed by
    gain, ties broken at random: ``key``), so the best move and the best aspiration move are both
    heap tops. A flipped node is held
    for ``istate[7]`` moves (the tenure, drawn from ``tenures`` = (lo, hi) at each restart): the ring
    ``queue``/``queue_at`` (room for ``hi + 1``) lists nodes by the move their tenure ends
    (``until[v]``; an entry is stale when v was held again since)."""
    n = indptr.size - 1
    improved = False
    it, nf, nh, last, dirty, head, qlen = istate[0], istate[1], istate[2], istate[3], istate[4], istate[5], istate[6]
    cut, best_cut = fstate[0], fstate[1]
    cap = queue.size
    tenure = istate[7]
    for _ in range(iterations):
        it += 1
        while qlen > 0 and queue_at[head] <= it:  # release the nodes whose tenure ended
            v = queue[head]
            if until[v] == queue_at[head] and held_pos[v] >= 0:
                nh = heap_remove(held, held_pos, key, nh, v)
                nf = heap_push(free, free_pos, key, nf, v)
            head = (head + 1) % cap
            qlen -= 1
        v = free[0] if nf > 0 else -1
        if nh > 0:  # aspiration: a tabu flip that beats the best cut
            u = held[0]
            if cut + gain[u] > best_cut + eps and (v < 0 or gain[u] > gain[v]):
                v = u
        if v < 0:
            break
        g = gain[v]
        if g <= eps and dirty:
            copy_into(best, x)
            dirty = 0
        x[v] = 1 - x[v]
        cut += g
        gain[v] = -g
        key[v] = -g + tie * np.random.random()
        if free_pos[v] >= 0:
            nf = heap_remove(free, free_pos, key, nf, v)
            nh = heap_push(held, held_pos, key, nh, v)
        else:
            heap_fix(held, held_pos, key, nh, v)
        for p in range(indptr[v], indptr[v + 1]):
            u = np.int64(indices[p])  # one heap_fix signature for int32 and int64 indices
            gain[u] += 2.0 * weights[p] if x[u] == x[v] else -2.0 * weights[p]
            key[u] = gain[u] + tie * np.random.random()
            if free_pos[u] >= 0:
                heap_fix(free, free_pos, key, nf, u)
            else:
                heap_fix(held, held_pos, key, nh, u)
        until[v] = it + tenure
        queue[(head + qlen) % cap] = v
        queue_at[(head + qlen) % cap] = it + tenure
        qlen += 1
        if cut > best_cut + eps:
            best_cut = cut
            dirty = 1
            last = it
            improved = True
        elif it - last > patience:  # restart from the best cut, perturbed
            if dirty:
                copy_into(best, x)
                dirty = 0
            copy_into(x, best)
            lo = max(1, n // 100)
            hi = max(lo + 1, n // 20)
            for _f in range(np.random.randint(lo, hi + 1)):
                if guide.size:
                    u = min(n - 1, np.searchsorted(guide, np.random.random() * guide[-1], side="right"))
                else:
                    u = np.random.randint(n)
                x[u] = 1 - x[u]
            cut = _cut_gains(indptr, indices, weights, x, gain)
            _jitter(gain, key, tie)
            nf = heap_build(free, free_pos, key, np.arange(n))
            held_pos[:] = -1
            nh, head, qlen = 0, 0, 0
            last = it
            tenure = np.random.randint(tenures[0], tenures[1] + 1)
    if dirty:
        copy_into(best, x)
        dirty = 0
    istate[0], istate[1], istate[2], istate[3], istate[4], istate[5], istate[6] = it, nf, nh, last, dirty, head, qlen
    istate[7] = tenure
    fstate[0], fstate[1] = cut, best_cut
    return improved


# --------------------------------------------------------------------------- dominating sets (swap search)


@njit(cache=True)
def _ds_toggle(v, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate):
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
def _ds_loss(v, indptr, indices, covered, weight):
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
            _ds_toggle(v, indptr, indices, in_d, covered, conf, age, 0, undom, upos, dlist, dpos, istate)
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
                lv = _ds_loss(v, indptr, indices, covered, weight)
                if u < 0 or lv < lu or (lv == lu and age[v] < age[u]):
                    u, lu = v, lv
            _ds_toggle(u, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
            continue
        u, lu = -1, 0
        samples = min(50, istate[2])
        for _s in range(samples):
            v = dlist[np.random.randint(istate[2])] if samples < istate[2] else dlist[_s]
            if v == istate[4] and istate[2] > 1:
                continue
            lv = _ds_loss(v, indptr, indices, covered, weight)
            if u < 0 or lv < lu or (lv == lu and age[v] < age[u]):
                u, lu = v, lv
        if u >= 0:
            _ds_toggle(u, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
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
        _ds_toggle(a, indptr, indices, in_d, covered, conf, age, it, undom, upos, dlist, dpos, istate)
        istate[4] = a
        for i in range(istate[1]):
            weight[undom[i]] += 1
    return improved


# --------------------------------------------------------------------------- one interface


class GraphLocalSearch:
    """A local search from a feasible solution ``start`` (n,) 0/1 of one graph problem.

    ``run(iterations)`` continues the search and returns whether the best solution improved;
    ``best`` is the best solution so far (n,) int8, feasible for the problem.
    """

    def __init__(self, best: np.ndarray) -> None:
        self.best = best

    def run(self, iterations: int) -> bool:
        raise NotImplementedError


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


class CutTabuSearch(GraphLocalSearch):
    """1-flip tabu search on the symmetric weight matrix ``weighted`` (n x n). ``tenure`` (moves a
    flipped node stays tabu): one number, or (lo, hi) to draw it from at the start and at each
    restart; default (n / 20, n / 5), at least min(10, n / 2). ``patience``: moves without a new
    best before a perturbed restart, default 20 n. ``restart_weights`` (n,) >= 0, not all zero:
    a restart flips nodes drawn in proportion to them (default: uniformly)."""

    def __init__(
        self,
        weighted: sp.csr_array,
        start: np.ndarray,
        seed: int,
        *,
        tenure: int | tuple[int, int] | None = None,
        patience: int | None = None,
        restart_weights: np.ndarray | None = None,
    ) -> None:
        a = sp.csr_array(weighted)
        self.indptr, self.indices = index_arrays(a)
        self.weights = np.ascontiguousarray(a.data, dtype=np.float64)
        n = a.shape[0]
        least = max(1, min(10, n // 2))
        lo, hi = (n // 20, n // 5) if tenure is None else (tenure, tenure) if np.isscalar(tenure) else tenure
        self.tenures = np.array([max(least, int(lo)), max(least, int(lo), int(hi))], np.int64)
        self.patience = int(patience) if patience is not None else 20 * n
        scale = max(1.0, float(np.abs(self.weights).max(initial=0.0)))
        eps, tie = 1e-9 * scale, 1e-6 * scale
        x = np.array(start, dtype=np.int8, copy=True)
        free, free_pos, held, held_pos = (np.zeros(n, np.int64) for _ in range(4))
        queue, queue_at = np.zeros(self.tenures[1] + 1, np.int64), np.zeros(self.tenures[1] + 1, np.int64)
        fstate, istate = np.zeros(2, np.float64), np.zeros(8, np.int64)
        super().__init__(np.zeros(n, np.int8))
        self.gain = np.zeros(n, np.float64)
        seed_numba_random(seed)
        graph = (self.indptr, self.indices, self.weights, x, self.gain, np.zeros(n, np.float64), tie)
        cut_tabu_start(*graph, free, free_pos, held, held_pos, self.best, fstate, istate, self.tenures)
        self._arrays = (*graph, free, free_pos, held, held_pos, np.zeros(n, np.int64), queue, queue_at, self.best, fstate, istate)
        w = np.zeros(0) if restart_weights is None else np.asarray(restart_weights, dtype=np.float64)
        if restart_weights is not None and not (w.size == n and np.all(w >= 0) and w.sum() > 0):
            raise ValueError(f"restart_weights: {n} weights >= 0, not all zero, expected")
        self._parameters = (self.tenures, self.patience, eps, np.cumsum(w))

    def run(self, iterations: int) -> bool:
        return bool(cut_tabu(*self._arrays, *self._parameters, int(iterations)))


class DominatingSetSearch(GraphLocalSearch):
    """Swap search on the graph with symmetric 0/1 ``adjacency``; ``start`` must dominate."""

    def __init__(self, adjacency: sp.csr_array, start: np.ndarray, seed: int) -> None:
        from cosolve.heuristics.graphs.greedy_constructions import closed_neighborhoods

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
