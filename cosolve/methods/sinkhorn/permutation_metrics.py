"""Metrics of predicted permutations against the true ones (``perm[i]`` = position of item ``i``).

All take ``pred`` and ``true`` of shape (n,) or (batch, n) int; batched versions average over the batch.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau


def _batched(pred: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pred, true = np.atleast_2d(np.asarray(pred)), np.atleast_2d(np.asarray(true))
    if pred.shape != true.shape:
        raise ValueError(f"predicted and true permutations differ in shape: {pred.shape} vs {true.shape}")
    return pred, true


def kendall_tau(pred: np.ndarray, true: np.ndarray) -> float:
    """Mean Kendall rank correlation between predicted and true positions (1 = identical order)."""
    pred, true = _batched(pred, true)
    if pred.shape[1] < 2:
        return 1.0
    return float(np.mean([kendalltau(p, t).statistic for p, t in zip(pred, true, strict=True)]))


def wrong_positions(pred: np.ndarray, true: np.ndarray) -> float:
    """The proportion of items placed at a wrong position."""
    pred, true = _batched(pred, true)
    return float(np.mean(pred != true))


def any_error(pred: np.ndarray, true: np.ndarray) -> float:
    """The proportion of sequences with at least one item out of place."""
    pred, true = _batched(pred, true)
    return float(np.mean(np.any(pred != true, axis=1)))


def in_place(pred: np.ndarray, true: np.ndarray) -> float:
    """The proportion of items at their true position (jigsaw: pieces in place; ``1 - wrong_positions``)."""
    pred, true = _batched(pred, true)
    return float(np.mean(pred == true))


def perfect(pred: np.ndarray, true: np.ndarray) -> float:
    """The proportion of permutations with every item in place (jigsaw: perfect reconstructions)."""
    pred, true = _batched(pred, true)
    return float(np.mean(np.all(pred == true, axis=1)))
