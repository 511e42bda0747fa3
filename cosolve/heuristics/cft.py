"""The three-phase Lagrangian heuristic of Caprara, Fischetti & Toth (1999) and their refinement
procedure, on a core of the set cover.

*Three-phase* (on an instance and its multipliers): (1) subgradient optimisation of the
Lagrangian bound; (2) CFT's Lagrangian greedy at the multipliers of a further short subgradient
run (:func:`cosolve.heuristics.lagrangian.lagrangian_heuristic`); (3) column fixing: the first
``max(1, |rows| / 200)`` columns the greedy takes at the best multipliers are fixed to 1, and
the phases repeat on the residual instance, until its bound shows that no cheaper cover is left
or every row is covered.

*Refinement* (around the best cover ``S``): each column of ``S`` gets the score
``delta_j = max(r_j, 0) + sum_{i in column j} u_i (|S_i| - 1) / |S_i|`` (its reduced cost plus its
share of the rows ``S`` over-covers, ``S_i`` the columns of ``S`` covering row ``i``); the columns of
least score are fixed until they cover a fraction ``pi`` of the rows, and three-phase re-solves the
rest from perturbed multipliers. ``pi`` starts at 0 (a plain three-phase), then 0.3, and grows by
10% per round; it starts over at 0.3 when nothing is left to free.

Everything runs on a *core*: the columns of least reduced cost at the multipliers of a
Lagrangian bound over the whole instance, plus the incumbent's columns. Costs (n,) float64,
matrices scipy CSR/CSC with 0/1 entries, multipliers (m,) float64, covers (n,) int8.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cosolve.heuristics.lagrangian import (
    LagrangianBound,
    core_kernel,
    lagrangian_bound,
    lagrangian_greedy_kernel,
    lagrangian_heuristic,
)
from cosolve.heuristics.setcover import index_arrays, remove_redundant_kernel


@dataclass
class RefineStats:
    """``rounds`` refinement rounds, ``fixings`` column-fixing steps (three-phase iterations) and
    ``improved`` rounds that found a cheaper cover; ``core_columns`` the size of the core."""

    rounds: int = 0
    fixings: int = 0
    improved: int = 0
    core_columns: int = 0


class _Core:
    """The core instance: columns ``cols`` (k,) of the whole one, their costs and both matrix forms."""

    def __init__(self, costs: np.ndarray, csc: sp.csc_array, cols: np.ndarray) -> None:
        self.cols = cols
        self.costs = np.ascontiguousarray(costs[cols])
        self.csc = sp.csc_array(csc[:, cols])
        self.csr = sp.csr_array(self.csc)
        self.m = self.csc.shape[0]

    def cost_order(self) -> np.ndarray:
        return np.argsort(-self.costs, kind="stable").astype(np.int64)


def _cannot_improve(lower: float, best: float, integral: bool) -> bool:
    """True when a lower bound ``lower`` leaves no cover strictly cheaper than ``best``."""
    if integral:
        return np.ceil(lower - 1e-6) >= best - 1e-9
    return lower >= best - 1e-9 * max(1.0, abs(best))


def three_phase(
    core: _Core,
    fixed: np.ndarray,
    u: np.ndarray,
    *,
    best: float,
    integral: bool,
    stats: RefineStats,
    stop: Callable[[], bool],
    subgradient_iterations: int = 300,
    heuristic_iterations: int = 100,
) -> tuple[np.ndarray | None, float]:
    """Three-phase on the core with the columns ``fixed`` (k,) bool already in the cover.

    ``u`` (m,) are the starting multipliers (only the rows left uncovered are used), ``best`` the
    cost to beat. Returns the cheapest cover found (k,) int8 costing less than ``best``, or
    ``(None, best)``."""
    fixed = fixed.copy()
    order = core.cost_order()
    c_ptr, c_idx = index_arrays(core.csc)
    found: np.ndarray | None = None
    u = u.copy()
    while not stop():
        fixed_cost = float(core.costs[fixed].sum())
        covered = np.asarray(core.csr @ fixed.astype(np.int64)) > 0
        rows = np.flatnonzero(~covered)
        if rows.size == 0:
            x = fixed.astype(np.int8)
            remove_redundant_kernel(c_ptr, c_idx, core.m, x, order)
            cost = float(core.costs @ x)
            if cost < best - 1e-9:
                found, best = x, cost
            break
        res_rows = sp.csc_array(core.csr[rows])
        touches = np.diff(res_rows.indptr) > 0
        cols = np.flatnonzero(touches & ~fixed)
        res_csc = sp.csc_array(res_rows[:, cols])
        res_csr = sp.csr_array(res_csc)
        res_costs = core.costs[cols]
        if np.any(np.diff(res_csr.indptr) == 0):
            break  # a row no free column covers: nothing feasible below this fixing
        lag = lagrangian_bound(
            res_costs, res_csr, res_csc, upper=max(best - fixed_cost, 1e-9), iterations=subgradient_iterations,
            multipliers=u[rows], step=0.1, core_min_columns=1 << 62, stop=stop,
        )  # fmt: skip
        stats.fixings += 1
        if _cannot_improve(fixed_cost + lag.bound, best, integral):
            break
        h, _ = lagrangian_heuristic(
            res_costs, res_csr, res_csc, lag, upper=np.inf, iterations=heuristic_iterations, stop=stop
        )  # fmt: skip
        if h is not None:
            x = fixed.astype(np.int8)
            x[cols[h == 1]] = 1
            remove_redundant_kernel(c_ptr, c_idx, core.m, x, order)
            cost = float(core.costs @ x)
            if cost < best - 1e-9:
                found, best = x, cost
        r_row_ptr, r_row_idx, r_col_ptr, r_col_idx = index_arrays(res_csr, res_csc)
        picked = np.empty(cols.size + 1, np.int64)
        greedy = np.zeros(cols.size, np.int8)
        lagrangian_greedy_kernel(res_costs, r_row_ptr, r_row_idx, r_col_ptr, r_col_idx, lag.multipliers, greedy, picked)
        taken = picked[: np.argmax(picked < 0)] if np.any(picked < 0) else picked
        n_fix = max(1, rows.size // 200)
        if taken.size == 0:
            break
        fixed[cols[taken[:n_fix]]] = True
        u[rows] = lag.multipliers
    return found, best


def refine(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    lag: LagrangianBound,
    x: np.ndarray,
    *,
    stop: Callable[[], bool],
    rng: np.random.Generator,
    on_improve: Callable[[np.ndarray, float], None] | None = None,
    core_per_row: int = 10,
    pi_start: float = 0.3,
    pi_growth: float = 1.1,
    perturbation: float = 0.1,
    max_rounds: int = 1 << 30,
    stats: RefineStats | None = None,
) -> np.ndarray:
    """CFT's refinement around the cover ``x`` (n,) int8 of ``(costs, csr)`` until ``stop()``.

    ``lag`` is a Lagrangian bound of the whole instance: its reduced costs choose the core
    (``core_per_row`` columns per row plus all of negative reduced cost) and its multipliers,
    scaled by ``1 + U(-perturbation, perturbation)`` per row, start every three-phase.
    ``on_improve(x, cost)`` sees every cheaper cover (whole-instance indices). Stops at ``stop()``,
    after ``max_rounds`` rounds, or after a whole cycle of ``pi`` (0.3 up to 1) without a cheaper
    cover. Returns the best cover (n,) int8; it is never worse than ``x``."""
    stats = RefineStats() if stats is None else stats
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    integral = bool(np.all(costs == np.round(costs)))
    row_ptr, row_idx = index_arrays(csr)
    x = np.array(x, dtype=np.int8, copy=True)
    cols = np.union1d(core_kernel(lag.reduced, row_ptr, row_idx, core_per_row, 0.0), np.flatnonzero(x)).astype(np.int64)
    core = _Core(costs, csc, cols)
    stats.core_columns = int(cols.size)
    position = np.full(costs.size, -1, np.int64)
    position[cols] = np.arange(cols.size)
    best_x = np.zeros(cols.size, np.int8)
    best_x[position[np.flatnonzero(x)]] = 1
    best = float(core.costs @ best_x)
    reduced = lag.reduced[cols]
    pi = 0.0
    cycle = 1 + int(np.ceil(np.log(1.0 / pi_start) / np.log(pi_growth)))  # rounds of pi from 0 to >= 1
    stall = 0
    while not stop() and stats.rounds < max_rounds and stall < cycle:
        selected = np.flatnonzero(best_x)
        sel_csc = core.csc[:, selected]
        count = np.asarray(core.csr @ best_x.astype(np.int64), dtype=np.float64)
        share = np.where(count > 0, (count - 1.0) / np.maximum(count, 1.0), 0.0) * lag.multipliers
        delta = np.maximum(reduced[selected], 0.0) + sel_csc.T @ share
        fixed = np.zeros(cols.size, np.bool_)
        if pi > 0.0:
            covered = np.zeros(core.m, np.bool_)
            target = pi * core.m
            for k in np.argsort(delta, kind="stable"):
                if np.count_nonzero(covered) >= target:
                    break
                fixed[selected[k]] = True
                covered[sel_csc.indices[sel_csc.indptr[k] : sel_csc.indptr[k + 1]]] = True
        u = lag.multipliers * (1.0 + rng.uniform(-perturbation, perturbation, core.m))
        found, cost = three_phase(core, fixed, u, best=best, integral=integral, stats=stats, stop=stop)
        stats.rounds += 1
        stall += 1
        if found is not None:
            stall = 0
            stats.improved += 1
            best_x, best = found, cost
            if on_improve is not None:
                on_improve(_expand(found, cols, costs.size), best)
        pi = pi_start if pi == 0.0 else pi * pi_growth
        if pi >= 1.0:
            pi = pi_start
    return _expand(best_x, cols, costs.size)


def _expand(core_x: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, np.int8)
    out[cols[core_x == 1]] = 1
    return out
