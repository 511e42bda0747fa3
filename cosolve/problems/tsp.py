"""Symmetric TSP with TSPLIB95 distances (EUC_2D, CEIL_2D, ATT, GEO or EXPLICIT weights).

A solution is a permutation of the cities 0..n-1 (int64, length ``n``): the visiting order of
a closed tour. Its objective is the tour length under the instance's metric
(:mod:`cosolve.problems.tsp_distances`; EUC_2D is ``d(i, j) = nint(||p_i - p_j||)``).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, ExactModel, Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind

#: TSPLIB EDGE_WEIGHT_TYPEs a :class:`TSP` can hold.
EDGE_WEIGHT_TYPES = ("EUC_2D", "CEIL_2D", "ATT", "GEO", "EXPLICIT")
_LARGEST_WEIGHT = 2.0**53  # integers beyond this are not exact in float64


class TSP(Problem):
    """A symmetric TSP of n >= 3 cities.

    ``coords``: (n, 2) float city coordinates (for GEO, TSPLIB's latitude and longitude in
    ``DDD.MM``); optional for EXPLICIT, where they only place the cities in pictures.
    ``metric``: the TSPLIB EDGE_WEIGHT_TYPE, one of :data:`EDGE_WEIGHT_TYPES`.
    ``weights``: for EXPLICIT only, the (n, n) symmetric matrix of non-negative integer distances.
    """

    kind: ClassVar[str] = "tsp"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(
        self, coords: np.ndarray | None = None, *, metric: str = "EUC_2D", weights: np.ndarray | None = None, name: str = ""
    ) -> None:
        if metric not in EDGE_WEIGHT_TYPES:
            raise InputError(f"tsp: metric must be one of {', '.join(EDGE_WEIGHT_TYPES)}, got {metric!r}")
        if (metric == "EXPLICIT") != (weights is not None):
            raise InputError("tsp: weights are given exactly when the metric is EXPLICIT")
        if weights is not None:
            weights = _check_weights(weights)
        if coords is None and weights is None:
            raise InputError(f"tsp: metric {metric} needs coordinates")
        if coords is not None:
            coords = np.asarray(coords, dtype=np.float64)
            if coords.ndim != 2 or coords.shape[1] != 2:
                raise InputError(f"tsp: coordinates must have shape (n, 2), got {coords.shape}")
            if not np.all(np.isfinite(coords)):
                raise InputError("tsp: coordinates must be finite")
            if weights is not None and len(coords) != len(weights):
                raise InputError(f"tsp: {len(coords)} coordinates for {len(weights)} cities")
        n = len(weights) if weights is not None else len(coords)  # type: ignore[arg-type]
        if weights is None and metric != "GEO" and n and (spread := _diagonal(coords)) >= _LARGEST_WEIGHT:
            raise InputError(
                f"tsp: the coordinates spread over {spread:.3g}; {metric} distances must stay below 2^53 "
                "to be exact (rescale the coordinates)"
            )
        if n < 3:
            raise InputError(f"tsp: a tour needs at least 3 cities, got {n}")
        self.coords = coords
        self.metric = metric
        self.weights = weights
        self.name = name

    @property
    def n(self) -> int:
        return len(self.weights) if self.weights is not None else len(self.coords)  # type: ignore[arg-type]

    @property
    def metric_code(self) -> int:
        """The metric's code for :func:`cosolve.problems.tsp_distances.distance`."""
        from cosolve.problems.tsp_distances import METRICS

        return METRICS[self.metric]

    @property
    def planar(self) -> bool:
        """True when distances grow with the Euclidean distance of ``coords`` (EUC_2D, CEIL_2D, ATT)."""
        from cosolve.problems.tsp_distances import PLANAR

        return self.metric_code in PLANAR

    @cached_property
    def points(self) -> np.ndarray:
        """The cities as the distance kernels read them: (n, 2) coordinates, (n, 2) GEO radians,
        or the (n, n) EXPLICIT matrix; float64, C-contiguous."""
        from cosolve.problems.tsp_distances import geo_radians

        if self.weights is not None:
            return self.weights
        return np.ascontiguousarray(geo_radians(self.coords) if self.metric == "GEO" else self.coords)

    @cached_property
    def distances(self) -> np.ndarray:
        """(n, n) distance matrix (float64, integral values)."""
        return self.distance_rows(0, self.n)

    def distance_rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of the distance matrix, (stop - start, n) float64."""
        from cosolve.problems.tsp_distances import distance_rows_kernel

        if self.weights is not None:
            return self.weights[start:stop].copy()
        return distance_rows_kernel(self.points, self.metric_code, self.n, start, stop)

    def undrawable(self) -> str | None:
        if self.coords is None:
            return f"tsp: {self.name or 'this instance'} has no coordinates to draw (EXPLICIT weights without display data)"
        return None

    def largest_distance(self) -> float:
        """An upper bound on any distance between two cities (the bounding box's diagonal for
        planar metrics; half the Earth's circumference for GEO; the largest EXPLICIT weight)."""
        if self.weights is not None:
            return float(self.weights.max())
        if self.metric == "GEO":
            return 20_040.0  # TSPLIB's Earth radius 6378.388 km times pi, plus one
        diagonal = _diagonal(self.coords)  # type: ignore[arg-type]
        return math.ceil(diagonal / math.sqrt(10.0)) + 1.0 if self.metric == "ATT" else math.ceil(diagonal) + 1.0

    def tour_length(self, tour: np.ndarray) -> float:
        from cosolve.problems.tsp_distances import tour_length

        return tour_length(self.points, tour, metric=self.metric_code)

    def sizes(self) -> dict[str, int]:
        return {"cities": self.n}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "edge_weights": self.metric}

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        tour = np.asarray(solution)
        if tour.ndim != 1 or not np.issubdtype(tour.dtype, np.integer):
            raise InputError(f"tsp solution must be an integer permutation of length {self.n}, got shape {tour.shape}")
        if tour.size != self.n:
            return Evaluation(np.inf, False, f"the tour has {tour.size} cities; the instance has {self.n}")
        seen = np.bincount(tour[(tour >= 0) & (tour < self.n)], minlength=self.n)
        if (tour < 0).any() or (tour >= self.n).any():
            return Evaluation(np.inf, False, f"tour has a city outside 1..{self.n}")
        if (seen != 1).any():
            missing = int(np.flatnonzero(seen == 0)[0])
            return Evaluation(self.tour_length(tour), False, f"city {missing + 1} is not visited exactly once")
        return Evaluation(self.tour_length(tour), True)

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        """The tour order, one city per line, 1-based as in TSPLIB tour files."""
        return [str(c + 1) for c in np.asarray(solution).tolist()]

    def scip_model(self) -> ExactModel:
        """Symmetric DFJ model with subtour cuts separated lazily (:func:`cosolve.problems.tsp_models.dfj_model`)."""
        from cosolve.problems.tsp_models import dfj_model

        return dfj_model(self)

    def export_model(self) -> ExactModel:
        """The compact Miller–Tucker–Zemlin model, which states the whole problem in rows
        (:func:`cosolve.problems.tsp_models.mtz_model`; much weaker, for model files, not for solving)."""
        from cosolve.problems.tsp_models import mtz_model

        return mtz_model(self)

    def cpsat_model(self) -> ExactModel:
        """Boolean arc literals with ``AddCircuit`` (:func:`cosolve.problems.tsp_models.circuit_model`)."""
        from cosolve.problems.tsp_models import circuit_model

        return circuit_model(self)


