"""Online portfolio strategies: the base class, their registry and the classic strategies.

A strategy decides each morning how to spread its wealth over the n assets, from what it has
seen so far. :func:`cosolve.portfolio.backtest` calls :meth:`Strategy.start` once, then on each
day ``t = 1..T`` :meth:`Strategy.decide` with ``history = x[:t-1]`` (the relatives of the days
before; never those of day t) and ``b_hat``, the previous portfolio after that day's price moves
(all zeros on day 1: the backtest starts in cash). ``decide`` returns a point of the simplex.

Strategies register by name with :func:`register_strategy` (into :data:`STRATEGIES`, a
:class:`cosolve.core.registry.Registry`); :func:`get_strategy` builds one from its name and
parameters. The registry imports the modules of ``BUILTIN_STRATEGY_MODULES`` on first use (by
name, as plugins are: ``psga``'s lives with its method), then those of the entry-point group
``cosolve.strategies`` and of ``COSOLVE_PLUGINS``.

The classic strategies follow Li & Hoi's OLPS toolbox (github.com/OLPS/OLPS), whose published
values the tests reproduce: ``ubah``, ``bcrp``, ``olmar`` (OLMAR-1), ``pamr``, and ``tco1`` /
``tco2`` (Huang, Li, Hoi & Zhou 2018).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cosolve.core.method import Option
from cosolve.core.options import resolve_options
from cosolve.core.registry import Registry
from cosolve.errors import UsageError
from cosolve.portfolio.predict import moving_average, reversal
from cosolve.portfolio.simplex import project_simplex

BUILTIN_STRATEGY_MODULES: tuple[str, ...] = ("cosolve.portfolio.strategies", "cosolve.methods.psga.strategy")


class Strategy:
    """Base class of online portfolio strategies.

    Subclasses set ``name``, ``summary`` and ``params`` (name -> :class:`~cosolve.core.method.Option`;
    ``--set key=value`` strings are parsed by the option's type), and implement :meth:`decide`
    and, if they keep state, :meth:`reset`. ``config`` holds the validated parameter values.
    A strategy that declares a ``cost`` parameter (default None) plans with that transaction cost
    rate, or with the backtest's rate when it is None; :attr:`cost` gives the rate in force.
    ``hindsight = True`` marks a benchmark that is given the whole (T, n) matrix as
    :attr:`market` before day 1 (``bcrp``); online strategies never see it.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    params: ClassVar[dict[str, Option]] = {}
    hindsight: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.config: dict[str, Any] = resolve_options(self.name, self.params, params)
        self.n = 0
        self.market_cost = 0.0
        self.market: np.ndarray | None = None

    def start(self, n: int, *, cost: float = 0.0, market: np.ndarray | None = None) -> None:
        """Before day 1 of a backtest over ``n`` assets at cost rate ``cost``; then :meth:`reset`.
        ``market`` (the whole matrix) is kept only by hindsight benchmarks."""
        self.n = n
        self.market_cost = float(cost)
        self.market = market if self.hindsight else None
        self.reset(n)

    def reset(self, n: int) -> None:
        """Forget all state: a new backtest over ``n`` assets begins."""

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        """The portfolio (n,) for the next day from ``history`` (t, n) and ``b_hat`` (n,)."""
        raise NotImplementedError

    @property
    def cost(self) -> float:
        """The transaction cost rate the strategy plans with."""
        own = self.config.get("cost")
        return self.market_cost if own is None else float(own)

    @property
    def lam(self) -> float:
        """The L1 trading weight in force (strategies with a ``lam`` parameter): ``lam``, or 10 x
        :attr:`cost` when it is None (TCO's default)."""
        own = self.config.get("lam")
        return 10.0 * self.cost if own is None else float(own)

    def settings(self) -> dict[str, Any]:
        """``config`` with the defaults that depend on the backtest worked out (``cost``, ``lam``);
        meaningful after :meth:`start`."""
        shown = dict(self.config)
        if "cost" in shown:
            shown["cost"] = self.cost
        if "lam" in shown:
            shown["lam"] = self.lam
        return shown

    def uniform(self) -> np.ndarray:
        return np.full(self.n, 1.0 / self.n)


#: Every strategy class by name, sorted.
STRATEGIES: Registry[type[Strategy]] = Registry(
    "portfolio method", builtin=BUILTIN_STRATEGY_MODULES, group="cosolve.strategies", plural="methods", sort=True
)


def register_strategy(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    return STRATEGIES.register(cls)


def registered_strategies() -> dict[str, type[Strategy]]:
    """Every registered strategy class by name, sorted (imports the strategy modules)."""
    return dict(STRATEGIES)


def get_strategy(name: str, **params: Any) -> Strategy:
    """A new strategy ``name`` with ``params``; unknown names or parameters list the valid ones."""
    return STRATEGIES.lookup(name)(**params)


_COST = Option(float, None, "transaction cost rate the strategy plans with (default: the backtest's)", minimum=0.0, below=1.0)


@register_strategy
class UniformBuyAndHold(Strategy):
    """Uniform buy-and-hold: equal weights on day 1, then never trade (``b_t = b_hat``)."""

    name = "ubah"
    summary = "uniform buy-and-hold (market benchmark)"

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        return self.uniform() if history.shape[0] == 0 else b_hat


@register_strategy
class BestConstantRebalanced(Strategy):
    """Best constant rebalanced portfolio in hindsight: the fixed weights that maximise the
    final wealth without costs, computed from the whole matrix before day 1 and rebalanced to
    every day. A benchmark, not an online strategy (it sees the future); with costs it pays for
    rebalancing but is not re-optimised for them."""

    name = "bcrp"
    summary = "best constant rebalanced portfolio in hindsight (benchmark; sees all days)"
    hindsight = True

    def reset(self, n: int) -> None:
        from cosolve.portfolio.bcrp import best_constant_portfolio

        if self.market is None:
            raise UsageError("bcrp is a hindsight benchmark: run it through backtest(), which gives it the whole matrix")
        self.weights = best_constant_portfolio(self.market)

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        return self.weights.copy()


@register_strategy
class OLMAR(Strategy):
    """OLMAR-1 (Li & Hoi, ICML 2012): predict ``x_{t+1}`` by the moving average of the last
    ``window`` prices over today's, then the passive-aggressive step
    ``b = proj(b_{t-1} + lam (x_pred - mean(x_pred)))``, ``lam = max(0, epsilon - b_{t-1} . x_pred)
    / ||x_pred - mean(x_pred)||^2``, from the previous *chosen* portfolio ``b_{t-1}``.

    Warm-up as in the OLPS toolbox (``olmar1_run``): uniform on days 1 and 2; until the history
    holds ``window + 1`` days the prediction is the last relative ``x_t`` itself.
    """

    name = "olmar"
    summary = "on-line moving average reversion, OLMAR-1 (Li & Hoi 2012)"
    params: ClassVar[dict[str, Option]] = {
        "epsilon": Option(float, 10.0, "reversion threshold", minimum=0.0),
        "window": Option(int, 5, "moving-average window in days", minimum=2),
    }

    def reset(self, n: int) -> None:
        self.b = self.uniform()

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        t = history.shape[0]
        if t >= 2:
            window = self.config["window"]
            predicted = history[-1] if t < window + 1 else moving_average(history, window)
            deviation = predicted - predicted.mean()
            norm = float(deviation @ deviation)
            loss = max(0.0, self.config["epsilon"] - float(self.b @ predicted))
            step = loss / norm if norm > 0 else 0.0
            self.b = project_simplex(self.b + step * deviation)
        return self.b.copy()


@register_strategy
class PAMR(Strategy):
    """PAMR (Li, Zhao, Hoi & Gopalkrishnan 2012, Machine Learning): after a day whose return
    ``r = b_{t-1} . x_t`` beat ``epsilon``, move against the day's winners:
    ``b = proj(b_{t-1} - tau (x_t - mean(x_t)))``, ``tau = max(0, r - epsilon) / ||x_t - mean(x_t)||^2``.

    As in the OLPS toolbox (``pamr_run``), ``r`` is the day's net return when trading costs
    (the backtest's rate): ``(b_{t-1} . x_t) (1 - cost/2 ||b_{t-1} - b_hat_{t-2}||_1)``. Uniform on day 1.
    """

    name = "pamr"
    summary = "passive aggressive mean reversion (Li et al. 2012)"
    params: ClassVar[dict[str, Option]] = {
        "epsilon": Option(float, 0.5, "insensitivity: returns above it trigger an update", minimum=0.0)
    }

    def reset(self, n: int) -> None:
        self.b = self.uniform()
        self.previous_hat = np.zeros(n)

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        if history.shape[0] >= 1:
            x = history[-1]
            traded = float(np.abs(self.b - self.previous_hat).sum())
            day_return = float(self.b @ x) * (1.0 - self.cost / 2.0 * traded)
            deviation = x - x.mean()
            norm = float(deviation @ deviation)
            tau = max(0.0, day_return - self.config["epsilon"]) / norm if norm > 0 else 0.0
            self.b = project_simplex(self.b - tau * deviation)
        self.previous_hat = np.array(b_hat, dtype=np.float64)
        return self.b.copy()


class _TransactionCostOptimization(Strategy):
    """TCO (Huang, Li, Hoi & Zhou 2018, Quantitative Finance): from the drifted portfolio
    ``b_hat`` and a prediction ``x_pred``: ``v = x_pred / (b_hat . x_pred)``,
    ``step = eta (v - mean(v))``, then only the part of each move beyond ``lam`` is traded,
    ``b = proj(b_hat + sign(step) max(|step| - lam, 0))``. ``lam`` defaults to 10 x the cost rate,
    so without costs every move is traded and a huge ``lam`` never trades after day 1.
    Uniform on day 1 (b_hat = 0, in cash).
    """

    params: ClassVar[dict[str, Option]] = {
        "eta": Option(float, 10.0, "step size", minimum=0.0),
        "lam": Option(float, None, "trading threshold per asset (default: 10 x cost)", minimum=0.0),
        "cost": _COST,
    }

    def predict(self, history: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        if history.shape[0] == 0:
            return self.uniform()
        predicted = self.predict(history)
        v = predicted / float(b_hat @ predicted)
        step = self.config["eta"] * (v - v.mean())
        return project_simplex(b_hat + np.sign(step) * np.maximum(np.abs(step) - self.lam, 0.0))


@register_strategy
class TCO1(_TransactionCostOptimization):
    """TCO1: transaction cost optimization (see the base class) with the single-period reversal
    prediction ``x_pred = 1 / x_t``."""

    name = "tco1"
    summary = "transaction cost optimization with reversal prediction (Huang et al. 2018)"

    def predict(self, history: np.ndarray) -> np.ndarray:
        return reversal(history)


@register_strategy
class TCO2(_TransactionCostOptimization):
    """TCO2: transaction cost optimization (see the base class) with OLMAR's moving-average
    prediction (window 5; shorter histories average the prices available)."""

    name = "tco2"
    summary = "transaction cost optimization with moving-average prediction (Huang et al. 2018)"
    params: ClassVar[dict[str, Option]] = {
        **_TransactionCostOptimization.params,
        "window": Option(int, 5, "moving-average window in days", minimum=1),
    }

    def predict(self, history: np.ndarray) -> np.ndarray:
        return moving_average(history, self.config["window"])
