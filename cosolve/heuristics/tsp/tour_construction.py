"""TSP heuristics: nearest neighbour and greedy edge tours, and 2-opt.

Distances are TSPLIB's, computed on the fly by
:func:`cosolve.problems.tsp_distances.distance` from ``points`` and a ``metric`` code (for
EUC_2D, the default, ``points`` are the (n, 2) coordinates; a :class:`~cosolve.problems.TSP`
gives its own as ``problem.points, problem.metric_code``): the same values as
:attr:`cosolve.problems.TSP.distances`, without the n x n matrix for coordinate metrics.
Tours are (n,) int64 permutations of 0..n-1 (a closed cycle). Because the distances are
integers, a 2-opt move improves exactly when its delta is negative.

The ``*_kernel`` functions are numba ``@njit`` and do bounded amounts of work per call, so
the Python drivers can poll a deadline between calls.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from cosolve.core.numba_compile import njit
from cosolve.problems.tsp_distances import EUC_2D, PLANAR, distance, distance_rows_kernel

NEIGHBOR_LIST_MIN_CITIES = 1000  # from this size on, nearest neighbour and 2-opt use candidate lists first
NEIGHBORS = 10  # candidates per city


# --------------------------------------------------------------------------- nearest neighbour


@njit(cache=True)
def nearest_neighbor_kernel(
    points: np.ndarray, metric: int, tour: np.ndarray, visited: np.ndarray, k: int, steps: int, neighbors: np.ndarray
) -> int:
    """Extend the partial tour ``tour[:k]`` (``visited`` (n,) int8 marks its cities) by up to
    ``steps`` nearest-neighbour steps; returns the new length ``k``.

    The next city is the nearest unvisited one (ties: smaller index), found by a full scan;
    if ``neighbors`` (n, K) int64 is not empty, the first unvisited city of the current
    city's candidate list is taken instead when there is one.
    """
    n = tour.size
    end = min(n, k + steps)
    use_lists = neighbors.shape[0] == n and neighbors.shape[1] > 0
    while k < end:
        cur = tour[k - 1]
        best = -1
        if use_lists:
            for t in range(neighbors.shape[1]):
                c = neighbors[cur, t]
                if visited[c] == 0:
                    best = c
                    break
        if best < 0:
            best_d = np.inf
            for c in range(n):
                if visited[c] == 0:
                    d = distance(points, metric, cur, c)
                    if d < best_d:
                        best_d = d
                        best = c
        tour[k] = best
        visited[best] = 1
        k += 1
    return k


@njit(cache=True)
def _root(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def edge_greedy_kernel(points: np.ndarray, metric: int, edges: np.ndarray, order: np.ndarray) -> np.ndarray:
    """A tour (n,) from the edges (m, 2) taken in ``order``: an edge joins two path fragments when
    both ends have degree < 2 and it closes no cycle; then, from one fragment's end, the fragments
    are chained, each to the nearest free end of another (a full scan of the free ends)."""
    n = points.shape[0]
    adj = np.full((n, 2), -1, np.int64)
    degree = np.zeros(n, np.int64)
    parent = np.arange(n)
    joined = 0
    for k in order:
        u, v = edges[k, 0], edges[k, 1]
        if u == v or degree[u] >= 2 or degree[v] >= 2:
            continue
        ru, rv = _root(parent, u), _root(parent, v)
        if ru == rv:
            continue
        parent[ru] = rv
        adj[u, degree[u]] = v
        degree[u] += 1
        adj[v, degree[v]] = u
        degree[v] += 1
        joined += 1
        if joined == n - 1:
            break
    ends = np.flatnonzero(degree < 2)
    placed = np.zeros(n, np.bool_)
    tour = np.empty(n, np.int64)
    k = 0
    x = ends[0]
    while True:
        prev = -1
        while True:
            tour[k] = x
            placed[x] = True
            k += 1
            nxt = adj[x, 0] if adj[x, 0] != prev else adj[x, 1]
            if nxt < 0:
                break
            prev, x = x, nxt
        if k == n:
            return tour
        best, best_d = -1, np.inf
        for e in ends:
            if not placed[e]:
                d = distance(points, metric, x, e)
                if d < best_d:
                    best, best_d = e, d
        x = best


@njit(cache=True)
def pair_distances_kernel(points: np.ndarray, metric: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(m,) float64: the distance between cities ``a[k]`` and ``b[k]`` (both (m,) int64)."""
    out = np.empty(a.size)
    for k in range(a.size):
        out[k] = distance(points, metric, a[k], b[k])
    return out


