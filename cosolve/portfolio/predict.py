"""Predictions of the next day's price relatives from the relatives seen so far.

``history`` is ``x[:t]``, shape (t, n): row ``s`` holds the relatives ``p_{s+1} / p_s`` of day
``s + 1`` (prices ``p_0 .. p_t`` are implied, ``p_0`` = 1). Every predictor returns an (n,) array
of predicted relatives ``x_{t+1}`` (dimensionless, positive). With no history (t = 0) nothing is
known and both predict no change (all ones).
"""

from __future__ import annotations

import numpy as np


def reversal(history: np.ndarray) -> np.ndarray:
    """Single-period reversal (TCO1, after PAMR): ``1 / x_t``, the inverse of the last row.

    A stock that rose today is predicted to fall back by the same ratio tomorrow.
    """
    history = np.asarray(history, dtype=np.float64)
    if history.shape[0] == 0:
        return np.ones(history.shape[1])
    return 1.0 / history[-1]


def moving_average(history: np.ndarray, window: int = 5) -> np.ndarray:
    """Simple-moving-average reversion (OLMAR, TCO2): ``mean_{k=0..m-1} p_{t-k} / p_t``.

    The moving average of the last ``m`` prices over today's price, with ``m = window`` when
    ``t >= window - 1`` (it needs ``window - 1`` relatives: ``p_{t-k} / p_t = 1 / (x_t x_{t-1} ..
    x_{t-k+1})``). With a shorter history it averages what is available, ``m = t + 1`` prices
    (``p_0 .. p_t``), so day 2 predicts ``(1 + 1 / x_1) / 2`` and day 1 all ones.
    """
    history = np.asarray(history, dtype=np.float64)
    if window < 1:
        raise ValueError(f"moving_average: window must be at least 1, got {window}")
    t, n = history.shape
    m = min(window, t + 1)
    if m == 1:
        return np.ones(n)
    recent = history[t - (m - 1) :][::-1]  # x_t, x_{t-1}, .., x_{t-m+2}
    ratios = 1.0 / np.cumprod(recent, axis=0)  # p_{t-k} / p_t for k = 1 .. m-1
    return (1.0 + ratios.sum(axis=0)) / m
