"""One period of K-sparse transaction-cost portfolio selection (K-sparse TCO).

Data: ``v`` (n,) predicted (normalised) price relatives, ``h`` (n,) the previous portfolio after
price drift (on the simplex, or all zeros when starting in cash), and the scalars ``eta`` (return
weight), ``lam`` (L1 transaction-cost weight), ``mu`` (optional quadratic proximity weight) and
``k`` (most assets held). A solution is a portfolio ``b`` (n,) float64 with

    objective  F(b) = -eta <v, b> + lam ||b - h||_1 + mu/2 ||b - h||^2   (minimised),

feasible when it is on the simplex (entries >= -1e-9, sum within 1e-7 of 1) and holds at most
``k`` entries above ``HOLDING_EPS``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, ExactModel, Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind

#: Entries at or below this count as not held.
HOLDING_EPS = 1e-9
_SUM_TOL = 1e-7


def tco_objective(b: np.ndarray, v: np.ndarray, h: np.ndarray, eta: float, lam: float, mu: float) -> float:
    """``F(b) = -eta <v, b> + lam ||b - h||_1 + mu/2 ||b - h||^2`` for ``b, v, h`` (n,)."""
    d = b - h
    return float(-eta * (v @ b) + lam * np.abs(d).sum() + 0.5 * mu * (d @ d))


class PortfolioPeriod(Problem):
    """``v``, ``h``: (n,) float arrays; ``eta > 0``, ``lam >= 0``, ``mu >= 0``, ``1 <= k <= n``."""

    kind: ClassVar[str] = "portfolio"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(
        self, v: np.ndarray, h: np.ndarray, *, k: int, eta: float = 10.0, lam: float = 0.025, mu: float = 0.0, name: str = ""
    ) -> None:
        v = np.asarray(v, dtype=np.float64)
        h = np.asarray(h, dtype=np.float64)
        if v.ndim != 1 or v.size == 0:
            raise InputError(f"portfolio: predictions v must be a non-empty vector, got shape {v.shape}")
        if h.shape != v.shape:
            raise InputError(f"portfolio: previous portfolio h has shape {h.shape}, predictions have {v.shape}")
        if not (np.all(np.isfinite(v)) and np.all(np.isfinite(h))):
            raise InputError("portfolio: v and h must be finite")
        if (h < -HOLDING_EPS).any() or (h.sum() > 1 + _SUM_TOL):
            raise InputError("portfolio: previous portfolio h must be non-negative with sum at most 1")
        if not 1 <= int(k) <= v.size or int(k) != k:
            raise InputError(f"portfolio: k must be an integer in 1..{v.size}, got {k}")
        if not (eta > 0 and lam >= 0 and mu >= 0) or not all(np.isfinite([eta, lam, mu])):
            raise InputError(f"portfolio: need eta > 0, lam >= 0, mu >= 0 (got {eta}, {lam}, {mu})")
        self.v, self.h = v, np.clip(h, 0.0, None)
        self.k, self.eta, self.lam, self.mu = int(k), float(eta), float(lam), float(mu)
        self.name = name

    @property
    def n(self) -> int:
        return self.v.size

    def sizes(self) -> dict[str, int]:
        return {"assets": self.n, "k": self.k}

    def info(self) -> dict:
        return {**super().info(), "eta": self.eta, "lam": self.lam, "mu": self.mu}

    def objective(self, b: np.ndarray) -> float:
        return tco_objective(b, self.v, self.h, self.eta, self.lam, self.mu)

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        b = np.asarray(solution, dtype=np.float64)
        if b.shape != (self.n,):
            raise InputError(f"portfolio solution must be a vector of length {self.n}, got shape {b.shape}")
        if not np.all(np.isfinite(b)):
            return Evaluation(np.inf, False, "portfolio has a non-finite weight")
        value = self.objective(b)
        if (b < -HOLDING_EPS).any():
            i = int(np.argmin(b))
            return Evaluation(value, False, f"weight of asset {i} is negative ({b[i]:.3g})")
        if abs(b.sum() - 1.0) > _SUM_TOL:
            return Evaluation(value, False, f"weights sum to {b.sum():.10g}, not 1")
        held = int((b > HOLDING_EPS).sum())
        if held > self.k:
            return Evaluation(value, False, f"holds {held} assets, more than k = {self.k}")
        return Evaluation(value, True)

    def clean(self, b: np.ndarray, held: np.ndarray | None = None) -> np.ndarray:
        """``b`` with entries outside ``held`` (mask; default: those above ``HOLDING_EPS``) and
        negative ones set to 0, rescaled to sum 1: a solver's portfolio within its tolerances
        made exactly feasible."""
        b = np.clip(np.asarray(b, dtype=np.float64), 0.0, None)
        if held is not None:
            b = np.where(held, b, 0.0)
        b[b <= HOLDING_EPS] = 0.0
        total = b.sum()
        return b / total if total > 0 else b

    def scip_model(self) -> ExactModel:
        """MIQP (a MILP when ``mu = 0``): ``b_i`` in [0, 1] with ``sum b = 1``, binaries
        ``z_i >= b_i`` with ``sum z <= k``, ``d_i >= |b_i - h_i|`` for the L1 term and, when
        ``mu > 0``, ``s >= ||b - h||^2`` (a convex quadratic constraint) for the quadratic term."""
        from pyscipopt import Model, quicksum

        n, h = self.n, self.h.tolist()
        model = Model(self.name or "portfolio")
        b = [model.addVar(f"b{i}", lb=0.0, ub=1.0, obj=-self.eta * float(self.v[i])) for i in range(n)]
        z = [model.addVar(f"z{i}", vtype="B") for i in range(n)]
        d = [model.addVar(f"d{i}", lb=0.0, obj=self.lam) for i in range(n)]
        model.addCons(quicksum(b) == 1, name="budget")
        model.addCons(quicksum(z) <= self.k, name="cardinality")
        for i in range(n):
            model.addCons(b[i] <= z[i], name=f"hold{i}")
            model.addCons(d[i] >= b[i] - h[i], name=f"buy{i}")
            model.addCons(d[i] >= h[i] - b[i], name=f"sell{i}")
        if self.mu > 0:
            s = model.addVar("s", lb=0.0, obj=0.5 * self.mu)
            model.addCons(quicksum((b[i] - h[i]) * (b[i] - h[i]) for i in range(n)) <= s, name="proximity")
        model.setMinimize()
        # d and s need not be tight in SCIP's heuristic solutions: the decoded portfolio scores lower.
        return ExactModel(model, b + z, self._decode, objective_is_exact=False, thread_safe=self.mu == 0)

    def _decode(self, values: np.ndarray) -> np.ndarray:
        b, z = values[: self.n], values[self.n :]
        return self.clean(b, z > 0.5)


register_kind(
    ProblemKind(
        "portfolio",
        "K-sparse transaction-cost portfolio (one period)",
        tiny=lambda: PortfolioPeriod(
            np.array([1.02, 0.99, 1.0, 1.01]), np.array([0.5, 0.5, 0.0, 0.0]), k=2, mu=1.0, name="warm-up"
        ),
        exact=frozenset({"scip"}),
        default_method="psga",
        default_why="bench/results/psga-period/report.md: SCIP's proven optimum within 1e-6 on every instance, 17-434x faster",
    )
)
