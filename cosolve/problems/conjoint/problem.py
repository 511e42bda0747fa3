"""The best single profile of a conjoint outcome model: one level per factor (kind ``conjoint``).

Given an identity-link outcome model (:class:`cosolve.problems.conjoint.model.OutcomeModel`), maximise
``offset + phi(x) . theta`` (``offset``: :meth:`~cosolve.problems.conjoint.model.OutcomeModel.value_offset`)
over profiles ``x`` (one level per factor, main effects and two-way interactions): the
pure-strategy limit of the average-case policy as its penalty goes to 0. A solution is the int
vector (D,) of level codes.

Exact models: binaries ``y[d][l]`` with exactly one per factor, and for every interaction with a
non-zero coefficient the product ``w = y[d][l] y[e][m]`` (linearised for SCIP by ``w <= y``,
``w >= y + y' - 1``; a Boolean AND for CP-SAT). ``offset`` is the objective offset.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, ExactModel, Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.conjoint.model import interaction_blocks
from cosolve.problems.registry import ProblemKind, register_kind


class BestProfile(Problem):
    """``model``: an identity-link :class:`~cosolve.problems.conjoint.model.OutcomeModel`."""

    kind: ClassVar[str] = "conjoint"
    sense: ClassVar[Sense] = Sense.MAXIMIZE

    def __init__(self, model, *, name: str = "") -> None:
        if model.link != "identity":
            raise InputError("conjoint: the best-profile problem needs an identity-link outcome model")
        self.model = model
        self.design = model.design
        self.name = name

    def sizes(self) -> dict[str, int]:
        return {
            "factors": self.design.n_factors,
            "levels": int(sum(self.design.sizes)),
            "interactions": int(np.count_nonzero(self.model.theta[self.design.n_main :])),
        }

    def value(self, x: np.ndarray) -> float:
        return float(
            self.model.value_offset() + self.design.features(np.asarray(x)[None], self.model.interactions)[0] @ self.model.theta
        )

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        x = np.asarray(solution)
        D = self.design.n_factors
        if x.shape != (D,) or not np.issubdtype(x.dtype, np.integer):
            raise InputError(f"conjoint solution must be {D} integer level codes, got shape {x.shape}")
        bad = [d for d in range(D) if not 0 <= x[d] < self.design.sizes[d]]
        if bad:
            d = bad[0]
            return Evaluation(np.nan, False, f"factor {self.design.factors[d]} has no level {x[d]}")
        return Evaluation(self.value(x), True)

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        return [f"{f}\t{lv[int(c)]}" for f, lv, c in zip(self.design.factors, self.design.levels, solution, strict=True)]

    def _terms(self):
        """``(main, inter)``: main[d][l] coefficients (l >= 1) and the non-zero interactions
        ``(d, l, e, m, coef)``."""
        o, theta = self.design.main_offsets, self.model.theta
        main = [theta[o[d] : o[d + 1]] for d in range(self.design.n_factors)]
        inter = [
            (d, i + 1, e, j + 1, float(g[i, j]))
            for (d, e), g in interaction_blocks(self.model).items()
            for i, j in zip(*np.nonzero(g), strict=True)
        ]
        return main, inter

    def _decode(self, values: np.ndarray) -> np.ndarray:
        cuts = np.cumsum(self.design.sizes)[:-1]
        return np.array([int(np.argmax(block)) for block in np.split(values, cuts)], dtype=np.int64)

    def scip_model(self) -> ExactModel:
        from pyscipopt import Model, quicksum

        main, inter = self._terms()
        model = Model(self.name or "conjoint")
        y = [[model.addVar(f"y{d}_{l}", vtype="B") for l in range(s)] for d, s in enumerate(self.design.sizes)]  # noqa: E741
        for d, row in enumerate(y):
            model.addCons(quicksum(row) == 1, name=f"one{d}")
        objective = quicksum(float(main[d][l - 1]) * y[d][l] for d in range(len(y)) for l in range(1, len(y[d])))  # noqa: E741
        for k, (d, l, e, m, coef) in enumerate(inter):  # noqa: E741
            w = model.addVar(f"w{k}", lb=0.0, ub=1.0)
            model.addCons(w <= y[d][l])
            model.addCons(w <= y[e][m])
            model.addCons(w >= y[d][l] + y[e][m] - 1)
            objective += coef * w
        model.setObjective(objective, "maximize")
        return ExactModel(model, [v for row in y for v in row], self._decode, objective_offset=self.model.value_offset())

    def cpsat_model(self) -> ExactModel:
        from ortools.sat.python import cp_model

        main, inter = self._terms()
        model = cp_model.CpModel()
        y = [[model.new_bool_var(f"y{d}_{l}") for l in range(s)] for d, s in enumerate(self.design.sizes)]  # noqa: E741
        for row in y:
            model.add_exactly_one(row)
        terms = [(y[d][l], float(main[d][l - 1])) for d in range(len(y)) for l in range(1, len(y[d]))]  # noqa: E741
        for k, (d, l, e, m, coef) in enumerate(inter):  # noqa: E741
            w = model.new_bool_var(f"w{k}")
            model.add_bool_and([y[d][l], y[e][m]]).only_enforce_if(w)
            model.add_bool_or([y[d][l].Not(), y[e][m].Not(), w])
            terms.append((w, coef))
        model.maximize(cp_model.LinearExpr.weighted_sum([v for v, _ in terms], [c for _, c in terms]))
        return ExactModel(model, [v for row in y for v in row], self._decode, objective_offset=self.model.value_offset())


def _tiny() -> BestProfile:
    from cosolve.problems.conjoint.design import Design
    from cosolve.problems.conjoint.model import OutcomeModel

    design = Design.uniform(["a", "b"], [["0", "1"], ["0", "1", "2"]])
    params = np.array([0.5, 0.1, -0.05, 0.02, 0.03, -0.04])  # alpha, 3 main effects, 2 interactions
    return BestProfile(OutcomeModel(design, "identity", True, params, np.eye(6)), name="warm-up")


register_kind(
    ProblemKind(
        "conjoint",
        "best conjoint profile",
        tiny=_tiny,
        exact=frozenset({"scip", "cpsat"}),
        default_method="scip",
        default_why="not benchmarked: the exact methods (scip, cpsat) are the only ones for it",
    )
)
