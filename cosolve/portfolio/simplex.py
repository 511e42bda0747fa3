"""Euclidean projection onto the probability simplex (one implementation for every strategy)."""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit


@njit(cache=True)
def project_simplex_on(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``y`` (n,) onto the simplex of the coordinates in ``mask`` (the
    others are 0), by sorting (Held, Wolfe & Crowder 1974; Duchi et al. 2008)."""
    idx = np.flatnonzero(mask)
    u = np.sort(y[idx])[::-1]
    total = 0.0
    tau = 0.0
    for j in range(u.size):
        total += u[j]
        t = (total - 1.0) / (j + 1)
        if u[j] - t > 0.0:
            tau = t
    out = np.zeros_like(y)
    for i in idx:
        out[i] = max(y[i] - tau, 0.0)
    return out


def project_simplex(y: np.ndarray) -> np.ndarray:
    """The point of the simplex {b >= 0, sum(b) = 1} nearest to ``y`` (n,) in Euclidean distance
    (:func:`project_simplex_on` over every coordinate).

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
    return project_simplex_on(y, np.ones(y.size, dtype=np.bool_))
