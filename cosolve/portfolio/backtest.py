"""Run a strategy over a market day by day, with proportional transaction costs (OLPS conventions).

The backtest starts in cash (``b_hat_0 = 0``, wealth 1). On day ``t = 1..T``:

1. the strategy decides ``b_t`` from ``x[:t-1]`` (the days before; never day t's relatives) and
   ``b_hat_{t-1}``, the previous portfolio after its day's price moves,
   ``b_{t-1} * x_{t-1} / (b_{t-1} . x_{t-1})`` (all zeros on day 1);
2. rebalancing costs ``cost / 2 * ||b_t - b_hat_{t-1}||_1`` of the wealth (so day 1, buying from
   cash, pays ``cost / 2``), and the day's prices move: ``wealth *= (b_t . x_t) * (1 - cost / 2 *
   ||b_t - b_hat_{t-1}||_1)``.

Every ``b_t`` must lie on the simplex (weights >= -1e-8 summing to 1 within 1e-8); tiny negative
weights are clipped and the vector renormalised before it is used.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cosolve.errors import CosolveError, InputError
from cosolve.portfolio.backtest_metrics import summary
from cosolve.portfolio.price_relatives import MAX_RELATIVE, implausible_relatives
from cosolve.portfolio.strategies import Strategy

#: tolerance of the simplex check on a strategy's portfolio
SIMPLEX_TOL = 1e-8


class StrategyError(CosolveError):
    """A strategy returned something that is not a portfolio (names the strategy and the day)."""


@dataclass
class Backtest:
    """The day-by-day record of one backtest over T days and n assets.

    - ``wealth`` (T,): cumulative wealth after each day, net of costs (starting wealth 1);
    - ``portfolios`` (T, n): the portfolio ``b_t`` chosen each morning;
    - ``turnover`` (T,): ``||b_t - b_hat_{t-1}||_1``, in [0, 2] (1 on day 1, bought from cash);
    - ``daily_returns`` (T,): net growth factors ``(b_t . x_t) (1 - cost/2 turnover_t)``;
    - ``elapsed`` (T,): seconds the strategy took for each decision;
    - ``strategy``, ``cost``: the strategy's name and the cost rate.
    """

    wealth: np.ndarray
    portfolios: np.ndarray
    turnover: np.ndarray
    daily_returns: np.ndarray
    elapsed: np.ndarray
    strategy: str
    cost: float

    def metrics(self) -> dict[str, float]:
        """wealth, apy, sharpe, max_drawdown, calmar, turnover, avg_assets (see :mod:`cosolve.portfolio.backtest_metrics`)."""
        return summary(self.wealth, self.daily_returns, self.turnover, self.portfolios)

    @property
    def seconds(self) -> float:
        """Total seconds spent in the strategy's decisions."""
        return float(self.elapsed.sum())


def backtest(
    x: np.ndarray, strategy: Strategy, *, cost: float = 0.0, on_day: Callable[[int, int], None] | None = None
) -> Backtest:
    """Run ``strategy`` over the (T, n) price relatives ``x`` at transaction cost rate ``cost``
    (e.g. 0.0025 for 0.25%); ``on_day(t, T)`` is called after each day t = 1..T (progress).

    The strategy sees the past through a read-only view of a buffer that holds only the rows
    revealed so far, so not even its base array leaks future days. Raises :class:`StrategyError`
    when a portfolio is not on the simplex, InputError for a bad matrix or cost rate.
    """
    x = _check_market(x)
    if not (0.0 <= cost < 1.0):
        raise InputError(f"transaction cost rate must be in [0, 1), got {cost:g}")
    days, n = x.shape
    seen = np.full((days, n), np.nan)
    wealth = np.empty(days)
    portfolios = np.empty((days, n))
    turnover = np.empty(days)
    returns = np.empty(days)
    elapsed = np.empty(days)

    strategy.start(n, cost=cost, market=x.copy() if strategy.hindsight else None)
    b_hat = np.zeros(n)
    total = 1.0
    for t in range(days):
        history = seen[:t]
        history.flags.writeable = False
        start = time.perf_counter()
        b = strategy.decide(history, b_hat.copy())
        elapsed[t] = time.perf_counter() - start
        b = _check_portfolio(b, n, strategy.name, t + 1)
        traded = float(np.abs(b - b_hat).sum())
        gross = float(b @ x[t])
        net = gross * (1.0 - cost / 2.0 * traded)
        total *= net
        wealth[t], portfolios[t], turnover[t], returns[t] = total, b, traded, net
        b_hat = b * x[t] / gross
        seen[t] = x[t]
        if on_day is not None:
            on_day(t + 1, days)
    return Backtest(wealth, portfolios, turnover, returns, elapsed, strategy.name, float(cost))


def _check_market(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise InputError(f"price relatives must be a (T, n) matrix with T, n >= 1, got shape {x.shape}")
    bad = ~(np.isfinite(x) & (x > 0))
    if bad.any():
        t, i = np.argwhere(bad)[0]
        raise InputError(f"price relative x[{t}, {i}] = {float(x[t, i])!r} is not a positive finite number")
    wild = implausible_relatives(x)
    if wild.any():
        t, i = np.argwhere(wild)[0]
        raise InputError(
            f"price relative x[{t}, {i}] = {float(x[t, i])!r} is a change by more than a factor of {MAX_RELATIVE:g} in a day"
        )
    return x


def _check_portfolio(b: object, n: int, name: str, day: int) -> np.ndarray:
    where = f"strategy {name}, day {day}"
    try:
        b = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        raise StrategyError(f"{where}: the portfolio is not a numeric vector") from None
    if b.shape != (n,):
        raise StrategyError(f"{where}: portfolio of shape {b.shape}, expected ({n},)")
    if not np.all(np.isfinite(b)):
        raise StrategyError(f"{where}: the portfolio has non-finite weights")
    if b.min() < -SIMPLEX_TOL:
        raise StrategyError(f"{where}: negative weight {b.min():.3g} for asset {int(np.argmin(b))}")
    if abs(b.sum() - 1.0) > SIMPLEX_TOL:
        raise StrategyError(f"{where}: weights sum to {b.sum():.12g}, not 1")
    b = np.maximum(b, 0.0)
    return b / b.sum()
