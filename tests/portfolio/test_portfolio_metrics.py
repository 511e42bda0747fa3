"""Metrics on hand-made wealth curves."""

import math

import numpy as np
import pytest

from cosolve.portfolio.backtest_metrics import apy, calmar, max_drawdown, sharpe, summary


def test_max_drawdown_of_a_hand_made_curve():
    # peaks 1.1 then 1.21; falls 1.1 -> 0.99 (10%) and 1.21 -> 0.605 (50%)
    assert max_drawdown(np.array([1.1, 0.99, 1.21, 0.605, 1.0])) == pytest.approx(0.5)
    assert max_drawdown(np.array([0.8, 0.9])) == pytest.approx(0.2)  # from the starting wealth 1
    assert max_drawdown(np.array([1.0, 1.5, 2.0])) == 0.0


def test_apy_sharpe_and_calmar():
    assert apy(2.0, 252) == pytest.approx(1.0)  # doubled in a year
    assert apy(4.0, 504) == pytest.approx(1.0)  # doubled each year for two
    assert apy(1.0, 5) == 0.0
    returns = np.array([1.01, 0.99, 1.02])
    sd = np.std(returns, ddof=1) * math.sqrt(252)
    assert sharpe(0.10, returns) == pytest.approx((0.10 - 0.04) / sd)
    assert math.isnan(sharpe(0.1, np.array([1.01]))) and math.isnan(sharpe(0.1, np.ones(4)))
    assert calmar(0.2, 0.5) == pytest.approx(0.4)
    assert calmar(0.2, 0.0) == math.inf and math.isnan(calmar(0.0, 0.0))


def test_summary_keys_and_turnover_and_assets():
    wealth = np.array([1.1, 0.99, 1.21])
    returns = np.array([1.1, 0.9, 1.21 / 0.99])
    portfolios = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    out = summary(wealth, returns, np.array([1.0, 1.0, 4 / 3]), portfolios)
    assert set(out) == {"wealth", "apy", "sharpe", "max_drawdown", "calmar", "turnover", "avg_assets"}
    assert out["wealth"] == 1.21 and out["max_drawdown"] == pytest.approx(0.1)
    assert out["apy"] == pytest.approx(1.21 ** (252 / 3) - 1)
    assert out["turnover"] == pytest.approx(10 / 9) and out["avg_assets"] == pytest.approx(2.0)


def test_extreme_curves_give_inf_or_nan_not_errors():
    assert apy(1e300, 2) == math.inf  # W ** 126 overflows a float
    assert apy(0.0, 10) == -1.0
    # returns equal up to rounding (every relative 1e-3): no Sharpe, not -3e17
    returns = np.full(20, 1e-3) * (1 + np.array([0, 1e-16] * 10))
    assert math.isnan(sharpe(-1.0, returns))
