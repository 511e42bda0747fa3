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

Arrays follow :mod:`cosolve.heuristics.setcover`: ``costs`` (n,) float64, CSR ``row_ptr``,
``row_idx`` and CSC ``col_ptr``, ``col_idx`` index arrays of one dtype, multipliers ``u`` (m,) float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from cosolve.heuristics.setcover import index_arrays


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
            best_u[:] = u
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
    for i in range(row_ptr.size - 1):
        start, end = row_ptr[i], row_ptr[i + 1]
        if end - start <= per_row:
            for p in range(start, end):
                keep[row_idx[p]] = True
            continue
        vals = np.empty(end - start)
        for p in range(start, end):
            vals[p - start] = reduced[row_idx[p]]
        order = np.argsort(vals)
        for k in range(per_row):
            keep[row_idx[start + order[k]]] = True
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
