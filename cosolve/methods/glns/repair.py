"""The bounded sub-MIP of an LNS step: re-optimise the free columns of a neighbourhood with SCIP
or CP-SAT, warm-started at the incumbent, under a time slice, model building included (a build
that uses up the slice is abandoned).

The model is ``min sum_k c_k y_k`` over the free columns subject to ``sum_{k covers t} y_k >= 1``
for every row of the :class:`~cosolve.methods.glns.neighborhood.Subproblem`. The incumbent's
choice is known, so the search asks only for strictly cheaper choices: the sub-solver gets the
objective cutoff ``cost(start) - step`` (``step`` 1 for integral costs), and a sub-problem proven
infeasible under it proves the incumbent optimal for the neighbourhood. The repair never returns
anything worse than the incumbent's choice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cosolve.methods.glns.neighborhood import Subproblem

SUB_SOLVERS = ("scip", "cpsat")


@dataclass
class Repair:
    """``choice`` (f,) int8 over the free columns, its ``cost``, whether the sub-solver proved it
    ``optimal`` for the sub-problem (False when it stopped at its time limit), and ``built``, the
    share of the sub-MIP's model (variables and row entries) built before the slice ran out (1.0:
    all of it; below 1 the repair was abandoned and ``choice`` is the incumbent's)."""

    choice: np.ndarray
    cost: float
    optimal: bool
    built: float = 1.0


class _Abandoned(Exception):
    """The slice ran out while the model was built; ``share`` of it was."""

    def __init__(self, share: float) -> None:
        self.share = share


def repair(sub: Subproblem, costs: np.ndarray, *, time_limit: float, seed: int = 0, solver: str = "scip") -> Repair:
    """Solve the sub-problem ``sub`` (costs are the full instance's (n,)) within ``time_limit`` seconds,
    model building included."""
    started = time.perf_counter()
    sub_costs = np.asarray(costs, dtype=np.float64)[sub.free]
    start_cost = float(sub_costs @ sub.start)
    if sub.rows.size == 0:  # the fixed columns cover everything: drop every free column
        return Repair(np.zeros(sub.size, np.int8), 0.0, True)
    integral = bool(np.all(sub_costs == np.round(sub_costs)))
    cutoff = start_cost - (1.0 if integral else 1e-6 * max(1.0, abs(start_cost)))
    if solver not in SUB_SOLVERS:
        raise ValueError(f"unknown sub-solver {solver!r}; valid: {', '.join(SUB_SOLVERS)}")
    try:
        if solver == "scip":
            choice, optimal = _scip(sub, sub_costs, start_cost if integral else cutoff, time_limit, seed, started)
        else:
            choice, optimal = _cpsat(sub, sub_costs, integral, cutoff, time_limit, seed, started)
    except _Abandoned as abandoned:
        return Repair(sub.start.copy(), start_cost, False, abandoned.share)
    if choice is None or not _covers(sub, choice) or float(sub_costs @ choice) > start_cost:
        return Repair(sub.start.copy(), start_cost, optimal)
    return Repair(choice, float(sub_costs @ choice), optimal)


#: Variables or rows added between two looks at the clock while a sub-MIP is built.
_CHECK_EVERY = 1024


def _check(sub: Subproblem, variables: int, rows: int, time_limit: float, started: float) -> None:
    """Raise :class:`_Abandoned` if building the model (``variables`` added, then ``rows``) has used
    up the slice: a sub-MIP of the whole of a large instance takes seconds to build."""
    if time.perf_counter() - started > time_limit:
        entries = int(sub.sub_ptr[rows]) if rows else 0
        raise _Abandoned((variables + entries) / max(1, sub.size + int(sub.sub_ptr[-1])))


def _left(time_limit: float, started: float) -> float:
    """The sub-solver's own limit: the slice less the time spent building its model (at least 10 ms)."""
    return max(time_limit - (time.perf_counter() - started), 0.01)


def _covers(sub: Subproblem, choice: np.ndarray) -> bool:
    hits = np.add.reduceat(choice[sub.sub_idx].astype(np.int64), sub.sub_ptr[:-1]) if sub.sub_idx.size else np.zeros(0)
    empty = np.diff(sub.sub_ptr) == 0
    return bool(not empty.any() and np.all(hits >= 1))


def _scip(
    sub: Subproblem, costs: np.ndarray, limit: float, time_limit: float, seed: int, started: float
) -> tuple[np.ndarray | None, bool]:
    """SCIP accepts only solutions strictly better than ``limit`` (for an integral objective, at
    least 1 better: SCIP tightens the cutoff itself)."""
    from pyscipopt import Model, quicksum

    model = Model("lns-repair")
    model.hideOutput()
    model.setParam("randomization/randomseedshift", int(seed) % 2**31)
    model.setParam("parallel/maxnthreads", 1)
    y = []
    for k, c in enumerate(costs.tolist()):
        y.append(model.addVar(vtype="B", obj=c))
        if k % _CHECK_EVERY == 0:
            _check(sub, k, 0, time_limit, started)
    ptr, idx = sub.sub_ptr, sub.sub_idx.tolist()
    for t in range(sub.rows.size):
        model.addCons(quicksum(y[k] for k in idx[ptr[t] : ptr[t + 1]]) >= 1)
        if t % _CHECK_EVERY == 0:
            _check(sub, sub.size, t, time_limit, started)
    model.setObjlimit(limit)
    model.setParam("limits/time", _left(time_limit, started))
    model.optimize()
    status = model.getStatus()
    if status == "infeasible":  # under the cutoff: nothing cheaper exists (SCIP may still hold the start)
        return None, True
    if model.getNSols() == 0:
        return None, False
    best = model.getBestSol()
    choice = np.fromiter((model.getSolVal(best, v) > 0.5 for v in y), dtype=np.int8, count=len(y))
    return choice, status == "optimal"


def _cpsat(
    sub: Subproblem, costs: np.ndarray, integral: bool, cutoff: float, time_limit: float, seed: int, started: float
) -> tuple[np.ndarray | None, bool]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    y = []
    for k in range(sub.size):
        y.append(model.new_bool_var(f"y{k}"))
        if k % _CHECK_EVERY == 0:
            _check(sub, k, 0, time_limit, started)
    ptr, idx = sub.sub_ptr, sub.sub_idx.tolist()
    for t in range(sub.rows.size):
        model.add_bool_or([y[k] for k in idx[ptr[t] : ptr[t + 1]]])
        if t % _CHECK_EVERY == 0:
            _check(sub, sub.size, t, time_limit, started)
    objective = cp_model.LinearExpr.weighted_sum(y, costs.astype(np.int64).tolist() if integral else costs.tolist())
    model.add(objective <= (round(cutoff) if integral else cutoff))
    model.minimize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = _left(time_limit, started)
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = int(seed) % 2**31
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, status == cp_model.INFEASIBLE
    choice = np.fromiter((solver.boolean_value(v) for v in y), dtype=np.int8, count=len(y))
    return choice, status == cp_model.OPTIMAL
