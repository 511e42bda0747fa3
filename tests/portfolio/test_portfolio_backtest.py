"""The backtester's accounting (costs, price drift), its guard against look-ahead and its checks."""

import numpy as np
import pytest

from cosolve.errors import InputError
from cosolve.portfolio import Strategy, StrategyError, backtest, get_strategy
from tests.portfolio.portfolio_markets import market


class Scripted(Strategy):
    """Plays a fixed list of portfolios and records what it was shown."""

    name = "scripted"

    def __init__(self, plays):
        super().__init__()
        self.plays = plays

    def reset(self, n):
        self.shown = []

    def decide(self, history, b_hat):
        future_hidden = bool(np.isnan(history.base[len(history) :]).all())  # the buffer behind the view
        self.shown.append((history.copy(), b_hat.copy(), history.flags.writeable, future_hidden))
        return self.plays[len(self.shown) - 1]


def test_costs_and_drift_on_a_hand_computed_two_day_market():
    x = np.array([[1.1, 0.9], [0.8, 1.2]])
    record = backtest(x, Scripted([[0.5, 0.5], [0.2, 0.8]]), cost=0.01)
    # Day 1, from cash (b_hat = 0): turnover ||(0.5, 0.5)||_1 = 1, gross 0.5*1.1 + 0.5*0.9 = 1.0,
    #   net 1.0 * (1 - 0.01/2 * 1) = 0.995; drifted b_hat = (0.55, 0.45) / 1.0.
    # Day 2: turnover |0.2 - 0.55| + |0.8 - 0.45| = 0.7, gross 0.2*0.8 + 0.8*1.2 = 1.12,
    #   net 1.12 * (1 - 0.005 * 0.7) = 1.11608; wealth 0.995 * 1.11608 = 1.1104996.
    assert record.turnover == pytest.approx([1.0, 0.7])
    assert record.daily_returns == pytest.approx([0.995, 1.11608])
    assert record.wealth == pytest.approx([0.995, 1.1104996])
    assert record.portfolios == pytest.approx(np.array([[0.5, 0.5], [0.2, 0.8]]))
    assert record.cost == 0.01 and record.strategy == "scripted" and record.elapsed.shape == (2,)


def test_buy_and_hold_pays_only_for_buying_on_day_one():
    x = market("djia")
    free = backtest(x, get_strategy("ubah")).wealth
    paid = backtest(x, get_strategy("ubah"), cost=0.0025)
    assert paid.wealth == pytest.approx(free * (1 - 0.0025 / 2), rel=1e-12)
    assert paid.turnover[0] == pytest.approx(1.0) and np.abs(paid.turnover[1:]).max() < 1e-12


def test_a_strategy_never_sees_the_current_day():
    x = market("sp500")[:30]
    strategy = Scripted([np.full(x.shape[1], 1 / x.shape[1])] * len(x))
    backtest(x, strategy)
    for t, (history, b_hat, writeable, future_hidden) in enumerate(strategy.shown):
        assert history.shape == (t, x.shape[1])  # days 1..t-1 only
        assert np.array_equal(history, x[:t])
        assert not writeable
        assert future_hidden  # not even the buffer behind the view holds day t or later
        expected = np.zeros(x.shape[1]) if t == 0 else x[t - 1] / x[t - 1].sum()  # drifted uniform
        assert b_hat == pytest.approx(expected)


@pytest.mark.parametrize(
    ("play", "message"),
    [
        ([0.6, 0.6], "sum to 1.2"),
        ([1.5, -0.5], "negative weight"),
        ([1.0], "shape"),
        ([np.nan, 1.0], "non-finite"),
        ("ab", "numeric"),
    ],
)
def test_a_portfolio_off_the_simplex_names_the_strategy_and_the_day(play, message):
    x = np.ones((3, 2))
    with pytest.raises(StrategyError, match=rf"strategy scripted, day 2: .*{message}"):
        backtest(x, Scripted([[0.5, 0.5], play, [0.5, 0.5]]))


def test_rounding_errors_within_the_tolerance_are_cleaned():
    record = backtest(np.ones((1, 2)), Scripted([[1.0 + 5e-9, -5e-9]]))
    assert record.portfolios[0].tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("x", "cost"), [(np.ones((2, 2)), 1.0), (np.ones((2, 2)), -0.1), (np.ones(3), 0.0), (-np.ones((2, 2)), 0.0)]
)
def test_bad_markets_and_cost_rates_are_input_errors(x, cost):
    with pytest.raises(InputError):
        backtest(x, get_strategy("ubah"), cost=cost)


def test_an_implausible_relative_is_refused_with_a_plain_number():
    x = np.ones((3, 2))
    x[1, 0] = 1e300
    with pytest.raises(InputError, match=r"x\[1, 0\] = 1e\+300 is a change by more than a factor of 1000"):
        backtest(x, get_strategy("ubah"))
    x[1, 0] = -1.0
    with pytest.raises(InputError, match=r"x\[1, 0\] = -1\.0 is not"):
        backtest(x, get_strategy("ubah"))
