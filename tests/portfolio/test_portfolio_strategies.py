"""Strategies, their registry, the predictors and the simplex projection."""

import sys
import textwrap

import numpy as np
import pytest

import cosolve.portfolio.strategies as registry
from cosolve.errors import UsageError
from cosolve.portfolio import backtest, get_strategy, project_simplex, registered_strategies
from cosolve.portfolio.predict import moving_average, reversal
from tests.portfolio.portfolio_markets import market

CLASSIC = ("bcrp", "olmar", "pamr", "tco1", "tco2", "ubah")


def test_projection_onto_the_simplex():
    assert project_simplex(np.array([0.3, 0.7])).tolist() == pytest.approx([0.3, 0.7])
    assert project_simplex(np.array([2.0, -1.5])).tolist() == [1.0, 0.0]
    assert project_simplex(np.array([0.0, 0.0])).tolist() == [0.5, 0.5]
    assert project_simplex(np.array([0.5, 0.5, 3.0, -2.0])).tolist() == [0.0, 0.0, 1.0, 0.0]
    rng = np.random.default_rng(0)
    for _ in range(50):
        y = rng.normal(size=rng.integers(1, 9)) * 3
        b = project_simplex(y)
        assert b.min() >= 0 and b.sum() == pytest.approx(1.0)
        # optimality: y - b is constant (theta) on the support and <= theta off it
        theta = (y - b)[b > 0]
        assert np.ptp(theta) < 1e-12 and (y[b == 0] <= theta[0] + 1e-12).all()


def test_predictors_from_relatives():
    prices = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 4.0], [4.0, 2.0]])  # p_0 .. p_3
    history = prices[1:] / prices[:-1]  # x_1 .. x_3
    assert reversal(history) == pytest.approx(prices[2] / prices[3])
    assert moving_average(history, 3) == pytest.approx(prices[1:].mean(axis=0) / prices[3])
    assert moving_average(history, 10) == pytest.approx(prices.mean(axis=0) / prices[3])  # what is available
    assert moving_average(history[:0], 5).tolist() == [1.0, 1.0] and reversal(history[:0]).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("method", CLASSIC)
def test_every_classic_strategy_trades_on_the_simplex_with_costs(method):
    record = backtest(market("djia"), get_strategy(method), cost=0.0025)
    assert np.allclose(record.portfolios.sum(axis=1), 1.0) and record.portfolios.min() >= 0
    assert 0 < record.wealth[-1] < np.inf
    assert record.portfolios[0] == pytest.approx(np.full(30, 1 / 30)) or method == "bcrp"


def test_olmar_is_uniform_for_two_days_then_moves():
    record = backtest(market("djia"), get_strategy("olmar"))
    assert np.allclose(record.portfolios[:2], 1 / 30)
    assert not np.allclose(record.portfolios[2], 1 / 30)


@pytest.mark.parametrize("method", ["tco1", "tco2"])
def test_tco_with_a_huge_threshold_never_trades_after_day_one(method):
    x = market("sp500")
    record = backtest(x, get_strategy(method, lam=1e9), cost=0.0025)
    hold = backtest(x, get_strategy("ubah"), cost=0.0025)
    assert np.abs(record.turnover[1:]).max() < 1e-12
    assert record.wealth[-1] == pytest.approx(hold.wealth[-1], rel=1e-9)


def test_tco_without_costs_trades_the_whole_step():
    strategy = get_strategy("tco1")
    strategy.start(3, cost=0.0)
    history = np.array([[1.0, 1.25, 0.8]])
    b_hat = np.array([0.2, 0.5, 0.3])
    predicted = 1 / history[0]  # (1, 0.8, 1.25)
    v = predicted / (b_hat @ predicted)
    expected = project_simplex(b_hat + 10 * (v - v.mean()))  # lam = 10 x cost = 0
    assert strategy.decide(history, b_hat) == pytest.approx(expected)


def test_tco_trades_less_as_the_cost_rate_grows():
    x = market("djia")
    turnover = [backtest(x, get_strategy("tco2"), cost=c).metrics()["turnover"] for c in (0.0, 0.001, 0.01)]
    assert turnover[0] > turnover[1] > turnover[2]
    own = backtest(x, get_strategy("tco2", cost=0.01), cost=0.0)  # the strategy's own rate wins
    assert own.metrics()["turnover"] == pytest.approx(turnover[2], rel=0.2)


def test_pamr_with_costs_uses_the_net_return_of_the_day():
    # day 1 uniform from cash (all of it traded); day 1 gross return 1.015 beats epsilon = 1
    x = np.array([[1.03, 1.00], [1.0, 1.0]])
    deviation = np.array([0.015, -0.015])

    def day_two(cost: float) -> np.ndarray:
        return backtest(x, get_strategy("pamr", epsilon=1.0), cost=cost).portfolios[1]

    for cost in (0.0, 0.01):
        net = 1.015 * (1.0 - cost / 2.0 * 1.0)  # the day's return after paying for trading 1.0 of wealth
        tau = (net - 1.0) / (deviation @ deviation)
        np.testing.assert_allclose(day_two(cost), project_simplex(np.array([0.5, 0.5]) - tau * deviation), atol=1e-12)
    # a gross return above epsilon but a net one below it: no update at all
    np.testing.assert_array_equal(day_two(0.05), [0.5, 0.5])


def test_registry_lists_names_and_parameters():
    assert set(CLASSIC) <= set(registered_strategies())
    with pytest.raises(UsageError, match="unknown portfolio method 'nope'; valid methods: bcrp, olmar, pamr"):
        get_strategy("nope")
    with pytest.raises(UsageError, match="unknown option 'k' for method olmar; valid options: epsilon, window"):
        get_strategy("olmar", k=3)
    assert get_strategy("olmar", epsilon="5", window="3").config == {"epsilon": 5.0, "window": 3}
    with pytest.raises(UsageError, match="window"):
        get_strategy("olmar", window=1)


def test_bcrp_needs_the_backtest():
    with pytest.raises(UsageError, match="hindsight"):
        get_strategy("bcrp").start(3)


def test_one_more_module_name_is_enough_to_add_strategies(tmp_path, monkeypatch):
    (tmp_path / "extra_portfolio_strategy.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from cosolve.core.method import Option
            from cosolve.portfolio.strategies import Strategy, register_strategy

            @register_strategy
            class FirstAsset(Strategy):
                name = "first-asset"
                params = {"k": Option(int, 1, "unused", minimum=1)}

                def decide(self, history, b_hat):
                    b = np.zeros(self.n)
                    b[0] = 1.0
                    return b
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    strategies = registry.STRATEGIES
    monkeypatch.setattr(strategies, "_items", dict(strategies._items))
    monkeypatch.setattr(strategies, "builtin", (*strategies.builtin, "extra_portfolio_strategy"))
    monkeypatch.setattr(strategies, "_loaded", False)
    monkeypatch.delitem(sys.modules, "extra_portfolio_strategy", raising=False)
    strategy = get_strategy("first-asset", k=2)
    x = market("djia")
    assert backtest(x, strategy).wealth[-1] == pytest.approx(np.prod(x[:, 0]))
    monkeypatch.delitem(sys.modules, "extra_portfolio_strategy", raising=False)
