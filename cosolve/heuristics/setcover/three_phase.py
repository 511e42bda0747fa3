"""The three-phase Lagrangian heuristic of Caprara, Fischetti & Toth (1999) and their refinement
procedure.

*Three-phase* (on an instance with some columns fixed in the cover, and starting multipliers):
(1) subgradient optimisation of the Lagrangian bound of the *residual* instance (the rows the
fixed columns leave uncovered, the columns that touch them) on a core of it re-priced over all
its columns every 100 steps (CFT's dynamic core,
:func:`cosolve.heuristics.setcover.lagrangian.lagrangian_bound`); (2) CFT's Lagrangian greedy along a
short subgradient run from those multipliers
(:func:`cosolve.heuristics.setcover.lagrangian.lagrangian_heuristic`), each cover completed by the fixed
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

from cosolve.core.numba_compile import njit
from cosolve.heuristics.setcover.greedy_cover import remove_redundant_kernel
from cosolve.heuristics.setcover.lagrangian import (
    LagrangianBound,
    core_kernel,
    lagrangian_bound,
    lagrangian_greedy_kernel,
    lagrangian_heuristic,
)
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
        rows they leave uncovered and the other columns that touch one of them (both matrices
        built in one pass over the nonzeros, :func:`residual_kernel`)."""
        mark = np.zeros(self.cols.size, np.bool_)
        mark[taken] = True
        col_ptr, col_idx = index_arrays(self.csc)
        keep_rows, keep_cols, r_ptr, r_idx, c_ptr, c_idx = residual_kernel(col_ptr, col_idx, mark, self.m)
        shape = (keep_rows.size, keep_cols.size)
        ones = np.ones(r_idx.size, self.csr.dtype)
        csr = sp.csr_array((ones, r_idx, r_ptr), shape=shape)
        csc = sp.csc_array((ones.copy(), c_idx, c_ptr), shape=shape)
        csr.has_sorted_indices = csc.has_sorted_indices = True
        return Residual(self.costs[keep_cols], csr, csc, self.rows[keep_rows], self.cols[keep_cols])


@njit(cache=True)
def residual_kernel(col_ptr, col_idx, taken, m):  # pragma: no cover - numba
    """The rows of an (m x k) CSC matrix that no ``taken`` column covers, the other columns
    touching them, and the submatrix on them as CSR ``(indptr, indices)`` and CSC ``(indptr,
    indices)``, indices sorted and in the input's dtype: one pass over the columns (the row map is
    small and stays in cache), then a counting-sort transpose of what was kept. ``taken`` (k,)
    bool; returns ``keep_rows``, ``keep_cols`` (int64) and the four arrays."""
    k = col_ptr.size - 1
    covered = np.zeros(m, np.bool_)
    for j in range(k):
        if taken[j]:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                covered[col_idx[p]] = True
    row_map = np.full(m, -1, np.int64)
    keep_rows = np.empty(m, np.int64)
    rows = 0
    for i in range(m):
        if not covered[i]:
            row_map[i] = rows
            keep_rows[rows] = i
            rows += 1
    keep_cols = np.empty(k, np.int64)
    c_ptr = np.empty(k + 1, col_ptr.dtype)
    c_idx = np.empty(col_ptr[k], col_idx.dtype)
    c_ptr[0] = 0
    cols = q = 0
    for j in range(k):
        if taken[j]:
            continue
        first = q
        for p in range(col_ptr[j], col_ptr[j + 1]):
            i = row_map[col_idx[p]]
            if i >= 0:
                c_idx[q] = i
                q += 1
        if q > first:
            keep_cols[cols] = j
            cols += 1
            c_ptr[cols] = q
    r_ptr = np.zeros(rows + 1, col_ptr.dtype)
    for p in range(q):
        r_ptr[c_idx[p] + 1] += 1
    for i in range(rows):
        r_ptr[i + 1] += r_ptr[i]
    r_idx = np.empty(q, col_idx.dtype)
    fill = r_ptr[:rows].copy()
    for c in range(cols):
        for p in range(c_ptr[c], c_ptr[c + 1]):
            i = c_idx[p]
            r_idx[fill[i]] = c
            fill[i] += 1
    return keep_rows[:rows].copy(), keep_cols[:cols].copy(), r_ptr, r_idx, c_ptr[: cols + 1].copy(), c_idx[:q].copy()


