"""Hard decoding of soft permutations by the Hungarian algorithm (scipy's ``linear_sum_assignment``)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def hungarian(scores: np.ndarray) -> np.ndarray:
    """The permutation(s) maximising ``sum_i scores[i, perm[i]]``.

    ``scores`` (n, n) or (batch, n, n), e.g. logits or log soft assignments; returns ``perm`` (n,) or
    (batch, n) int64 with ``perm[i]`` the position of item ``i``."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 2:
        if scores.shape[0] != scores.shape[1]:
            raise ValueError(f"scores must be square, got shape {scores.shape}")
        if not np.all(np.isfinite(scores)):
            raise ValueError("scores must be finite")
        rows, cols = linear_sum_assignment(scores, maximize=True)
        perm = np.empty(scores.shape[0], np.int64)
        perm[rows] = cols
        return perm
    if scores.ndim == 3:
        return np.stack([hungarian(s) for s in scores]) if len(scores) else np.zeros((0, scores.shape[1]), np.int64)
    raise ValueError(f"scores must be (n, n) or (batch, n, n), got shape {scores.shape}")


def permutation_matrix(perm: np.ndarray) -> np.ndarray:
    """The 0/1 matrix (n, n) with ``P[i, perm[i]] = 1``."""
    perm = np.asarray(perm, dtype=np.int64)
    out = np.zeros((perm.size, perm.size))
    out[np.arange(perm.size), perm] = 1.0
    return out


def apply(perm: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Items reordered by ``perm`` (item ``i`` goes to position ``perm[i]``), along axis 0."""
    items = np.asarray(items)
    out = np.empty_like(items)
    out[np.asarray(perm, dtype=np.int64)] = items
    return out
