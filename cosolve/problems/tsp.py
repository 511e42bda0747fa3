"""Symmetric TSP on points in the plane with TSPLIB EUC_2D distances.

A solution is a permutation of the cities 0..n-1 (int64, length ``n``): the visiting order of
a closed tour. Its objective is the tour length with ``d(i, j) = nint(||p_i - p_j||)``.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

import numpy as np

from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.base import Evaluation, ExactModel, Problem
from cosolve.problems.registry import Generator, ProblemKind, register_generator, register_kind


def euc2d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TSPLIB EUC_2D distance between point arrays of shape (..., 2): ``floor(dist + 0.5)``."""
    return np.floor(np.sqrt(((a - b) ** 2).sum(axis=-1)) + 0.5)


class TSP(Problem):
    """``coords``: (n, 2) float city coordinates, n >= 3."""

    kind: ClassVar[str] = "tsp"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(self, coords: np.ndarray, *, name: str = "") -> None:
        coords = np.asarray(coords, dtype=np.float64)
        if coords.ndim != 2 or coords.shape[1] != 2:
            raise InputError(f"tsp: coordinates must have shape (n, 2), got {coords.shape}")
        if len(coords) < 3:
            raise InputError(f"tsp: a tour needs at least 3 cities, got {len(coords)}")
        if not np.all(np.isfinite(coords)):
            raise InputError("tsp: coordinates must be finite")
        self.coords = coords
        self.name = name

    @property
    def n(self) -> int:
        return len(self.coords)

    @cached_property
    def distances(self) -> np.ndarray:
        """(n, n) EUC_2D distance matrix (float64, integral values)."""
        return self.distance_rows(0, self.n)

    def distance_rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of the EUC_2D distance matrix, (stop - start, n) float64."""
        from scipy.spatial.distance import cdist

        return np.floor(cdist(self.coords[start:stop], self.coords) + 0.5)

    def tour_length(self, tour: np.ndarray) -> float:
        p = self.coords[tour]
        return float(euc2d(p, np.roll(p, -1, axis=0)).sum())

    def sizes(self) -> dict[str, int]:
        return {"cities": self.n}

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        tour = np.asarray(solution)
        if tour.shape != (self.n,) or not np.issubdtype(tour.dtype, np.integer):
            raise InputError(f"tsp solution must be an integer permutation of length {self.n}, got shape {tour.shape}")
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


def draw_tour(problem: TSP, tour: np.ndarray, title: str = ""):  # -> matplotlib.figure.Figure
    """A picture of ``tour``: the closed path over the cities."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 6))
    tour = np.asarray(tour)
    xy = problem.coords[np.append(tour, tour[0])]
    ax.plot(xy[:, 0], xy[:, 1], "-", lw=1, color="tab:blue")
    ax.plot(problem.coords[:, 0], problem.coords[:, 1], "o", ms=3, color="black")
    ax.set_aspect("equal")
    ax.set_title(title or f"{problem.name}: tour length {problem.tour_length(tour):g}")
    return fig


register_kind(
    ProblemKind(
        "tsp",
        "travelling salesman (EUC_2D)",
        formats=("tsplib",),
        tiny=lambda: TSP(np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0], [1.0, 2.0]]), name="warm-up"),
        exact=frozenset({"scip", "cpsat"}),
        default_method="ortools-routing",
        default_why="bench/results/tsp/report.md: the best tour on random-500 at 10 s and 60 s (0.15% and 0% gap) where scip "
        "and cpsat find none or poor ones; 0.40% on TSPLIB at 10 s (scip 0.15%, but it scales worst)",
        plot=draw_tour,
    )
)
register_generator(Generator("random_tsp", "cosolve.generators.tsp:random_tsp", ("tsp",), "uniform cities in a square: n, scale"))