def usable_columns(
    costs: np.ndarray, csr: sp.csr_array, lag: LagrangianBound, x: np.ndarray, per_row: int | None = None
) -> np.ndarray:
    """The columns (sorted, int64) a cover cheaper than ``x`` (n,) int8 may use (``L(u) + r_j <
    cost(x)`` at ``lag``), plus those of ``x``; with ``per_row``, only the ``per_row`` columns of
    least reduced cost per row among them (CFT's core at ``lag``'s multipliers), plus ``x``'s."""
    usable = ~lag.fixable(float(costs @ x)) | (np.asarray(x) == 1)
    if per_row is None:
        return np.flatnonzero(usable).astype(np.int64)
    row_ptr, row_idx = index_arrays(csr)
    pool = core_kernel(np.where(usable, lag.reduced, np.inf), row_ptr, row_idx, per_row, 0.0)
    return np.union1d(pool[usable[pool]], np.flatnonzero(x)).astype(np.int64)


def _cannot_improve(lower: float, best: float, integral: bool) -> bool:
    """True when a lower bound ``lower`` leaves no cover strictly cheaper than ``best``."""
    if integral:
        return np.ceil(lower - 1e-6) >= best - 1e-9
    return lower >= best - 1e-9 * max(1.0, abs(best))


@njit(cache=True)
def lone_negative_kernel(reduced, col_ptr, col_idx, m, threshold):  # pragma: no cover - numba
    """The columns (int64, ascending) of reduced cost below ``threshold`` that share no row with
    another such column, reading only those columns' entries."""
    negative = np.flatnonzero(reduced < threshold)
    per_row = np.zeros(m, np.int64)
    for j in negative:
        for p in range(col_ptr[j], col_ptr[j + 1]):
            per_row[col_idx[p]] += 1
    alone = np.empty(negative.size, np.int64)
    count = 0
    for j in negative:
        shared = False
        for p in range(col_ptr[j], col_ptr[j + 1]):
            if per_row[col_idx[p]] > 1:
                shared = True
                break
        if not shared:
            alone[count] = j
            count += 1
    return alone[:count].copy()