# --------------------------------------------------------------------------- 2-opt


@njit(cache=True)
def two_opt_sweep_kernel(points: np.ndarray, metric: int, tour: np.ndarray, i_start: int, i_stop: int) -> int:
    """First-improvement 2-opt over the first edges ``i_start <= i < i_stop`` of ``tour``.

    For edge (t[i], t[i+1]) and every later non-adjacent edge (t[j], t[j+1]), a move with
    ``d(t_i, t_j) + d(t_i+1, t_j+1) < d(t_i, t_i+1) + d(t_j, t_j+1)`` is applied at once
    (reversing ``t[i+1..j]``) and the scan goes on. Returns the number of moves; a full
    sweep (all i) with no move means the tour is 2-opt optimal.
    """
    n = tour.size
    moves = 0
    for i in range(i_start, min(i_stop, n - 2)):
        a = tour[i]
        b = tour[i + 1]
        d_ab = distance(points, metric, a, b)
        j_end = n if i > 0 else n - 1  # for i == 0 the last edge (t[n-1], t[0]) touches a
        for j in range(i + 2, j_end):
            c = tour[j]
            d = tour[(j + 1) % n]
            delta = distance(points, metric, a, c) + distance(points, metric, b, d) - d_ab - distance(points, metric, c, d)
            if delta < 0.0:
                lo, hi = i + 1, j
                while lo < hi:
                    tour[lo], tour[hi] = tour[hi], tour[lo]
                    lo += 1
                    hi -= 1
                moves += 1
                b = tour[i + 1]
                d_ab = distance(points, metric, a, b)
    return moves


# --------------------------------------------------------------------------- Python entry points


