"""The three-phase Lagrangian heuristic of Caprara, Fischetti & Toth (1999) and their refinement
procedure.

*Three-phase* (on an instance with some columns fixed in the cover, and starting multipliers):
(1) subgradient optimisation of the Lagrangian bound of the *residual* instance (the rows the
fixed columns leave uncovered, the columns that touch them) on a core of it re-priced over all
its columns every 100 steps (CFT's dynamic core,
:func:`cosolve.heuristics.lagrangian.lagrangian_bound`); (2) CFT's Lagrangian greedy along a
short subgradient run from those multipliers
(:func:`cosolve.heuristics.lagrangian.lagrangian_heuristic`), each cover completed by the fixed
columns; (3) column fixing: the columns of reduced cost below -0.001 whose rows no other such
column covers, then the first ``max(1, m / 200)`` columns the greedy takes after them (``m`` the
rows of the whole instance); multipliers perturbed by up to 10% per row, and the phases repeat on
the smaller residual until its bound shows that no cheaper cover is left or every row is covered.

*Refinement* (around the best cover ``S``): each column of ``S`` gets the score
``delta_j = max(r_j, 0) + sum_{i in column j} u_i (|S_i| - 1) / |S_i|`` (its reduced cost plus its
share of the rows ``S`` over-covers, ``S_i`` the columns of ``S`` covering row ``i``); the columns of
least score are fixed until they cover a fraction ``pi`` of the rows, and three-phase re-solves the
rest from perturbed multipliers. ``pi`` starts at 0 (a plain three-phase), then 0.3, and grows by
10% per round; it starts over at 0.3 when nothing is left to free.

The residual is priced over *every* column left, not over a core chosen once at the whole
instance's multipliers: after fixing, the reduced costs change and a fixed core misses the columns
the residual needs (on the rail-scattered set one three-phase from the fixed core ends 3-6% above
the priced one; ``refine(core_per_row=10)`` is that ablation).
Costs (n,) float64, matrices scipy CSR/CSC with 0/1 entries, multipliers (m,) float64, covers
(n,) int8.
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
from cosolve.heuristics.setcover import remove_redundant_kernel
from cosolve.heuristics.sparse_index import index_arrays

#: Reduced cost below which CFT's column fixing takes a column (if no other such column shares a row).
FIX_THRESHOLD = -0.001


@dataclass
class RefineStats:
    """``rounds`` refinement rounds, ``fixings`` column-fixing steps (three-phase iterations) and
    ``improved`` rounds that found a cheaper cover."""

    rounds: int = 0
    fixings: int = 0
    improved: int = 0


class Residual:
    """A set cover restricted to some rows and columns of a whole one: ``costs`` (k,), ``csr`` and
    ``csc`` (r x k), ``rows`` (r,) and ``cols`` (k,) int64 their indices in the whole instance."""

    def __init__(self, costs: np.ndarray, csr: sp.csr_array, csc: sp.csc_array, rows: np.ndarray, cols: np.ndarray) -> None:
        self.costs, self.csr, self.csc, self.rows, self.cols = costs, csr, csc, rows, cols

    @classmethod
    def whole(cls, costs: np.ndarray, csr: sp.csr_array, csc: sp.csc_array) -> Residual:
        m, n = csr.shape
        return cls(costs, sp.csr_array(csr), sp.csc_array(csc), np.arange(m, dtype=np.int64), np.arange(n, dtype=np.int64))

    def columns(self, keep: np.ndarray) -> Residual:
        """The same rows with only the columns ``keep`` (local indices, int64)."""
        csc = sp.csc_array(self.csc[:, keep])
        return Residual(self.costs[keep], sp.csr_array(csc), csc, self.rows, self.cols[keep])

    @property
    def m(self) -> int:
        return int(self.rows.size)

    def without(self, taken: np.ndarray) -> Residual:
        """The residual once the columns ``taken`` (local indices, int64) are in the cover: the
        rows they leave uncovered and the other columns that touch one of them."""
        mark = np.zeros(self.cols.size, np.int64)
        mark[taken] = 1
        keep_rows = np.flatnonzero(np.asarray(self.csr @ mark) == 0)
        sub = self.csr[keep_rows]
        touches = np.bincount(sub.indices, minlength=self.cols.size) > 0
        touches[taken] = False
        keep_cols = np.flatnonzero(touches)
        csc = sp.csc_array(sub[:, keep_cols])
        return Residual(self.costs[keep_cols], sp.csr_array(csc), csc, self.rows[keep_rows], self.cols[keep_cols])


def _cannot_improve(lower: float, best: float, integral: bool) -> bool:
    """True when a lower bound ``lower`` leaves no cover strictly cheaper than ``best``."""
    if integral:
        return np.ceil(lower - 1e-6) >= best - 1e-9
    return lower >= best - 1e-9 * max(1.0, abs(best))


def columns_to_fix(res: Residual, lag: LagrangianBound, count: int, *, per_row: int = 5) -> np.ndarray:
    """CFT's column fixing on the residual ``res`` at ``lag``'s multipliers: the columns of reduced
    cost below :data:`FIX_THRESHOLD` that share no row with another such column, then the first
    ``count`` columns the Lagrangian greedy takes to complete them (run on the core of the
    ``per_row`` columns of least reduced cost per row and those of negative reduced cost). Local
    indices (int64)."""
    negative = (lag.reduced < FIX_THRESHOLD).astype(np.int64)
    per_row_count = np.asarray(res.csr @ negative)
    overlapping = np.asarray(res.csc.T @ (per_row_count > 1).astype(np.int64)) > 0
    alone = np.flatnonzero((negative == 1) & ~overlapping)
    row_ptr, row_idx = index_arrays(res.csr)
    local = core_kernel(lag.reduced, row_ptr, row_idx, per_row, 0.0)
    core = res.columns(local)
    c_row_ptr, c_row_idx, c_col_ptr, c_col_idx = index_arrays(core.csr, core.csc)
    position = np.full(res.cols.size, -1, np.int64)
    position[local] = np.arange(local.size)
    x = np.zeros(core.cols.size, np.int8)
    x[position[alone]] = 1  # every negative column is in the core
    picked = np.empty(core.cols.size + 1, np.int64)
    lagrangian_greedy_kernel(core.costs, c_row_ptr, c_row_idx, c_col_ptr, c_col_idx, lag.multipliers, x, picked)
    taken = picked[: np.argmax(picked < 0)] if np.any(picked < 0) else picked
    return np.concatenate([alone, local[taken[:count]]]).astype(np.int64)


def three_phase(
    whole: Residual,
    fixed: np.ndarray,
    u: np.ndarray,
    *,
    best: float,
    integral: bool,
    stats: RefineStats,
    stop: Callable[[], bool],
    rng: np.random.Generator,
    perturbation: float = 0.1,
    subgradient_iterations: int = 300,
    heuristic_iterations: int = 100,
) -> tuple[np.ndarray | None, float]:
    """Three-phase on the instance ``whole`` (all m rows of a set cover, some or all of its columns)
    with the columns ``fixed`` (k,) bool already in the cover; columns are indexed as in ``whole``.

    ``u`` (m,) are the starting multipliers (only the rows left uncovered are used), ``best`` the
    cost to beat. Returns the cheapest cover found (k,) int8 costing less than ``best``, or
    ``(None, best)``."""
    whole = Residual(whole.costs, whole.csr, whole.csc, whole.rows, np.arange(whole.cols.size, dtype=np.int64))
    fixed = fixed.copy()
    u = u.copy()
    c_ptr, c_idx = index_arrays(whole.csc)
    order = np.argsort(-whole.costs, kind="stable").astype(np.int64)
    per_step = max(1, whole.m // 200)
    found: np.ndarray | None = None

    def complete(x: np.ndarray) -> None:
        nonlocal found, best
        remove_redundant_kernel(c_ptr, c_idx, whole.m, x, order)
        cost = float(whole.costs @ x)
        if cost < best - 1e-9:
            found, best = x, cost

    res = whole.without(np.flatnonzero(fixed))
    while not stop():
        fixed_cost = float(whole.costs[fixed].sum())
        if res.m == 0:
            complete(fixed.astype(np.int8))
            break
        if np.any(np.diff(res.csr.indptr) == 0):
            break  # a row no free column covers: nothing feasible below this fixing
        lag = lagrangian_bound(
            res.costs, res.csr, res.csc, upper=max(best - fixed_cost, 1e-9), iterations=subgradient_iterations,
            multipliers=u[res.rows], step=0.1, stop=stop, core_min_columns=0,
        )  # fmt: skip
        stats.fixings += 1
        if _cannot_improve(fixed_cost + lag.bound, best, integral):
            break
        h, _ = lagrangian_heuristic(
            res.costs, res.csr, res.csc, lag, upper=np.inf, iterations=heuristic_iterations, stop=stop
        )  # fmt: skip
        if h is not None:
            x = fixed.astype(np.int8)
            x[res.cols[h == 1]] = 1
            complete(x)
        taken = columns_to_fix(res, lag, per_step)
        if taken.size == 0:
            break
        fixed[res.cols[taken]] = True
        u[res.rows] = lag.multipliers * (1.0 + rng.uniform(-perturbation, perturbation, res.m))
        res = res.without(taken)
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
    pi_start: float = 0.3,
    pi_growth: float = 1.1,
    perturbation: float = 0.1,
    max_rounds: int = 1 << 30,
    stall_cycles: int = 1,
    stats: RefineStats | None = None,
    core_per_row: int | None = None,
) -> np.ndarray:
    """CFT's refinement around the cover ``x`` (n,) int8 of ``(costs, csr)`` until ``stop()``.

    ``lag`` is a Lagrangian bound of the whole instance: the columns it fixes out (no cover cheaper
    than ``x`` can use them) are left out, and its reduced costs and multipliers score the columns
    of the best cover, and its multipliers, scaled by ``1 + U(-perturbation,
    perturbation)`` per row, start every three-phase. ``on_improve(x, cost)`` sees every cheaper
    cover. Stops at ``stop()``, after ``max_rounds`` rounds, or after ``stall_cycles`` whole cycles
    of ``pi`` (0.3 up to 1) without a cheaper cover. Returns the best cover (n,) int8; it is never worse
    than ``x``.

    ``core_per_row``: price within a pool instead of every column the bound keeps: the
    ``core_per_row`` columns of least reduced cost per row at ``lag`` (of those it keeps) plus those
    of ``x``; each three-phase still re-prices its core within the pool (a small pool, e.g. 10, is
    a fixed core: the ablation of CFT's pricing; a large one bounds the pricing's cost on huge
    instances)."""
    stats = RefineStats() if stats is None else stats
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    whole = Residual.whole(costs, csr, csc)
    usable = ~lag.fixable(float(costs @ x)) | (np.asarray(x) == 1)  # what a cheaper cover may use: L(u) + r_j < cost(x)
    if core_per_row is not None:
        row_ptr, row_idx = index_arrays(csr)
        pool = core_kernel(np.where(usable, lag.reduced, np.inf), row_ptr, row_idx, core_per_row, 0.0)
        keep = np.union1d(pool[usable[pool]], np.flatnonzero(x))
    else:
        keep = np.flatnonzero(usable)
    if keep.size < costs.size:
        whole = whole.columns(keep.astype(np.int64))
    reduced = lag.reduced[whole.cols]
    integral = bool(np.all(costs == np.round(costs)))
    best_x = np.array(x, dtype=np.int8, copy=True)[whole.cols]
    best = float(whole.costs @ best_x)
    pi = 0.0
    cycle = 1 + int(np.ceil(np.log(1.0 / pi_start) / np.log(pi_growth)))  # rounds of pi from 0 to >= 1
    stall = 0
    while not stop() and stats.rounds < max_rounds and stall < stall_cycles * cycle:
        fixed = np.zeros(whole.cols.size, np.bool_)
        if pi > 0.0:
            selected = np.flatnonzero(best_x)
            sel_csc = whole.csc[:, selected]
            count = np.asarray(whole.csr @ best_x.astype(np.int64), dtype=np.float64)
            share = np.where(count > 0, (count - 1.0) / np.maximum(count, 1.0), 0.0) * lag.multipliers
            delta = np.maximum(reduced[selected], 0.0) + sel_csc.T @ share
            covered = np.zeros(whole.m, np.bool_)
            target = pi * whole.m
            for k in np.argsort(delta, kind="stable"):
                if np.count_nonzero(covered) >= target:
                    break
                fixed[selected[k]] = True
                covered[sel_csc.indices[sel_csc.indptr[k] : sel_csc.indptr[k + 1]]] = True
        u = lag.multipliers * (1.0 + rng.uniform(-perturbation, perturbation, whole.m))
        found, cost = three_phase(
            whole, fixed, u, best=best, integral=integral, stats=stats, stop=stop, rng=rng, perturbation=perturbation
        )  # fmt: skip
        stats.rounds += 1
        stall += 1
        if found is not None:
            stall = 0
            stats.improved += 1
            best_x, best = found, cost
            if on_improve is not None:
                on_improve(_expand(best_x, whole.cols, costs.size), best)
        pi = pi_start if pi == 0.0 else pi * pi_growth
        if pi >= 1.0:
            pi = pi_start
    return _expand(best_x, whole.cols, costs.size)


def _expand(x: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """The cover ``x`` (k,) over the columns ``cols`` as a cover (n,) int8 of the whole instance."""
    out = np.zeros(n, np.int8)
    out[cols[x == 1]] = 1
    return out
