"""A general mixed-integer linear program in matrix form (what an MPS/LP file states).

    minimise/maximise  c @ x + offset
    subject to         row_lower <= A @ x <= row_upper,   lower <= x <= upper,
                       x_j integer where integrality[j].

A solution is a float vector of the variable values (length ``n``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from cosolve.core.problem import Evaluation, ExactModel, Problem, build_range
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind

FEAS_TOL = 1e-6
INFINITY = 1e20  # SCIP's and HiGHS's infinity: no solution value may reach it


class MIP(Problem):
    """Arrays: ``c`` (n,), ``matrix`` (m x n, any scipy sparse), ``row_lower``/``row_upper`` (m,),
    ``lower``/``upper`` (n,) with ``±inf`` for free sides, ``integrality`` (n,) bool."""

    kind: ClassVar[str] = "mip"
    sense: ClassVar[Sense] = Sense.MINIMIZE  # overridden per instance

    def __init__(
        self,
        c: np.ndarray,
        matrix: sp.sparray | sp.spmatrix,
        row_lower: np.ndarray,
        row_upper: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        integrality: np.ndarray,
        *,
        sense: Sense = Sense.MINIMIZE,
        offset: float = 0.0,
        var_names: list[str] | None = None,
        row_names: list[str] | None = None,
        name: str = "",
    ) -> None:
        self.c = np.asarray(c, dtype=np.float64)
        n = len(self.c)
        self.matrix = sp.csr_array(matrix, dtype=np.float64)
        m = self.matrix.shape[0]
        if self.matrix.shape[1] != n:
            raise InputError(f"mip: matrix has {self.matrix.shape[1]} columns but there are {n} variables")
        self.row_lower = np.asarray(row_lower, dtype=np.float64).reshape(m)
        self.row_upper = np.asarray(row_upper, dtype=np.float64).reshape(m)
        self.lower = np.asarray(lower, dtype=np.float64).reshape(n)
        self.upper = np.asarray(upper, dtype=np.float64).reshape(n)
        self.integrality = np.asarray(integrality, dtype=bool).reshape(n)
        if n == 0:
            raise InputError("mip: the model has no variables")
        if (self.lower > self.upper).any():
            j = int(np.flatnonzero(self.lower > self.upper)[0])
            raise InputError(f"mip is infeasible: variable {self._var(j, var_names)} has lower bound above upper bound")
        self.sense = sense
        self.offset = float(offset)
        self.var_names = var_names or [f"x{j + 1}" for j in range(n)]
        self.row_names = row_names or [f"c{i + 1}" for i in range(m)]
        self.name = name

    @staticmethod
    def _var(j: int, names: list[str] | None) -> str:
        return names[j] if names else f"x{j + 1}"

    @property
    def n(self) -> int:
        return len(self.c)

    @property
    def m(self) -> int:
        return self.matrix.shape[0]

    def sizes(self) -> dict[str, int]:
        return {
            "variables": self.n,
            "integer": int(self.integrality.sum()),
            "constraints": self.m,
            "nonzeros": int(self.matrix.nnz),
        }

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        x = np.asarray(solution, dtype=np.float64)
        if x.shape != (self.n,):
            raise InputError(f"mip solution must have one value per variable ({self.n}), got shape {x.shape}")
        objective = float(self.c @ x + self.offset)
        tol = FEAS_TOL * np.maximum(1.0, np.abs(x))
        for bad, what in (
            (~(np.abs(x) < INFINITY), "is not finite"),
            (x < self.lower - tol, "is below its lower bound"),
            (x > self.upper + tol, "is above its upper bound"),
            (self.integrality & (np.abs(x - np.round(x)) > FEAS_TOL), "is not integral"),
        ):
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                return Evaluation(objective, False, f"variable {self.var_names[j]} = {x[j]:g} {what}")
        activity = self.matrix @ x
        rtol = FEAS_TOL * np.maximum(1.0, np.abs(activity))
        for bad, what in ((activity < self.row_lower - rtol, "below"), (activity > self.row_upper + rtol, "above")):
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                return Evaluation(
                    objective, False, f"constraint {self.row_names[i]} has activity {activity[i]:g} {what} its bound"
                )
        return Evaluation(objective, True)

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        """``name value`` for every nonzero variable."""
        x = np.asarray(solution, dtype=float)
        return [f"{self.var_names[j]} {x[j]:.17g}" for j in np.flatnonzero(x)]

    def scip_model(self) -> ExactModel:
        from pyscipopt import Model, quicksum

        model = Model(self.name or "mip")

        def clip(v: float) -> float | None:
            return None if not np.isfinite(v) else float(v)

        x = [
            model.addVar(
                self.var_names[j],
                vtype="I" if self.integrality[j] else "C",
                lb=clip(self.lower[j]),
                ub=clip(self.upper[j]),
                obj=float(self.c[j]),
            )
            for j in build_range(self.n)
        ]
        a = self.matrix
        for i in build_range(self.m, every=16):
            cols, vals = a.indices[a.indptr[i] : a.indptr[i + 1]], a.data[a.indptr[i] : a.indptr[i + 1]]
            expr = quicksum(float(v) * x[j] for j, v in zip(cols.tolist(), vals.tolist(), strict=False))
            lo, hi = self.row_lower[i], self.row_upper[i]
            if lo == hi:
                model.addCons(expr == float(lo), name=self.row_names[i])
            elif np.isfinite(lo) and np.isfinite(hi):
                model.addCons(float(lo) <= (expr <= float(hi)), name=self.row_names[i])
            elif np.isfinite(lo):
                model.addCons(expr >= float(lo), name=self.row_names[i])
            elif np.isfinite(hi):
                model.addCons(expr <= float(hi), name=self.row_names[i])
        if self.offset:
            model.addObjoffset(self.offset)
        if self.sense is Sense.MAXIMIZE:
            model.setMaximize()
        else:
            model.setMinimize()
        return ExactModel(model, x, lambda values: np.asarray(values, dtype=np.float64), notes="objective offset included")

    def cpsat_refusal(self) -> str | None:
        """CP-SAT needs every variable integer and finite, and integer constraint coefficients."""
        if not self.integrality.all():
            return "cpsat needs an all-integer model; this MIP has continuous variables (use scip)"
        if not (np.isfinite(self.lower).all() and np.isfinite(self.upper).all()):
            return "cpsat needs finite bounds on every variable (use scip)"
        if not np.all(self.matrix.data == np.round(self.matrix.data)):
            return "cpsat needs integer constraint coefficients (use scip)"
        return None

    def cpsat_model(self) -> ExactModel:
        """The CP-SAT model; an :class:`InputError` where :meth:`cpsat_refusal` says why there is none."""
        from ortools.sat.python import cp_model

        why = self.cpsat_refusal()
        if why is not None:
            raise InputError(why)
        a = self.matrix
        model = cp_model.CpModel()
        x = [
            model.new_int_var(int(np.ceil(self.lower[j] - FEAS_TOL)), int(np.floor(self.upper[j] + FEAS_TOL)), self.var_names[j])
            for j in build_range(self.n)
        ]
        for i in build_range(self.m, every=16):
            cols, vals = a.indices[a.indptr[i] : a.indptr[i + 1]], a.data[a.indptr[i] : a.indptr[i + 1]]
            expr = cp_model.LinearExpr.weighted_sum([x[j] for j in cols.tolist()], vals.astype(np.int64).tolist())
            lo, hi = self.row_lower[i], self.row_upper[i]
            lo_i = int(np.ceil(lo - FEAS_TOL)) if np.isfinite(lo) else cp_model.INT_MIN
            hi_i = int(np.floor(hi + FEAS_TOL)) if np.isfinite(hi) else cp_model.INT_MAX
            model.add_linear_constraint(expr, lo_i, hi_i)
        integral = np.all(self.c == np.round(self.c))
        coeffs = self.c.astype(np.int64).tolist() if integral else self.c.tolist()
        objective = cp_model.LinearExpr.weighted_sum(x, coeffs)
        if self.sense is Sense.MAXIMIZE:
            model.maximize(objective)
        else:
            model.minimize(objective)
        return ExactModel(model, x, lambda values: np.asarray(values, dtype=np.float64), objective_offset=self.offset)


register_kind(
    ProblemKind(
        "mip",
        "mixed-integer program",
        formats=("mps", "lp"),
        exact=frozenset({"scip", "cpsat"}),
        default_method="scip",
        default_why="the one general MIP solver here: cpsat takes all-integer models only",
    )
)
