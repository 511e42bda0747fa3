"""Lagrangian lower bounds for set cover by subgradient optimisation, reduced costs, the core
of low-reduced-cost columns, and reduced-cost fixing.

Relaxing every covering row ``i`` with a multiplier ``u_i >= 0`` gives

    L(u) = sum_i u_i + sum_j min(0, r_j),   r_j = c_j - sum_{i in column j} u_i,

a lower bound on the optimum for every ``u >= 0``. The subgradient method (Held, Wolfe &
Crowder 1974; the step rule of Caprara, Fischetti & Toth 1999) raises it: with ``x_j = [r_j < 0]``
the subgradient is ``s_i = 1 - sum_{j covers i} x_j``, and ``u <- max(0, u + lam (UB - L) s / |s|^2)``;
``lam`` halves when the bound oscillates and grows when it stalls. On large instances the
method runs on a *core*, a few lowest-reduced-cost columns per row, and every column is re-priced
between rounds (CFT's pricing); the bound it reports is always the one over all columns.

Arrays follow :mod:`cosolve.heuristics.setcover.greedy_cover`: ``costs`` (n,) float64, CSR ``row_ptr``,
``row_idx`` and CSC ``col_ptr``, ``col_idx`` index arrays of one dtype, multipliers ``u`` (m,) float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.setcover.greedy_cover import heap_pop_root, heap_sift_down, heapify, smallest_k
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def reduced_costs_kernel(costs: np.ndarray, col_ptr: np.ndarray, col_idx: np.ndarray, u: np.ndarray, out: np.ndarray) -> float:
    """Fill ``out`` (n,) with ``r_j = c_j - sum_{i in column j} u_i``; return ``L(u)``."""
    total = 0.0
    for i in range(u.size):
        total += u[i]
    for j in range(costs.size):
        r = costs[j]
        for p in range(col_ptr[j], col_ptr[j + 1]):
            r -= u[col_idx[p]]
        out[j] = r
        if r < 0.0:
            total += r
    return total


@njit(cache=True)
def _initial_multipliers(costs: np.ndarray, row_ptr: np.ndarray, row_idx: np.ndarray, col_ptr: np.ndarray) -> np.ndarray:
    """``u_i = min over columns j covering i of c_j / |column j|`` (CFT's start)."""
    m = row_ptr.size - 1
    u = np.empty(m)
    for i in range(m):
        best = np.inf
        for p in range(row_ptr[i], row_ptr[i + 1]):
            j = row_idx[p]
            v = costs[j] / (col_ptr[j + 1] - col_ptr[j])
            if v < best:
                best = v
        u[i] = best if best < np.inf else 0.0
    return u


@njit(cache=True)
def subgradient_kernel(
    costs: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    u: np.ndarray,
    best_u: np.ndarray,
    state: np.ndarray,
    upper: float,
    iterations: int,
    patience: int,
) -> None:
    """Run ``iterations`` subgradient steps from ``u`` (updated in place) on the columns given.

    ``state`` (4,) float64 carries ``[lam, best_L, steps_without_gain, steps]`` between calls;
    ``best_u`` receives the multipliers of the best bound. ``lam`` halves after ``patience``
    steps without a better bound (Beasley 1990). ``upper`` is an upper bound on the optimum.
    """
    m = u.size
    n = costs.size
    s = np.empty(m)
    for _ in range(iterations):
        total = 0.0
        for i in range(m):
            total += u[i]
            s[i] = 1.0
        for j in range(n):
            r = costs[j]
            for p in range(col_ptr[j], col_ptr[j + 1]):
                r -= u[col_idx[p]]
            if r < 0.0:
                total += r
                for p in range(col_ptr[j], col_ptr[j + 1]):
                    s[col_idx[p]] -= 1.0
        if total - state[1] > 1e-9 * max(1.0, abs(total)):
            state[1] = total
            copy_into(best_u, u)
            state[2] = 0.0
        else:
            state[2] += 1.0
            if state[2] >= patience:
                state[0] /= 2.0
                state[2] = 0.0
        norm = 0.0
        for i in range(m):
            if u[i] <= 0.0 and s[i] < 0.0:  # projected: the multiplier cannot go below 0
                s[i] = 0.0
            norm += s[i] * s[i]
        if norm == 0.0:  # u is optimal for the relaxation and x covers every row exactly once
            state[1] = max(state[1], total)
            return
        gap = max(upper - total, 1e-9 * max(1.0, abs(upper)))
        step = state[0] * gap / norm
        for i in range(m):
            v = u[i] + step * s[i]
            u[i] = v if v > 0.0 else 0.0
        state[3] += 1.0


@njit(cache=True)
def core_kernel(reduced: np.ndarray, row_ptr: np.ndarray, row_idx: np.ndarray, per_row: int, threshold: float) -> np.ndarray:
    """The core (sorted column indices, int64): every column with ``r_j < threshold`` and, per row,
    its ``per_row`` columns of least reduced cost (CFT's core selection)."""
    n = reduced.size
    keep = np.zeros(n, np.bool_)
    for j in range(n):
        if reduced[j] < threshold:
            keep[j] = True
    out = np.empty(per_row, np.int64)
    for i in range(row_ptr.size - 1):
        start, end = row_ptr[i], row_ptr[i + 1]
        cols = row_idx[start:end].astype(np.int64)
        vals = np.empty(end - start)
        for p in range(end - start):
            vals[p] = reduced[cols[p]]
        for t in range(smallest_k(vals, cols, per_row, out)):
            keep[out[t]] = True
    return np.flatnonzero(keep).astype(np.int64)


def _converged(state: np.ndarray, upper: float) -> bool:
    return bool(state[0] < 1e-4 or upper - state[1] <= 1e-9 * max(1.0, abs(upper)))


@dataclass
class LagrangianBound:
    """The outcome of :func:`lagrangian_bound`.

    ``bound``: the best ``L(u)`` over all columns (a valid lower bound on the optimum);
    ``multipliers`` (m,) the ``u`` that gives it; ``reduced`` (n,) the reduced costs at ``u``;
    ``iterations``: subgradient steps taken; ``core`` (k,) int64 the columns of the last core.
    """

    bound: float
    multipliers: np.ndarray
    reduced: np.ndarray
    iterations: int
    core: np.ndarray

    def fixable(self, upper: float) -> np.ndarray:
        """Columns (bool (n,)) that no solution cheaper than ``upper`` can use: ``L(u) + r_j >= upper``."""
        return self.bound + self.reduced >= upper


def lagrangian_bound(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    *,
    upper: float,
    iterations: int = 1000,
    core_per_row: int = 5,
    core_threshold: float = 0.1,
    core_min_columns: int = 20_000,
    multipliers: np.ndarray | None = None,
    step: float = 1.0,
    patience: int = 20,
    stop: Callable[[], bool] | None = None,
    chunk: int = 25,
) -> LagrangianBound:
    """Subgradient optimisation of the Lagrangian bound of the set cover ``(costs, csr)``.

    ``upper`` is the cost of a known cover (it scales the steps). Instances with more than
    ``core_min_columns`` columns are solved on a core (``core_per_row`` least-reduced-cost
    columns per row plus every column below ``core_threshold``), re-priced over all columns
    every ``chunk * 4`` steps. ``stop`` is polled every ``chunk`` steps; the best bound so far is
    returned when it fires. Starts from ``multipliers`` if given (a warm start), else CFT's.
    ``step`` is the initial step factor ``lam``, halved after ``patience`` steps without gain;
    the method stops early once ``lam`` falls below 1e-4 or the bound reaches ``upper``.
    """
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    n = costs.size
    u = _initial_multipliers(costs, row_ptr, row_idx, col_ptr) if multipliers is None else np.array(multipliers, dtype=np.float64)
    reduced = np.empty(n)
    best = reduced_costs_kernel(costs, col_ptr, col_idx, u, reduced)
    best_u, best_reduced = u.copy(), reduced.copy()
    use_core = n > core_min_columns
    done = 0
    core = np.arange(n, dtype=np.int64)
    state = np.array([step, -np.inf, 0.0, 0.0])
    while done < iterations and not (stop is not None and stop()):
        if use_core:
            core = core_kernel(reduced, row_ptr, row_idx, core_per_row, core_threshold)
            sub = csc[:, core]
            sub_ptr, sub_idx = index_arrays(sub)
            sub_costs = costs[core]
            rounds = 4
        else:
            sub_ptr, sub_idx, sub_costs, rounds = col_ptr, col_idx, costs, 1 << 30
        state[1] = -np.inf
        core_best_u = u.copy()
        for _ in range(rounds):
            if done >= iterations or (stop is not None and stop()):
                break
            steps = min(chunk, iterations - done)
            subgradient_kernel(sub_costs, sub_ptr, sub_idx, u, core_best_u, state, float(upper), steps, patience)
            done += steps
            if not use_core and state[1] > best:
                best = state[1]
                best_u = core_best_u.copy()
            if _converged(state, upper):
                break
        if use_core:  # price every column at the core's best multipliers; L over all columns is the bound
            value = reduced_costs_kernel(costs, col_ptr, col_idx, core_best_u, reduced)
            if value > best:
                best, best_u, best_reduced = value, core_best_u.copy(), reduced.copy()
            u = core_best_u.copy()
        if _converged(state, upper):
            break
    if not use_core:
        best = reduced_costs_kernel(costs, col_ptr, col_idx, best_u, best_reduced)
    return LagrangianBound(float(best), best_u, best_reduced, done, core)


# --------------------------------------------------------------------------- Lagrangian heuristic


@njit(cache=True)
def _score(gamma: float, mu: int) -> float:
    return gamma / mu if gamma > 0.0 else gamma * mu


@njit(cache=True)
def lagrangian_greedy_kernel(
    costs: np.ndarray,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    u: np.ndarray,
    x: np.ndarray,
    picked: np.ndarray,
) -> int:
    """CFT's primal heuristic: complete ``x`` (n,) int8 in place, repeatedly taking the column of
    least score ``sigma_j = gamma_j / mu_j`` if ``gamma_j > 0`` else ``gamma_j * mu_j``, where
    ``mu_j`` counts the uncovered rows column j covers and ``gamma_j = c_j - sum of their u_i``.
    Covering rows only raises scores, so a lazy min-heap is exact (ties by smaller index).
    The columns taken are written to ``picked`` (int64, at least as long as their number) in the
    order taken, ``-1`` after the last. Returns the number of rows left uncovered."""
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    covered = np.zeros(m, np.int8)
    for j in range(n):
        if x[j]:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                covered[col_idx[p]] = 1
    uncovered = 0
    for i in range(m):
        if covered[i] == 0:
            uncovered += 1
    mu = np.zeros(n, np.int64)
    gamma = costs.copy()
    keys = np.empty(n)
    ids = np.empty(n, np.int64)
    size = 0
    for j in range(n):
        if x[j]:
            continue
        for p in range(col_ptr[j], col_ptr[j + 1]):
            i = col_idx[p]
            if covered[i] == 0:
                mu[j] += 1
                gamma[j] -= u[i]
        if mu[j] > 0:
            keys[size] = _score(gamma[j], mu[j])
            ids[size] = j
            size += 1
    heapify(keys, ids, size)
    taken = 0
    while uncovered > 0 and size > 0:
        j = ids[0]
        if mu[j] == 0:
            size = heap_pop_root(keys, ids, size)
            continue
        score = _score(gamma[j], mu[j])
        if score > keys[0]:
            keys[0] = score
            heap_sift_down(keys, ids, size, 0)
            continue
        x[j] = 1
        if taken < picked.size:
            picked[taken] = j
        taken += 1
        size = heap_pop_root(keys, ids, size)
        for p in range(col_ptr[j], col_ptr[j + 1]):
            i = col_idx[p]
            if covered[i] == 0:
                covered[i] = 1
                uncovered -= 1
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    k = row_idx[q]
                    mu[k] -= 1
                    gamma[k] += u[i]
    if taken < picked.size:
        picked[taken] = -1
    return uncovered


def lagrangian_heuristic(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    lag: LagrangianBound,
    *,
    upper: float,
    iterations: int = 100,
    per_row: int = 5,
    stop: Callable[[], bool] | None = None,
) -> tuple[np.ndarray | None, float]:
    """CFT's heuristic phase: ``iterations`` subgradient steps from ``lag``'s multipliers on the core
    (``per_row`` least-reduced-cost columns per row), each followed by
    :func:`lagrangian_greedy_kernel` at the current multipliers and redundancy removal.
    Returns the best cover found (n,) int8 and its cost, or ``(None, upper)`` if none beat ``upper``."""
    from cosolve.heuristics.setcover.greedy_cover import remove_redundant_kernel

    costs = np.ascontiguousarray(costs, dtype=np.float64)
    row_ptr, row_idx = index_arrays(csr)
    core = core_kernel(lag.reduced, row_ptr, row_idx, per_row, 0.0)
    sub_csc = sp.csc_array(csc[:, core])
    sub_csr = sp.csr_array(sub_csc)
    s_row_ptr, s_row_idx, s_col_ptr, s_col_idx = index_arrays(sub_csr, sub_csc)
    sub_costs = costs[core]
    order = np.argsort(-sub_costs, kind="stable").astype(np.int64)
    u = lag.multipliers.copy()
    best_u = u.copy()
    state = np.array([0.1, -np.inf, 0.0, 0.0])
    best, best_cost = None, float(upper)
    picked = np.empty(core.size + 1, np.int64)
    for _ in range(iterations):
        if stop is not None and stop():
            break
        x = np.zeros(core.size, np.int8)
        if lagrangian_greedy_kernel(sub_costs, s_row_ptr, s_row_idx, s_col_ptr, s_col_idx, u, x, picked) == 0:
            remove_redundant_kernel(s_col_ptr, s_col_idx, csr.shape[0], x, order)
            cost = float(sub_costs @ x)
            if cost < best_cost - 1e-9:
                best_cost, best = cost, x
        subgradient_kernel(sub_costs, s_col_ptr, s_col_idx, u, best_u, state, best_cost, 1, 20)
    if best is None:
        return None, float(upper)
    full = np.zeros(costs.size, np.int8)
    full[core[best == 1]] = 1
    return full, best_cost