def _diagonal(coords: np.ndarray) -> float:
    """The diagonal of the bounding box of ``coords`` (n, 2)."""
    span = coords.max(axis=0) - coords.min(axis=0)
    return float(np.hypot(span[0], span[1]))


def invalid_weights(w: np.ndarray) -> np.ndarray:
    """Where ``w`` (any shape, float) is not an EXPLICIT weight: a non-negative integer below 2^53."""
    return ~np.isfinite(w) | (w < 0) | (w >= _LARGEST_WEIGHT) | (w != np.round(w))


def _check_weights(weights: np.ndarray) -> np.ndarray:
    """An EXPLICIT matrix as float64, C-contiguous, after checking it is square, symmetric, with
    non-negative integer entries below 2^53; raises :class:`InputError` naming the first bad entry."""
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise InputError(f"tsp: weights must be a square matrix, got shape {w.shape}")
    bad = invalid_weights(w)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InputError(f"tsp: weight ({i + 1}, {j + 1}) is {w[i, j]:g}; weights must be non-negative integers below 2^53")
    asym = w != w.T
    if asym.any():
        i, j = np.argwhere(asym)[0]
        raise InputError(
            f"tsp: weights are not symmetric: ({i + 1}, {j + 1}) is {w[i, j]:g} but ({j + 1}, {i + 1}) is {w[j, i]:g}"
            " (asymmetric TSP is not supported)"
        )
    return w


def draw_tour(problem: TSP, tour: np.ndarray, title: str = ""):  # -> matplotlib.figure.Figure
    """A picture of ``tour``: the closed path over the cities."""
    import matplotlib.pyplot as plt

    if (why := problem.undrawable()) is not None:
        raise InputError(why)
    fig, ax = plt.subplots(figsize=(6, 6))
    tour = np.asarray(tour)
    xy = problem.coords[:, ::-1] if problem.metric == "GEO" else problem.coords  # GEO: (latitude, longitude)
    path = xy[np.append(tour, tour[0])]
    ax.plot(path[:, 0], path[:, 1], "-", lw=1, color="tab:blue")
    ax.plot(xy[:, 0], xy[:, 1], "o", ms=3, color="black")
    ax.set_aspect("equal")
    ax.set_title(title or f"{problem.name}: tour length {problem.tour_length(tour):g}")
    return fig


register_kind(
    ProblemKind(
        "tsp",
        "travelling salesman (symmetric, TSPLIB distances)",
        formats=("tsplib",),
        tiny=lambda: TSP(  # ten cities: enough for the local search's kicks (cosolve.heuristics.tsp.iterated_local_search) to run
            np.array([[0, 0], [3, 0], [3, 4], [0, 4], [1, 2], [6, 1], [5, 5], [2, 7], [7, 3], [4, 2]], dtype=float),
            name="warm-up",
        ),
        exact=frozenset({"scip", "cpsat"}),
        default_method="ils",
        default_why="bench/results/tsp-scaling: mean gap 0.08% on 13 TSPLIB instances of 100-1,002 cities and 0.10% "
        "on random TSP-100..1000 at 10 s (0.15% and 0.17% at 1 s; ortools-routing 3.25% and 4.45% at 10 s); "
        "gumbel-sinkhorn, the same search from a Sinkhorn start, is level (0.12%, 0.09%) and starts torch; the "
        "optional lkh extra (non-commercial licence) is at 0.00%",
        plot=draw_tour,
    )
)
