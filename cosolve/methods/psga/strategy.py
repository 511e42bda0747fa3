"""The ``psga`` online portfolio strategy: K-sparse TCO solved by PSGA every day.

Each day the strategy predicts the next relatives (``predictor``: ``reversal`` is TCO1's ``1/x_t``,
``sma`` TCO2's and OLMAR's moving-average reversion over ``window`` days), normalises them by the
drifted portfolio (``v = xp / (b_hat . xp)``, as TCO does), and solves

    minimise -eta <v, b> + lam ||b - b_hat||_1 + mu/2 ||b - b_hat||^2   over the simplex, ||b||_0 <= k

with PSGA (:func:`cosolve.methods.psga.psga.solve_period`), keeping the best of its starts.
``lam`` defaults to ``10 x cost`` and ``eta`` to 10 (TCO's defaults); ``mu = 1`` makes the
unconstrained problem TCO's proximal step, so ``k = n`` is TCO up to the order of projection.
On day 1 (in cash, nothing seen) it holds assets ``0..k-1`` in equal weights.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cosolve.core.method import Option
from cosolve.errors import UsageError
from cosolve.portfolio.predict import moving_average, reversal
from cosolve.portfolio.strategies import Strategy, register_strategy

#: assets held when ``k`` is not given (fewer on a smaller market)
DEFAULT_K = 5


@register_strategy
class PsgaStrategy(Strategy):
    """K-sparse transaction-cost optimisation by PSGA (see the module docstring)."""

    name: ClassVar[str] = "psga"
    summary: ClassVar[str] = "K-sparse TCO solved each day by PSGA (DC exact penalty, ADMM prox)"
    params: ClassVar[dict[str, Option]] = {
        "k": Option(
            int, None, f"most assets held, at most the market's (default {DEFAULT_K}, fewer on a smaller market)", minimum=1
        ),
        "predictor": Option(str, "sma", "reversal (TCO1) or sma (TCO2/OLMAR)", choices=("reversal", "sma")),
        "window": Option(int, 5, "moving-average window of predictor=sma", minimum=1),
        "eta": Option(float, 10.0, "weight of the predicted return", minimum=0.0),
        "lam": Option(float, None, "L1 transaction-cost weight (default: 10 x cost)", minimum=0.0),
        "mu": Option(float, 1.0, "weight of the quadratic proximity term", minimum=0.0),
        "cost": Option(float, None, "transaction cost rate planned with (default: the backtest's)", minimum=0.0, below=1.0),
        "prox": Option(str, "admm", "proximal step by ADMM or exactly", choices=("admm", "exact")),
        "rho_factor": Option(float, 1.1, "penalty as a multiple of the exact-penalty threshold (> 1)", minimum=1.0),
        "alpha": Option(float, 10.0, "proximal step size", minimum=1e-12),
    }

    def reset(self, n: int) -> None:
        from cosolve.methods.psga.psga import check_rho_factor

        check_rho_factor(self.config["rho_factor"])  # before day 1, not on day 2
        if self.config["k"] is not None and self.config["k"] > n:
            raise UsageError(f"psga: k = {self.config['k']} is more than the market's {n} assets")
        self.iterations: list[int] = []  # PSGA iterations per day (all starts), for the benchmarks

    @property
    def k(self) -> int:
        """The most assets held: ``k``, or ``DEFAULT_K`` (at most the market's) when it is None."""
        own = self.config["k"]
        return min(DEFAULT_K, self.n) if own is None else int(own)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "k": self.k}

    def decide(self, history: np.ndarray, b_hat: np.ndarray) -> np.ndarray:
        from cosolve.methods.psga.psga import solve_period
        from cosolve.problems.portfolio import tco_objective

        c = self.config
        k = self.k
        if history.shape[0] == 0 or b_hat.sum() <= 0:
            b = np.zeros(self.n)
            b[:k] = 1.0 / k
            return b
        xp = reversal(history) if c["predictor"] == "reversal" else moving_average(history, c["window"])
        v = xp / (b_hat @ xp)
        lam = self.lam
        runs = solve_period(
            v, b_hat, eta=c["eta"], lam=lam, mu=c["mu"], k=k, rho_factor=c["rho_factor"], alpha=c["alpha"], prox=c["prox"]
        )
        self.iterations.append(sum(run.iterations for _, run in runs))
        return min((b for b, _ in runs), key=lambda b: tco_objective(b, v, b_hat, c["eta"], lam, c["mu"]))
