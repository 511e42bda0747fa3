"""The ``psga`` portfolio strategy in backtests and on the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cosolve.cli.main import main
from cosolve.errors import UsageError
from cosolve.portfolio import backtest, get_strategy, read_relatives, resolve_data
from cosolve.problems.portfolio import PortfolioPeriod


@pytest.fixture(scope="module")
def djia() -> np.ndarray:
    return read_relatives(resolve_data("djia"))[:120]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("predictor", ["sma", "reversal"])
def test_every_day_is_k_sparse_and_on_the_simplex(djia, k, predictor):
    strategy = get_strategy("psga", k=k, predictor=predictor)
    result = backtest(djia, strategy, cost=0.0025)
    held = (result.portfolios > 1e-9).sum(axis=1)
    assert held.max() <= k
    assert np.allclose(result.portfolios.sum(axis=1), 1.0, atol=1e-9) and result.portfolios.min() >= 0
    assert result.portfolios[0].tolist() == [1.0 / k] * k + [0.0] * (djia.shape[1] - k)
    assert len(strategy.iterations) == len(djia) - 1 and min(strategy.iterations) >= 1
    assert result.metrics()["avg_assets"] <= k


def test_each_day_solves_its_period_problem(djia):
    """Replaying a backtest, every decision (after day 1) is at least as good as SCIP-free
    checks allow: feasible for that day's K-sparse TCO problem, and no K-sparse portfolio among
    the day's single-asset and previous-support candidates is better."""
    from cosolve.methods.psga.psga import solve_on_support
    from cosolve.portfolio.predict import moving_average

    k, cost = 3, 0.0025
    result = backtest(djia[:40], get_strategy("psga", k=k), cost=cost)
    b_prev = result.portfolios[0]
    for t in range(1, 40):
        drift = b_prev * djia[t - 1] / (b_prev @ djia[t - 1])
        xp = moving_average(djia[:t])
        problem = PortfolioPeriod(xp / (drift @ xp), drift, k=k, eta=10.0, lam=10 * cost, mu=1.0)
        chosen = problem.evaluate(result.portfolios[t])
        assert chosen.feasible
        for support in [drift > 1e-9, *np.eye(problem.n, dtype=bool)]:
            if support.sum() <= k:
                other = solve_on_support(problem.v, problem.h, problem.eta, problem.lam, problem.mu, support)
                assert chosen.objective <= problem.objective(other) + 1e-9
        b_prev = result.portfolios[t]


def test_parameters_are_checked():
    with pytest.raises(UsageError, match="valid options"):
        get_strategy("psga", kk=3)
    with pytest.raises(UsageError):
        get_strategy("psga", predictor="oracle")


def test_cli_json(capsys):
    assert main(["portfolio", "backtest", "djia", "--method", "psga", "--k", "2", "--cost", "0.0025", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("wealth", "apy", "sharpe", "max_drawdown", "turnover", "avg_assets"):
        assert np.isfinite(out[key])
    assert out["avg_assets"] <= 2 and out["params"]["k"] == 2


def test_cli_rejects_bad_k(capsys):
    assert main(["portfolio", "backtest", "djia", "--method", "psga", "--k", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "k=0" in err and "must be at least 1" in err


def test_k_above_the_market_size_is_refused_and_the_default_fits_a_small_market(capsys):
    assert main(["portfolio", "backtest", "djia", "--method", "psga", "--k", "31"]) == 2  # djia has 30 assets
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "k = 31 is more than the market's 30 assets" in err
    small = np.random.default_rng(0).uniform(0.95, 1.05, (30, 3))
    record = backtest(small, get_strategy("psga"))  # the default k (5) on 3 assets holds at most 3
    assert record.strategy == "psga" and np.all((record.portfolios > 0).sum(axis=1) <= 3)
