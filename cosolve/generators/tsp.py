"""Random Euclidean TSP instances (uniform points in a square), deterministic in ``seed``."""

from __future__ import annotations

import numpy as np

from cosolve.errors import InputError
from cosolve.problems.tsp import TSP


def random_tsp(n: int, *, scale: float = 10_000.0, seed: int = 0) -> TSP:
    """``n`` cities uniform in ``[0, scale]^2``, coordinates rounded to integers (TSPLIB style)."""
    if n < 3:
        raise InputError(f"random_tsp needs n >= 3, got {n}")
    coords = np.round(np.random.default_rng(seed).uniform(0.0, scale, (n, 2)))
    return TSP(coords, name=f"rtsp{n}_s{seed}")
