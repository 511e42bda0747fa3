"""Benchmark metrics: primal gap, primal integral, shifted geometric mean, performance profiles.

Traces are sequences of ``(time, objective)`` incumbent improvements in seconds since the start
of the solve. Formulas are documented in ``bench/README.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from cosolve.core.result import relative_gap


def primal_gap(objective: float | None, reference: float | None) -> float:
    """Berthold's primal gap in [0, 1] of ``objective`` against ``reference``: the relative gap
    of the two (:func:`cosolve.core.result.relative_gap`: 0 when equal, 1 when their signs
    differ), 1 without an objective, NaN without a reference."""
    if reference is None or (isinstance(reference, float) and math.isnan(reference)):
        return math.nan
    gap = relative_gap(objective, reference)
    return 1.0 if gap is None else gap


def primal_integral(trace: Sequence[tuple[float, float]], reference: float | None, horizon: float) -> float:
    """Berthold's primal integral ``P(T) = integral_0^T p(t) dt`` in seconds, where ``p(t)`` is the
    primal gap of the incumbent at time ``t`` (1 before the first solution).

    ``trace``: ``(time, objective)`` pairs in time order; ``horizon``: T, the budget in seconds.
    """
    if reference is None or math.isnan(reference):
        return math.nan
    total, t_prev, gap_prev = 0.0, 0.0, 1.0
    for t, objective in trace:
        t = min(max(t, 0.0), horizon)
        total += gap_prev * (t - t_prev)
        t_prev, gap_prev = t, primal_gap(objective, reference)
    return total + gap_prev * (horizon - t_prev)


def gap_at(trace: Sequence[tuple[float, float]], reference: float, times: np.ndarray) -> np.ndarray:
    """The primal gap of the incumbent at each of ``times`` (1 before the first solution)."""
    out = np.ones(len(times))
    if not trace:
        return out
    stamps = np.array([t for t, _ in trace])
    gaps = np.array([primal_gap(obj, reference) for _, obj in trace])
    index = np.searchsorted(stamps, times, side="right") - 1
    found = index >= 0
    out[found] = gaps[index[found]]
    return out


def shifted_geometric_mean(values: Iterable[float], shift: float = 1.0) -> float:
    """``exp(mean(log(v + shift))) - shift``: the usual mean of solving times (shift in seconds)."""
    v = np.asarray(list(values), dtype=float)
    if v.size == 0:
        return math.nan
    return float(np.exp(np.mean(np.log(v + shift))) - shift)


def performance_profile(costs: np.ndarray, taus: np.ndarray, floor: float = 1e-6) -> np.ndarray:
    """Dolan–Moré performance profile.

    ``costs``: (problems, methods) array, lower is better, ``inf``/NaN for a failure; costs are
    raised to ``floor`` so that ratios exist when the best cost is 0. Returns
    (len(taus), methods): ``rho_m(tau) = |{p : r_pm <= tau}| / |P|`` with
    ``r_pm = cost_pm / min_m cost_pm``, the fraction of problems on which method m is within a
    factor tau of the best.
    """
    c = np.asarray(costs, dtype=float)
    c = np.maximum(np.where(np.isnan(c), np.inf, c), floor)
    ratio = c / c.min(axis=1, keepdims=True)
    return np.array([(ratio <= tau).mean(axis=0) for tau in taus])
