"""Per-period K-sparse TCO instances from price relatives, real or synthetic.

A period ``t`` of a relatives matrix ``x`` (T, n) becomes the problem a strategy faces on day
``t``: the TCO1 prediction ``1 / x[t-1]`` normalised by the drifted previous portfolio ``h``
(``v = xp / (h . xp)``, Huang et al. 2018), and ``h`` itself, the previous portfolio drifted by
``x[t-1]``. The previous portfolio is ``sparse`` (K assets with Dirichlet weights: the steady state
of a K-sparse strategy) or ``dense`` (uniform: the first rebalance from a buy-and-hold book, where
choosing which K to keep is the hard part).
"""

from __future__ import annotations

import numpy as np

from cosolve.problems.portfolio import PortfolioPeriod

REGIMES = ("sparse", "dense")


def synthetic_relatives(periods: int, n: int, seed: int) -> np.ndarray:
    """Daily relatives (periods, n): log-normal with per-asset volatility U(1%, 4%), a common
    market factor (1% daily) and a small drift, so that assets differ and days are correlated."""
    rng = np.random.default_rng(seed)
    vol = rng.uniform(0.01, 0.04, n)
    beta = rng.uniform(0.5, 1.5, n)
    market = rng.normal(0.0, 0.01, (periods, 1))
    noise = rng.normal(0.0, 1.0, (periods, n)) * vol
    return np.exp(0.0002 + beta * market + noise)


def period_from_relatives(
    x: np.ndarray,
    t: int,
    k: int,
    *,
    regime: str,
    seed: int,
    eta: float = 10.0,
    lam: float = 0.025,
    mu: float = 0.0,
    name: str = "",
) -> PortfolioPeriod:
    """The K-sparse TCO1 problem of day ``t`` (1 <= t < T) of ``x`` (T, n); ``regime`` and
    ``seed`` choose the previous portfolio (module docstring)."""
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; valid: {', '.join(REGIMES)}")
    if not 1 <= t < len(x):
        raise ValueError(f"period t must be in 1..{len(x) - 1}, got {t}")
    n = x.shape[1]
    rng = np.random.default_rng(seed)
    previous = np.full(n, 1.0 / n)
    if regime == "sparse":
        previous = np.zeros(n)
        previous[rng.choice(n, k, replace=False)] = rng.dirichlet(np.ones(k))
    last = x[t - 1]
    h = previous * last / (previous @ last)
    xp = 1.0 / last
    v = xp / (h @ xp)
    return PortfolioPeriod(v, h, k=k, eta=eta, lam=lam, mu=mu, name=name)
