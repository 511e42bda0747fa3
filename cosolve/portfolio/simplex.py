"""Euclidean projection onto the probability simplex (one implementation for every strategy)."""

from __future__ import annotations

import numpy as np


def project_simplex(y: np.ndarray) -> np.ndarray:
    """The point of the simplex {b >= 0, sum(b) = 1} nearest to ``y`` (n,) in Euclidean distance.

    Sort-based, O(n log n) (Duchi, Shalev-Shwartz, Singer & Chandra, ICML 2008): with ``u`` the
    entries sorted in decreasing order, ``rho`` the last index where
    ``u[rho] > (sum(u[:rho + 1]) - 1) / (rho + 1)``, the answer is ``max(y - theta, 0)`` for
    ``theta = (sum(u[:rho + 1]) - 1) / (rho + 1)``. For inputs that sum to 1 (every update of
    OLMAR, PAMR and TCO) it agrees with the OLPS toolbox's ``simplex_projection``.
    """
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"project_simplex expects a non-empty vector, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("project_simplex: the vector has non-finite entries")
    u = np.sort(y)[::-1]
    cumulative = np.cumsum(u) - 1.0
    ks = np.arange(1, y.size + 1)
    rho = np.nonzero(u > cumulative / ks)[0][-1]
    theta = cumulative[rho] / (rho + 1)
    return np.maximum(y - theta, 0.0)
