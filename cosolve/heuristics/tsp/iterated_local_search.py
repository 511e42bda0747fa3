"""TSP local search on candidate lists: 2-opt and Or-opt with don't-look bits, and an iterated
local search (ILS) that kicks the tour with local double bridges.

The tour is an array ``tour`` (n,) int64 with its inverse ``pos`` (n,) (``pos[tour[k]] == k``);
distances are TSPLIB's, computed on the fly from ``points`` and a ``metric`` code as in
:mod:`cosolve.heuristics.tsp.tour_construction`; ``neighbors`` (n, K) int64 holds each city's candidates by increasing
distance (:func:`cosolve.heuristics.tsp.tour_construction.candidate_lists`). Active cities wait in a circular FIFO
``queue`` (n,) with flags ``queued`` (n,) int8 (the "don't-look bits": a city leaves the queue when
no move from it improves the tour, and comes back when a move changes one of its tour edges).

Moves from an active city ``a`` (Bentley 1992; Johnson & McGeoch 1997, "The TSP: a case study"):

- **2-opt**: for each tour edge (a, b) and candidate c of a with d(a, c) < d(a, b), replace (a, b)
  and the matching edge (c, d) by (a, c) and (b, d), reversing the shorter side of the tour.
- **Or-opt**: a segment of 1-3 cities that starts or ends at ``a`` is cut out (its neighbours p and
  q joined) and put back, either way round, between two adjacent cities u, v next to one of its
  candidates (a candidate c of a segment end e counts while d(e, c) is below the gain of cutting the
  segment out).

Every improving move is applied at once (first improvement). The kernels do bounded work per call
(``max_moves``, ``kicks``) so the Python drivers can poll a deadline between calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from cosolve.core.numba_compile import njit
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.problems.tsp_distances import distance, tour_length_kernel

#: longest segment that Or-opt moves
OR_OPT_SEGMENT = 3
#: longest of the two segments a double bridge swaps (positions; at most half the tour). Probe, 2 s and
#: 4 s of kicks from greedy-edge tours, two seeds: 50 left fl417 at 2.21% and pr1002 at 0.7-0.8%;
#: 200-400 reached 0-0.8% and 0.18-0.5%; 1,000 (any length) was worse at 1 s on 1,000-2,000 cities
KICK_SEGMENT = 400
#: tours shorter than this get no kicks (a double bridge needs room)
MIN_KICK_CITIES = 8


@njit(cache=True)
def _reverse_path(tour: np.ndarray, pos: np.ndarray, i: int, j: int) -> None:
    """Reverse the cyclic path tour[i..j] (positions, going forward), or its complement when
    shorter; both give the same cycle. Keeps ``pos`` (city -> position) in step."""
    n = tour.size
    length = (j - i) % n + 1
    if 2 * length > n:
        i, j = (j + 1) % n, (i - 1) % n
        length = n - length
    for _ in range(length // 2):
        ci, cj = tour[i], tour[j]
        tour[i], tour[j] = cj, ci
        pos[cj], pos[ci] = i, j
        i += 1
        if i == n:
            i = 0
        j -= 1
        if j < 0:
            j = n - 1


@njit(cache=True)
def _push(city: int, queue: np.ndarray, queued: np.ndarray, head: int, count: int) -> int:
    """Append ``city`` to the FIFO unless it is queued; returns the new count."""
    if queued[city] == 0:
        queued[city] = 1
        queue[(head + count) % queue.size] = city
        count += 1
    return count


@njit(cache=True)
def _move_segment(tour: np.ndarray, pos: np.ndarray, first: int, length: int, u: int, reverse: bool) -> None:
    """Move the segment of ``length`` cities starting at ``first`` (in tour order) between ``u`` and
    its successor ``v`` (neither in the segment): ``u first .. last v``, or ``u last .. first v`` when
    ``reverse``. Shifts the cities on the shorter side of the tour between the two places."""
    n = tour.size
    i = pos[first]
    s0 = tour[i]
    s1 = tour[(i + 1) % n] if length > 1 else -1
    s2 = tour[(i + 2) % n] if length > 2 else -1
    if reverse:
        if length == 2:
            s0, s1 = s1, s0
        elif length == 3:
            s0, s2 = s2, s0
    forward = (pos[u] - (i + length - 1)) % n  # cities from the segment's successor to u
    backward = n - length - forward  # cities from v to the segment's predecessor
    if forward <= backward:
        src = (i + length) % n
        dst = i
        for _ in range(forward):
            c = tour[src]
            tour[dst] = c
            pos[c] = dst
            src = src + 1 if src + 1 < n else 0
            dst = dst + 1 if dst + 1 < n else 0
        start = dst
    else:
        src = (i - 1) % n
        dst = (i + length - 1) % n
        for _ in range(backward):
            c = tour[src]
            tour[dst] = c
            pos[c] = dst
            src = src - 1 if src > 0 else n - 1
            dst = dst - 1 if dst > 0 else n - 1
        start = (dst - length + 1) % n
    tour[start] = s0
    pos[s0] = start
    if length > 1:
        k = (start + 1) % n
        tour[k] = s1
        pos[s1] = k
    if length > 2:
        k = (start + 2) % n
        tour[k] = s2
        pos[s2] = k


@njit(cache=True)
def _try_two_opt(
    points: np.ndarray, metric: int, tour: np.ndarray, pos: np.ndarray, neighbors: np.ndarray, a: int
) -> tuple[float, int, int, int]:
    """The first improving 2-opt move from ``a``, applied; returns ``(delta, b, c, d)`` (its other
    endpoints), or ``(0, -1, -1, -1)`` when there is none."""
    n = tour.size
    for direction in range(2):
        pa = pos[a]
        b = tour[(pa + 1) % n] if direction == 0 else tour[(pa - 1) % n]
        d_ab = distance(points, metric, a, b)
        for t in range(neighbors.shape[1]):
            c = neighbors[a, t]
            d_ac = distance(points, metric, a, c)
            if d_ac >= d_ab:
                break
            pc = pos[c]
            d = tour[(pc + 1) % n] if direction == 0 else tour[(pc - 1) % n]
            if c == b or d == a:
                continue
            delta = d_ac + distance(points, metric, b, d) - d_ab - distance(points, metric, c, d)
            if delta < 0.0:
                if direction == 0:  # ... a b ... c d ...  ->  reverse b..c
                    _reverse_path(tour, pos, pos[b], pc)
                else:  # ... d c ... b a ...  ->  reverse c..b
                    _reverse_path(tour, pos, pc, pos[b])
                return delta, b, c, d
    return 0.0, -1, -1, -1


@njit(cache=True)
def _try_or_opt(
    points: np.ndarray, metric: int, tour: np.ndarray, pos: np.ndarray, neighbors: np.ndarray, a: int
) -> tuple[float, int, int, int, int, int, int]:
    """The first improving Or-opt move of a segment that starts or ends at ``a``, applied; returns
    ``(delta, p, q, first, last, u, v)`` (the cities whose tour edges changed), or a zero delta and
    -1s when there is none."""
    n = tour.size
    for length in range(1, OR_OPT_SEGMENT + 1):
        if length + 3 > n:
            break
        for side in range(2):
            if length == 1 and side == 1:
                continue  # a one-city segment starts and ends at a
            i = pos[a] if side == 0 else (pos[a] - length + 1) % n
            first = tour[i]
            last = tour[(i + length - 1) % n]
            p = tour[(i - 1) % n]
            q = tour[(i + length) % n]
            gain = distance(points, metric, p, first) + distance(points, metric, last, q) - distance(points, metric, p, q)
            if gain <= 0.0:
                continue
            for end in range(1 if length == 1 else 2):  # a one-city segment has one end
                e = first if end == 0 else last
                other = last if end == 0 else first
                for t in range(neighbors.shape[1]):
                    c = neighbors[e, t]
                    d_ec = distance(points, metric, e, c)
                    if d_ec >= gain:
                        break
                    if (pos[c] - i) % n < length:
                        continue  # c is in the segment
                    for place in range(2):
                        if place == 0:  # u = c, v = succ(c): u e .. other v
                            u = c
                            v = tour[(pos[c] + 1) % n]
                            if u == p:
                                continue
                            added = d_ec + distance(points, metric, other, v)
                            reverse = e == last
                        else:  # u = pred(c), v = c: u other .. e v
                            u = tour[(pos[c] - 1) % n]
                            v = c
                            if v == q:
                                continue
                            added = distance(points, metric, u, other) + d_ec
                            reverse = e == first
                        delta = added - distance(points, metric, u, v) - gain
                        if delta < 0.0:
                            if length == 1:
                                reverse = False
                            _move_segment(tour, pos, first, length, u, reverse)
                            return delta, p, q, first, last, u, v
    return 0.0, -1, -1, -1, -1, -1, -1


@njit(cache=True)
def local_search_kernel(
    points: np.ndarray,
    metric: int,
    tour: np.ndarray,
    pos: np.ndarray,
    neighbors: np.ndarray,
    queue: np.ndarray,
    queued: np.ndarray,
    head: int,
    count: int,
    max_moves: int,
    or_opt: bool,
) -> tuple[int, int, int, float]:
    """2-opt (and, with ``or_opt``, Or-opt) moves from the queued cities until the queue is empty
    (a local optimum for these moves) or after ``max_moves``. Returns ``(head, count, moves,
    delta)``, ``delta`` the change of the tour length (negative)."""
    moves = 0
    total = 0.0
    while count > 0 and moves < max_moves:
        a = queue[head]
        head = (head + 1) % queue.size
        count -= 1
        queued[a] = 0
        while moves < max_moves:
            delta, b, c, d = _try_two_opt(points, metric, tour, pos, neighbors, a)
            if delta < 0.0:
                for e in (a, b, c, d):
                    count = _push(e, queue, queued, head, count)
            elif or_opt:
                delta, p, q, first, last, u, v = _try_or_opt(points, metric, tour, pos, neighbors, a)
                if delta < 0.0:
                    for e in (p, q, first, last, u, v):
                        count = _push(e, queue, queued, head, count)
            if delta >= 0.0:
                break
            moves += 1
            total += delta
    return head, count, moves, total


@njit(cache=True)
def _double_bridge(
    points: np.ndarray, metric: int, tour: np.ndarray, pos: np.ndarray, scratch: np.ndarray
) -> tuple[float, int, int, int]:
    """Swap two adjacent random segments ``x A B y`` -> ``x B A y`` of at most :data:`KICK_SEGMENT`
    cities each (a double bridge confined to a stretch of the tour); returns ``(delta, i, la, lb)``:
    ``i`` the position of x, ``la`` and ``lb`` the segments' lengths."""
    n = tour.size
    longest = min(KICK_SEGMENT, (n - 2) // 2)
    la = 1 + np.random.randint(longest)
    lb = 1 + np.random.randint(longest)
    i = np.random.randint(n)
    x = tour[i]
    a0 = tour[(i + 1) % n]
    a1 = tour[(i + la) % n]
    b0 = tour[(i + la + 1) % n]
    b1 = tour[(i + la + lb) % n]
    y = tour[(i + la + lb + 1) % n]
    delta = (
        distance(points, metric, x, b0) + distance(points, metric, b1, a0) + distance(points, metric, a1, y)
        - distance(points, metric, x, a0) - distance(points, metric, a1, b0) - distance(points, metric, b1, y)
    )  # fmt: skip
    for k in range(la):
        scratch[k] = tour[(i + 1 + k) % n]
    for k in range(lb):
        c = tour[(i + la + 1 + k) % n]
        j = (i + 1 + k) % n
        tour[j] = c
        pos[c] = j
    for k in range(la):
        c = scratch[k]
        j = (i + lb + 1 + k) % n
        tour[j] = c
        pos[c] = j
    return delta, i, la, lb


@njit(cache=True)
def ils_kernel(
    points: np.ndarray,
    metric: int,
    tour: np.ndarray,
    pos: np.ndarray,
    best: np.ndarray,
    neighbors: np.ndarray,
    queue: np.ndarray,
    queued: np.ndarray,
    scratch: np.ndarray,
    length: float,
    kicks: int,
    or_opt: bool,
) -> tuple[float, int]:
    """``kicks`` rounds of: a local double bridge on ``tour`` (a local optimum equal to ``best``, of
    ``length``), then the local search from the six cities it touched; the result is kept (copied
    to ``best``) when it is no longer, else ``tour`` and ``pos`` go back to ``best``. Uses numba's
    random state (seed it first). Returns ``(length, improvements)``."""
    n = tour.size
    improvements = 0
    for _ in range(kicks):
        delta, i, la, lb = _double_bridge(points, metric, tour, pos, scratch)
        count = 0
        for k in (0, 1, lb, lb + 1, la + lb, la + lb + 1):  # the ends of the three new edges
            count = _push(tour[(i + k) % n], queue, queued, 0, count)
        _, count, _, ls_delta = local_search_kernel(
            points, metric, tour, pos, neighbors, queue, queued, 0, count, 1 << 40, or_opt
        )
        new = length + delta + ls_delta
        if new <= length:
            if new < length:
                improvements += 1
            length = new
            copy_into(best, tour)
        else:
            copy_into(tour, best)
            for k in range(n):
                pos[tour[k]] = k
    return length, improvements


# --------------------------------------------------------------------------- Python entry points


class TourSearch:
    """The local search and ILS state of one tour: ``search.tour`` (n,) is a copy of the start,
    improved in place; ``search.length`` its length (float, exact for TSPLIB's integer metrics).

    ``points``, ``metric`` and ``neighbors`` as in the module doc; ``or_opt=False`` leaves 2-opt alone.
    """

    def __init__(self, points: np.ndarray, metric: int, neighbors: np.ndarray, tour: np.ndarray, *, or_opt: bool = True) -> None:
        self.points = np.ascontiguousarray(points, dtype=np.float64)
        self.metric = int(metric)
        self.neighbors = np.ascontiguousarray(neighbors, dtype=np.int64)
        self.tour = np.array(tour, dtype=np.int64, copy=True)
        n = self.tour.size
        self.pos = np.empty(n, np.int64)
        self.pos[self.tour] = np.arange(n)
        self.or_opt = bool(or_opt)
        self.queue = self.tour.copy()
        self.queued = np.ones(n, np.int8)
        self.head, self.count = 0, n
        self.length = float(tour_length_kernel(self.points, self.metric, self.tour))
        self.kicks = 0
        self.improvements = 0

    @property
    def converged(self) -> bool:
        """True once no queued city is left: the tour is a local optimum for the moves."""
        return self.count == 0

    def descend(
        self,
        stop: Callable[[], bool] | None = None,
        moves_per_check: int = 0,
        on_progress: Callable[[np.ndarray], None] | None = None,
    ) -> bool:
        """Apply improving moves until a local optimum or ``stop()`` (polled every
        ``moves_per_check`` moves, default ``max(10, 5e6 / n)``); ``on_progress(tour)`` after each
        chunk of moves that shortened the tour (the live array). Returns :attr:`converged`."""
        n = self.tour.size
        if n <= 3:  # one tour
            self.count = 0
            return True
        chunk = moves_per_check or max(10, 5_000_000 // n)
        while self.count > 0:
            if stop is not None and stop():
                return False
            self.head, self.count, _, delta = local_search_kernel(
                self.points, self.metric, self.tour, self.pos, self.neighbors, self.queue, self.queued,
                self.head, self.count, chunk, self.or_opt,
            )  # fmt: skip
            self.length += delta
            if delta < 0.0 and on_progress is not None:
                on_progress(self.tour)
        return True

    def iterate(self, kicks: int) -> int:
        """``kicks`` ILS rounds from the local optimum (call :meth:`descend` first; seed numba's
        random state, e.g. :func:`cosolve.heuristics.numba_random.seed_numba_random`). Returns the
        number of rounds that shortened the tour."""
        if not self.converged:
            raise RuntimeError("descend to a local optimum before iterating")
        if self.tour.size < MIN_KICK_CITIES or kicks <= 0:
            return 0
        best = self.tour.copy()
        scratch = np.empty(KICK_SEGMENT + 1, np.int64)
        self.length, improved = ils_kernel(
            self.points, self.metric, self.tour, self.pos, best, self.neighbors, self.queue, self.queued, scratch,
            self.length, int(kicks), self.or_opt,
        )  # fmt: skip
        self.kicks += kicks
        self.improvements += improved
        return improved


#: seconds one chunk of ILS rounds aims at between two polls of the deadline
CHUNK_SECONDS = 0.02


def iterated_local_search(
    search: TourSearch,
    *,
    stop: Callable[[], bool],
    offer: Callable[[np.ndarray, float], None],
    kicks: int = 0,
) -> bool:
    """Descend, then run ILS rounds (:meth:`TourSearch.iterate`) until ``stop()`` or, with
    ``kicks`` > 0, after that many; ``offer(tour, length)`` sees the local optimum and each chunk's
    improvement. Chunks of rounds are sized from the measured time of a round to take about
    :data:`CHUNK_SECONDS`. Returns True when it ended by itself (``kicks`` done), not by ``stop``."""
    if not search.descend(stop):
        offer(search.tour, search.length)
        return False
    offer(search.tour, search.length)
    if search.tour.size < MIN_KICK_CITIES:
        return True
    done, chunk = 0, 16
    while kicks <= 0 or done < kicks:
        if stop():
            return False
        size = chunk if kicks <= 0 else min(chunk, kicks - done)
        started = time.perf_counter()
        if search.iterate(size):
            offer(search.tour, search.length)
        seconds = time.perf_counter() - started
        done += size
        chunk = int(min(max(size * CHUNK_SECONDS / max(seconds, 1e-6), 1.0), 4.0 * size, 1e9))
    return True