def candidate_lists(points: np.ndarray, k: int = NEIGHBORS, *, metric: int = EUC_2D) -> np.ndarray:
    """(n, min(k, n-1)) int64: each city's nearest other cities by increasing distance.

    Coordinate metrics that grow with the Euclidean distance use a k-d tree; the others scan
    the distance matrix a block of rows at a time.
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    n = len(points)
    k = min(k, n - 1)
    if metric in PLANAR:
        from scipy.spatial import cKDTree

        _, idx = cKDTree(points).query(points, k=k + 1)
        idx = idx.astype(np.int64)
    else:
        idx = np.empty((n, k + 1), np.int64)
        block = max(1, 2_000_000 // n)
        for start in range(0, n, block):
            rows = distance_rows_kernel(points, metric, n, start, min(n, start + block))
            rows[np.arange(len(rows)), np.arange(start, start + len(rows))] = -1.0  # the city itself first
            near = np.argpartition(rows, k, axis=1)[:, : k + 1]
            order = np.argsort(np.take_along_axis(rows, near, axis=1), axis=1, kind="stable")
            idx[start : start + len(rows)] = np.take_along_axis(near, order, axis=1)
    out = idx[:, 1:].copy()
    for r in np.flatnonzero(idx[:, 0] != np.arange(n)):  # duplicate points: the city itself may come later
        out[r] = idx[r][idx[r] != r][:k]
    return out


def greedy_edge_tour(
    points: np.ndarray, neighbors: np.ndarray, *, metric: int = EUC_2D, scores: np.ndarray | None = None
) -> np.ndarray:
    """The greedy edge tour (n,) over the candidate edges (i, ``neighbors[i, t]``): shortest edge
    first, or, with ``scores`` (n, K) (one per candidate edge), highest score first (ties: shorter);
    fragments left over are chained nearest end first (:func:`edge_greedy_kernel`)."""
    points = np.ascontiguousarray(points, dtype=np.float64)
    neighbors = np.asarray(neighbors, dtype=np.int64)
    n, k = neighbors.shape
    if n < 3:
        return np.arange(n, dtype=np.int64)
    edges = np.stack([np.repeat(np.arange(n), k), neighbors.ravel()], axis=1)
    lengths = pair_distances_kernel(points, metric, edges[:, 0].copy(), edges[:, 1].copy())
    order = np.argsort(lengths, kind="stable") if scores is None else np.lexsort((lengths, -np.asarray(scores).ravel()))
    return edge_greedy_kernel(points, metric, edges, order.astype(np.int64))


def nearest_neighbor_tour(
    points: np.ndarray,
    *,
    metric: int = EUC_2D,
    start: int = 0,
    neighbors: np.ndarray | None = None,
    stop: Callable[[], bool] | None = None,
    work_per_check: int = 20_000_000,
) -> np.ndarray | None:
    """Nearest neighbour tour (n,) int64 from ``start``; None if ``stop`` fired first.

    With ``neighbors`` (from :func:`candidate_lists`) the candidates are tried before a
    full scan, which makes it fast on large instances (then ties may differ from the scan).
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    n = len(points)
    tour = np.empty(n, np.int64)
    visited = np.zeros(n, np.int8)
    tour[0] = start
    visited[start] = 1
    lists = np.empty((0, 0), np.int64) if neighbors is None else np.ascontiguousarray(neighbors, dtype=np.int64)
    steps = n if stop is None else max(1, work_per_check // n)
    k = 1
    while k < n:
        if stop is not None and stop():
            return None
        k = nearest_neighbor_kernel(points, metric, tour, visited, k, steps, lists)
    return tour


def two_opt(
    points: np.ndarray,
    tour: np.ndarray,
    *,
    metric: int = EUC_2D,
    neighbors: np.ndarray | None = None,
    stop: Callable[[], bool] | None = None,
    on_progress: Callable[[np.ndarray], None] | None = None,
    work_per_check: int = 5_000_000,
) -> tuple[np.ndarray, bool]:
    """Improve ``tour`` (n,) with 2-opt until no move improves it or ``stop`` fires.

    With ``neighbors`` (n, K), a candidate-list 2-opt runs first (fast on large instances);
    then full first-improvement sweeps over all pairs of edges run until one sweep finds no
    move, which makes the result 2-opt optimal. Work runs in chunks of about
    ``work_per_check`` pair evaluations; between chunks ``stop`` is polled and, after a chunk
    that changed the tour, ``on_progress`` is called with it (the live array: copy it to keep
    it; throttle in the callback).
    Returns ``(tour, converged)``; converged is False if ``stop`` ended it early.
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    tour = np.array(tour, dtype=np.int64, copy=True)
    n = len(tour)
    if neighbors is not None and n > 3:
        from cosolve.heuristics.tsp.iterated_local_search import TourSearch

        search = TourSearch(points, metric, neighbors, tour, or_opt=False)
        moves_per_call = max(10, work_per_check // n)  # a move reverses up to n/2 cities
        if not search.descend(stop, moves_per_call, on_progress):
            return search.tour, False
        tour = search.tour
    rows = max(1, work_per_check // max(n, 1))
    while True:
        sweep_moves = 0
        for i in range(0, n - 2, rows):
            if stop is not None and stop():
                return tour, False
            moves = two_opt_sweep_kernel(points, metric, tour, i, i + rows)
            sweep_moves += moves
            if moves and on_progress is not None:
                on_progress(tour)
        if sweep_moves == 0:
            return tour, True


@functools.cache  # once per process
def warm_candidate_list_path() -> None:
    """Compile (or load from numba's cache) the kernels that only instances of at least
    :data:`NEIGHBOR_LIST_MIN_CITIES` cities reach (candidate lists, the candidate-list 2-opt), on
    30 random cities: a warm-up solve of the ten-city tiny instance never takes that path."""
    points = np.random.default_rng(0).random((30, 2)) * 100.0
    neighbors = candidate_lists(points, metric=EUC_2D)
    tour = nearest_neighbor_tour(points, metric=EUC_2D, start=0, neighbors=neighbors)
    two_opt(points, tour, metric=EUC_2D, neighbors=neighbors)
