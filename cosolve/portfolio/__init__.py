"""Online portfolio selection: price-relative data, strategies, a cost-aware backtester, metrics.

``backtest(read_relatives("instances/olps/djia.csv"), get_strategy("olmar"), cost=0.0025).metrics()``
"""

from cosolve.portfolio.backtest import Backtest, StrategyError, backtest
from cosolve.portfolio.price_relatives import bundled_datasets, read_relatives, resolve_data
from cosolve.portfolio.simplex import project_simplex
from cosolve.portfolio.strategies import Strategy, get_strategy, register_strategy, registered_strategies

__all__ = [
    "Backtest",
    "Strategy",
    "StrategyError",
    "backtest",
    "bundled_datasets",
    "get_strategy",
    "project_simplex",
    "read_relatives",
    "register_strategy",
    "registered_strategies",
    "resolve_data",
]
