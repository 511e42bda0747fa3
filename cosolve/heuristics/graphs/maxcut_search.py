"""Maximum cut: 1-flip tabu search: the best non-tabu flip, from an indexed max-heap of gains (a flipped node moves
to a second heap for ``tenure`` moves, whose top is taken instead when it beats the best cut),
restarted from the best cut with random flips after ``patience`` moves without a new best; the
tenure is drawn anew at each restart (short tenures suit dense graphs, long ones sparse toroidal
grids) (numba)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.graphs.local_search import GraphLocalSearch
from cosolve.heuristics.heap import heap_build, heap_fix, heap_push, heap_remove
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.numba_random import seed_numba_random
from cosolve.heuristics.sparse_index import index_arrays


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
