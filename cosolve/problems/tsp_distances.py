"""TSPLIB95 edge weights: one scalar distance per supported EDGE_WEIGHT_TYPE (numba), the rows
of the distance matrix built from it, and the length of a tour.

The kernels see a TSP's cities as ``points`` (float64, C-contiguous), read according to the
metric code:

- ``EUC_2D``, ``CEIL_2D``, ``ATT``: (n, 2) plane coordinates;
- ``GEO``: (n, 2) latitude and longitude in radians (from TSPLIB's ``DDD.MM`` degrees and
  minutes by :func:`geo_radians`);
- ``EXPLICIT``: the (n, n) weight matrix itself.

Distances are the integers TSPLIB95 defines (as float64): ``nint(x) = floor(x + 0.5)``;
EUC_2D ``nint(dist)``; CEIL_2D ``ceil(dist)``; ATT the pseudo-Euclidean ``r = sqrt(dist^2 / 10)``,
``t = nint(r)``, ``t + 1`` if ``t < r`` else ``t``; GEO the great-circle distance on the idealised
sphere of radius 6378.388 km, truncated after adding 1. As in TSPLIB's reference code (and the
published optima), GEO converts ``DDD.MM`` by truncating to whole degrees.
"""

from __future__ import annotations

import math

import numpy as np

from cosolve.core.numba_compile import njit

EUC_2D, CEIL_2D, ATT, GEO, EXPLICIT = 0, 1, 2, 3, 4
#: EDGE_WEIGHT_TYPE name -> metric code.
METRICS = {"EUC_2D": EUC_2D, "CEIL_2D": CEIL_2D, "ATT": ATT, "GEO": GEO, "EXPLICIT": EXPLICIT}
#: Metrics monotone in the plane's Euclidean distance (a k-d tree finds their nearest cities).
PLANAR = frozenset({EUC_2D, CEIL_2D, ATT})

_GEO_PI = 3.141592  # TSPLIB95's value
_GEO_RADIUS = 6378.388


def geo_radians(coords: np.ndarray) -> np.ndarray:
    """TSPLIB GEO coordinates (n, 2), ``DDD.MM`` (degrees and minutes), to radians (n, 2)."""
    degrees = np.trunc(coords)
    return _GEO_PI * (degrees + 5.0 * (coords - degrees) / 3.0) / 180.0


@njit("float64(float64[:, ::1], int64, int64, int64)", cache=True)
def distance(points: np.ndarray, metric: int, a: int, b: int) -> float:
    """TSPLIB distance between cities ``a`` and ``b`` (see the module docstring for ``points``)."""
    if metric == EXPLICIT:
        return points[a, b]
    if a == b:
        return 0.0
    if metric == GEO:
        q1 = math.cos(points[a, 1] - points[b, 1])
        q2 = math.cos(points[a, 0] - points[b, 0])
        q3 = math.cos(points[a, 0] + points[b, 0])
        c = min(1.0, max(-1.0, 0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)))
        return math.floor(_GEO_RADIUS * math.acos(c) + 1.0)
    dx = points[a, 0] - points[b, 0]
    dy = points[a, 1] - points[b, 1]
    if metric == ATT:
        r = math.sqrt((dx * dx + dy * dy) / 10.0)
        t = math.floor(r + 0.5)
        return t + 1.0 if t < r else t
    d = math.sqrt(dx * dx + dy * dy)
    if metric == CEIL_2D:
        return math.ceil(d)
    return math.floor(d + 0.5)


@njit(cache=True)
def distance_rows_kernel(points: np.ndarray, metric: int, n: int, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of the (n, n) distance matrix, (stop - start, n) float64."""
    out = np.empty((stop - start, n))
    for i in range(start, stop):
        for j in range(n):
            out[i - start, j] = distance(points, metric, i, j)
    return out


@njit(cache=True)
def tour_length_kernel(points: np.ndarray, metric: int, tour: np.ndarray) -> float:
    """Length of the closed tour (n,)."""
    n = tour.size
    total = 0.0
    for k in range(n):
        total += distance(points, metric, tour[k], tour[(k + 1) % n])
    return total


def tour_length(points: np.ndarray, tour: np.ndarray, *, metric: int = EUC_2D) -> float:
    """Length of the closed ``tour`` (n,) over ``points`` under ``metric``."""
    points = np.ascontiguousarray(points, dtype=np.float64)
    return float(tour_length_kernel(points, metric, np.asarray(tour, dtype=np.int64)))
