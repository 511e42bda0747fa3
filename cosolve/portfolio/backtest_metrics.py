"""Performance measures of a backtest, with the OLPS literature's conventions.

Inputs are per-day arrays over the T days of a backtest: ``wealth`` (T,) the cumulative wealth
after each day (starting wealth 1, net of costs), ``daily_returns`` (T,) the net growth factors
``wealth[t] / wealth[t-1]``, ``turnover`` (T,) and ``portfolios`` (T, n). A year has 252 trading
days; the risk-free rate is 4% a year.
"""

from __future__ import annotations

import math

import numpy as np

DAYS_PER_YEAR = 252
RISK_FREE = 0.04
#: a portfolio weight above this counts as a held asset
HELD = 1e-8


def apy(final_wealth: float, days: int) -> float:
    """Annual percentage yield ``W ** (252 / T) - 1`` of ending with ``final_wealth`` after ``days``
    (infinite when that overflows a float, -1 for a wealth of 0)."""
    w = float(final_wealth)
    if w <= 0.0:
        return -1.0
    try:
        return math.exp(math.log(w) * DAYS_PER_YEAR / days) - 1.0
    except OverflowError:
        return math.inf


def sharpe(apy_value: float, daily_returns: np.ndarray) -> float:
    """Annualised Sharpe ratio ``(APY - 4%) / (std(daily net returns) * sqrt(252))``.

    The standard deviation is the sample one (``ddof=1``, as MATLAB's ``std`` in the OLPS
    toolbox); NaN with fewer than 2 days, or with returns constant up to rounding (a standard
    deviation below 1e-12 of their mean size).
    """
    r = np.asarray(daily_returns, dtype=np.float64)
    if r.size < 2:
        return math.nan
    sd = float(np.std(r, ddof=1))
    if not sd > 1e-12 * max(float(np.mean(np.abs(r))), 1e-300):
        return math.nan
    return (apy_value - RISK_FREE) / (sd * math.sqrt(DAYS_PER_YEAR))


def max_drawdown(wealth: np.ndarray) -> float:
    """The largest fall from a running peak, as a fraction of that peak: ``max_t 1 - W_t / max_{s<=t} W_s``.

    The curve starts at the initial wealth 1 (before day 1), so a loss on day 1 counts; 0 for a
    curve that never falls.
    """
    w = np.concatenate([[1.0], np.asarray(wealth, dtype=np.float64)])
    peak = np.maximum.accumulate(w)
    return float(np.max(1.0 - w / peak))


def calmar(apy_value: float, mdd: float) -> float:
    """Calmar ratio ``APY / MDD``: infinite (signed) for a curve without drawdown, NaN for 0 / 0."""
    if mdd > 0:
        return apy_value / mdd
    return math.copysign(math.inf, apy_value) if apy_value != 0 else math.nan


def summary(wealth: np.ndarray, daily_returns: np.ndarray, turnover: np.ndarray, portfolios: np.ndarray) -> dict[str, float]:
    """The standard table row of a backtest:

    - ``wealth``: final cumulative wealth (net of costs, starting from 1);
    - ``apy``: annual percentage yield, ``W ** (252 / T) - 1``;
    - ``sharpe``: ``(apy - 0.04) / (std of daily net returns * sqrt(252))``;
    - ``max_drawdown``: maximum drawdown of the wealth curve, a fraction in [0, 1);
    - ``calmar``: ``apy / max_drawdown``;
    - ``turnover``: mean over the T days of ``||b_t - b_hat_{t-1}||_1`` (the L1 distance between
      the chosen portfolio and the drifted previous one, in [0, 2]; day 1 counts, trading from
      cash: ``||b_1||_1 = 1``). Half of it is the fraction of wealth traded each way;
    - ``avg_assets``: mean over the days of the number of weights of ``b_t`` above 1e-8.
    """
    wealth = np.asarray(wealth, dtype=np.float64)
    days = wealth.size
    final = float(wealth[-1])
    a = apy(final, days)
    mdd = max_drawdown(wealth)
    return {
        "wealth": final,
        "apy": a,
        "sharpe": sharpe(a, daily_returns),
        "max_drawdown": mdd,
        "calmar": calmar(a, mdd),
        "turnover": float(np.mean(turnover)),
        "avg_assets": float(np.mean(np.sum(np.asarray(portfolios) > HELD, axis=1))),
    }