def columns_to_fix(res: Residual, lag: LagrangianBound, count: int, *, per_row: int = 5) -> np.ndarray:
    """CFT's column fixing on the residual ``res`` at ``lag``'s multipliers: the columns of reduced
    cost below :data:`FIX_THRESHOLD` that share no row with another such column, then the first
    ``count`` columns the Lagrangian greedy takes to complete them (run on the core of the
    ``per_row`` columns of least reduced cost per row and those of negative reduced cost). Local
    indices (int64)."""
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(res.csr, res.csc)
    alone = lone_negative_kernel(lag.reduced, col_ptr, col_idx, res.m, FIX_THRESHOLD)
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
    fresh_multipliers: bool = False,
    on_cover: Callable[[np.ndarray, float], None] | None = None,
) -> tuple[np.ndarray | None, float]:
    """Three-phase on the instance ``whole`` (all m rows of a set cover, some or all of its columns)
    with the columns ``fixed`` (k,) bool already in the cover; columns are indexed as in ``whole``.

    ``u`` (m,) are the starting multipliers (only the rows left uncovered are used), ``best`` the
    cost to beat. Returns the cheapest cover found (k,) int8 costing less than ``best``, or
    ``(None, best)``. ``on_cover(x, cost)`` sees every cover the phases complete, cheaper or not.
    ``fresh_multipliers``: the first subgradient phase starts from CFT's initial multipliers of the
    residual (``min_j c_j / |I_j|`` per row) with the initial step, ignoring ``u`` (as pycft
    restarts each three-phase), instead of warm-starting at ``u``."""
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
        if on_cover is not None:
            on_cover(x, cost)
        if cost < best - 1e-9:
            found, best = x, cost

    res = whole.without(np.flatnonzero(fixed))
    cold = fresh_multipliers  # only the first subgradient phase starts cold
    while not stop():
        fixed_cost = float(whole.costs[fixed].sum())
        if res.m == 0:
            complete(fixed.astype(np.int8))
            break
        if np.any(np.diff(res.csr.indptr) == 0):
            break  # a row no free column covers: nothing feasible below this fixing
        lag = lagrangian_bound(
            res.costs, res.csr, res.csc, upper=max(best - fixed_cost, 1e-9), iterations=subgradient_iterations,
            multipliers=None if cold else u[res.rows], step=1.0 if cold else 0.1, stop=stop, core_min_columns=0,
        )  # fmt: skip
        stats.fixings += 1
        cold = False
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
    consensus: int = 0,
    pi_reset: bool = False,
    fresh_multipliers: bool = False,
    on_cover: Callable[[np.ndarray, float], None] | None = None,
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
    instances).

    ``consensus`` > 0 keeps a pool of that many of the cheapest distinct covers the phases complete
    (:class:`CoverPool`), and every other round, once it holds two, fixes the columns common to
    all of them instead of the best cover's columns of least score: the three-phase then re-solves
    where good covers disagree (the consensus fixing of pool-based CFT variants).

    ``pi_reset``: a round that finds a cheaper cover sets ``pi`` back to ``pi_start`` (CFT's rule, as
    in pycft) instead of letting it grow on; ``fresh_multipliers`` goes to every
    :func:`three_phase`. ``on_cover(columns, cost)`` sees every cover the three-phases complete,
    cheaper or not, as the int64 indices of its columns in the whole instance."""
    stats = RefineStats() if stats is None else stats
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    whole = Residual.whole(costs, csr, csc)
    keep = usable_columns(costs, csr, lag, x, core_per_row)
    if keep.size < costs.size:
        whole = whole.columns(keep.astype(np.int64))
    reduced = lag.reduced[whole.cols]
    integral = bool(np.all(costs == np.round(costs)))
    best_x = np.array(x, dtype=np.int8, copy=True)[whole.cols]
    best = float(whole.costs @ best_x)
    pi = 0.0
    cycle = 1 + int(np.ceil(np.log(1.0 / pi_start) / np.log(pi_growth)))  # rounds of pi from 0 to >= 1
    pool = CoverPool(consensus) if consensus > 0 else None
    if pool is not None:
        pool.offer(best_x, best)
        cycle *= 2  # consensus rounds alternate with the rounds of pi

    def completed(y: np.ndarray, cost: float) -> None:
        if pool is not None:
            pool.offer(y, cost)
        if on_cover is not None:
            on_cover(whole.cols[np.flatnonzero(y)], cost)

    seen_by = completed if on_cover is not None else (None if pool is None else pool.offer)

    stall = 0
    while not stop() and stats.rounds < max_rounds and stall < stall_cycles * cycle:
        fixed = np.zeros(whole.cols.size, np.bool_)
        agreed = pool.agreed() if pool is not None and stats.rounds % 2 == 1 else None
        if agreed is not None:
            fixed = agreed
        elif pi > 0.0:
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
            whole, fixed, u, best=best, integral=integral, stats=stats, stop=stop, rng=rng, perturbation=perturbation,
            fresh_multipliers=fresh_multipliers, on_cover=seen_by,
        )  # fmt: skip
        stats.rounds += 1
        stall += 1
        if found is not None:
            stall = 0
            stats.improved += 1
            best_x, best = found, cost
            if on_improve is not None:
                on_improve(_expand(best_x, whole.cols, costs.size), best)
        if agreed is None:
            pi = pi_start if pi == 0.0 or (pi_reset and found is not None) else pi * pi_growth
            if pi >= 1.0:
                pi = pi_start
    return _expand(best_x, whole.cols, costs.size)


class CoverPool:
    """The ``size`` cheapest distinct covers offered (k,) int8, and the columns they agree on."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.covers: dict[bytes, tuple[float, np.ndarray]] = {}

    def offer(self, x: np.ndarray, cost: float) -> None:
        key = np.packbits(x).tobytes()
        if key in self.covers:
            return
        if len(self.covers) >= self.size:
            worst = max(self.covers, key=lambda k: self.covers[k][0])
            if cost >= self.covers[worst][0]:
                return
            del self.covers[worst]
        self.covers[key] = (cost, np.array(x, dtype=np.int8, copy=True))

    def agreed(self) -> np.ndarray | None:
        """The columns (k,) bool in every cover of the pool; None while it holds fewer than two."""
        if len(self.covers) < 2:
            return None
        return np.logical_and.reduce([x == 1 for _, x in self.covers.values()])


def _expand(x: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """The cover ``x`` (k,) over the columns ``cols`` as a cover (n,) int8 of the whole instance."""
    out = np.zeros(n, np.int8)
    out[cols[x == 1]] = 1
    return out
