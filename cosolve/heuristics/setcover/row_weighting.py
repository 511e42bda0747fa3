"""Row-weighting local search for set cover (RWLS, Gao, Weise & Li 2015, "An efficient local search
heuristic with row weighting for the unicost set covering problem", EJOR 246), with scores per
unit of cost for weighted instances.

The search keeps a set ``S`` of columns that may leave rows uncovered, a weight ``w_i >= 1`` per
row and each column's *score*: for ``j`` not in ``S`` the weight of the uncovered rows it would
cover, for ``j`` in ``S`` minus the weight of the rows only it covers. Each step:

1. while ``S`` covers every row: if it is cheaper than the best cover, it is the new best; drop the
   column of ``S`` of highest score per cost (least weight lost per unit of cost saved);
2. pick an uncovered row at random and add, of the columns covering it whose configuration
   changed since they were last dropped (configuration checking: a neighbour, a column sharing a
   row, was added or dropped since), the one of highest score per cost; ties go to the column
   that changed state longest ago;
3. while ``cost(S)`` is not below the best cover's, drop the column of highest score per cost other
   than the one just added (tabu), so that every cover ``S`` reaches is cheaper than the best;
4. add 1 to the weight of every uncovered row.

RWLS drops one column and then adds one (on unit costs ``|S|`` then stays one below the best);
with weighted costs one drop may not bring the cost below the best, so here the add comes first
and the drops continue until it does, which on unit costs is the same single drop. The weights
grow after the drops: grown between the add and the drops they stay put whenever the added
column covers every uncovered row, and the search cycles.

The weights make rows that stay uncovered ever more attractive, which drives the search out of
local minima without a tabu list of rows. Arrays follow :mod:`cosolve.heuristics.setcover.greedy_cover`
(a column's neighbours are read through its rows).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.heuristics.kernel_arrays import copy_into
from cosolve.heuristics.setcover.lagrangian import LagrangianBound
from cosolve.heuristics.setcover.three_phase import Residual, usable_columns
from cosolve.heuristics.sparse_index import index_arrays


@njit(cache=True)
def _flip(j, add, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where):  # pragma: no cover
    """Add (``add``) or drop column ``j``, keeping ``cover``, ``score``, ``can_add`` and the list of
    uncovered rows (``uncovered[0]`` its length, ``where[i]`` row ``i``'s position, -1 if covered)
    up to date."""
    x[j] = 1 if add else 0
    for p in range(col_ptr[j], col_ptr[j + 1]):
        i = col_idx[p]
        w = weight[i]
        if add:
            cover[i] += 1
            if cover[i] == 1:
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    k = row_idx[q]
                    if k != j:
                        score[k] -= w
                _drop_uncovered(i, uncovered, where)
            elif cover[i] == 2:
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    k = row_idx[q]
                    if k != j and x[k] == 1:
                        score[k] += w
                        break
        else:
            cover[i] -= 1
            if cover[i] == 0:
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    k = row_idx[q]
                    if k != j:
                        score[k] += w
                uncovered[0] += 1
                uncovered[uncovered[0]] = i
                where[i] = uncovered[0]
            elif cover[i] == 1:
                for q in range(row_ptr[i], row_ptr[i + 1]):
                    k = row_idx[q]
                    if k != j and x[k] == 1:
                        score[k] -= w
                        break
        for q in range(row_ptr[i], row_ptr[i + 1]):
            can_add[row_idx[q]] = True
    score[j] = -score[j]  # a column's score changes sign when it enters or leaves S
    can_add[j] = add


@njit(cache=True)
def _drop_uncovered(i, uncovered, where):  # pragma: no cover - numba
    pos = where[i]
    last = uncovered[uncovered[0]]
    uncovered[pos] = last
    where[last] = pos
    where[i] = -1
    uncovered[0] -= 1


@njit(cache=True)
def _drop_at(
    t, selected, n_sel, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where
):  # pragma: no cover
    """Drop the column at position ``t`` of the ``n_sel`` listed in ``selected`` (the last one
    takes its place); returns it."""
    j = selected[t]
    _flip(j, False, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where)
    selected[t] = selected[n_sel - 1]
    return j


@njit(cache=True)
def _best_of(candidates, costs, score, stamp, can_add, tabu):  # pragma: no cover - numba
    """The position in ``candidates`` of the column of highest score per cost (the one that changed
    state longest ago on ties), skipping ``tabu`` and, unless ``can_add`` is None, the columns it
    rules out; -1 if none."""
    best, best_val, best_stamp = -1, -np.inf, 0
    for t in range(candidates.size):
        j = candidates[t]
        if j == tabu or (can_add is not None and not can_add[j]):
            continue
        v = score[j] / costs[j]
        if v > best_val or (v == best_val and stamp[j] < best_stamp):
            best, best_val, best_stamp = t, v, stamp[j]
    return best


@njit(cache=True)
def rwls_kernel(
    costs, row_ptr, row_idx, col_ptr, col_idx, x, best_x, cover, score, weight, can_add, stamp,
    uncovered, where, selected, state, steps, seed,
):  # pragma: no cover - numba  # fmt: skip
    """``steps`` steps of the search from the state the arrays hold (see :func:`rwls`); ``state``
    (int64, 4): the step counter, the tabu column, the number of selected columns and whether
    ``best_x`` changed. ``selected`` lists the columns of ``S`` (unordered). Returns the best
    cover's cost; ``best_x`` holds it."""
    np.random.seed(seed)
    best = 0.0
    for j in range(best_x.size):
        if best_x[j]:
            best += costs[j]
    current = 0.0
    for t in range(state[2]):
        current += costs[selected[t]]
    n_sel = state[2]
    tabu = state[1]
    for _ in range(steps):
        state[0] += 1
        while uncovered[0] == 0:
            if current < best - 1e-9:
                best = current
                copy_into(best_x, x)
                state[3] = 1
            t = _best_of(selected[:n_sel], costs, score, stamp, None, -1)
            j = _drop_at(
                t, selected, n_sel, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where
            )
            stamp[j] = state[0]
            current -= costs[j]
            n_sel -= 1
        i = uncovered[1 + np.random.randint(uncovered[0])]
        columns = row_idx[row_ptr[i] : row_ptr[i + 1]]
        t = _best_of(columns, costs, score, stamp, can_add, -1)
        if t < 0:  # no column of the row changed configuration: take the best of them anyway
            t = _best_of(columns, costs, score, stamp, None, -1)
        pick = columns[t]
        _flip(pick, True, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where)
        stamp[pick] = state[0]
        current += costs[pick]
        selected[n_sel] = pick
        n_sel += 1
        tabu = pick
        while current >= best - 1e-9 and n_sel > 1:
            t = _best_of(selected[:n_sel], costs, score, stamp, None, tabu)
            if t < 0:
                break
            j = _drop_at(
                t, selected, n_sel, row_ptr, row_idx, col_ptr, col_idx, x, cover, score, weight, can_add, uncovered, where
            )
            stamp[j] = state[0]
            current -= costs[j]
            n_sel -= 1
        for u in range(1, uncovered[0] + 1):
            r = uncovered[u]
            weight[r] += 1.0
            for q in range(row_ptr[r], row_ptr[r + 1]):
                score[row_idx[q]] += 1.0
    if uncovered[0] == 0 and current < best - 1e-9:
        best = current
        copy_into(best_x, x)
        state[3] = 1
    state[1] = tabu
    state[2] = n_sel
    return best


def rwls(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    x: np.ndarray,
    *,
    stop: Callable[[], bool],
    seed: int = 0,
    chunk: int = 2000,
    max_steps: int = 1 << 62,
    on_improve: Callable[[np.ndarray, float], None] | None = None,
) -> np.ndarray:
    """The row-weighting local search from the cover ``x`` (n,) int8 of ``(costs, csr)`` until
    ``stop()`` (checked every ``chunk`` steps) or ``max_steps`` steps. ``on_improve(x, cost)``
    sees every cheaper cover. Returns the best cover (n,) int8, never worse than ``x``. The
    search prices a column of cost 0 at a billionth of the largest cost (its scores are per unit
    of cost); covers are compared at their true costs."""
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    m, n = csr.shape
    x = np.array(x, dtype=np.int8, copy=True)
    cover = np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
    if np.any(cover == 0):
        raise ValueError("rwls needs a cover to start from")
    if m == 0:
        return np.zeros(n, np.int8)
    priced = np.maximum(costs, 1e-9 * max(1.0, float(costs.max())))
    best_x = x.copy()
    weight = np.ones(m, np.float64)
    only = (cover == 1).astype(np.float64)
    score = -np.asarray(csc.T @ only, dtype=np.float64) * x  # columns of S: minus the rows they alone cover
    can_add = x == 0
    stamp = np.zeros(n, np.int64)
    uncovered = np.zeros(m + 1, np.int64)
    where = np.full(m, -1, np.int64)
    selected = np.zeros(n, np.int64)
    chosen = np.flatnonzero(x)
    selected[: chosen.size] = chosen
    state = np.array([0, -1, chosen.size, 0], np.int64)
    rng = np.random.default_rng(seed)
    best = float(costs @ x)
    steps = 0
    while steps < max_steps and not stop():
        k = int(min(chunk, max_steps - steps))
        rwls_kernel(
            priced, row_ptr, row_idx, col_ptr, col_idx, x, best_x, cover, score, weight, can_add, stamp,
            uncovered, where, selected, state, k, int(rng.integers(2**31)),
        )  # fmt: skip
        steps += k
        if state[3]:
            state[3] = 0
            cost = float(costs @ best_x)
            if cost < best - 1e-9:
                best = cost
                if on_improve is not None:
                    on_improve(best_x.copy(), best)
    return best_x


def rwls_on_core(
    costs: np.ndarray,
    csr: sp.csr_array,
    csc: sp.csc_array,
    lag: LagrangianBound,
    x: np.ndarray,
    *,
    per_row: int,
    stop: Callable[[], bool],
    seed: int = 0,
    on_improve: Callable[[np.ndarray, float], None] | None = None,
    extra: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`rwls` from the cover ``x`` (n,) int8 on a core: the ``per_row`` columns of least
    reduced cost per row at ``lag`` (of those a cheaper cover may use, plus ``x``'s:
    :func:`cosolve.heuristics.setcover.three_phase.usable_columns`; none with ``per_row`` 0), plus the columns
    ``extra`` (int64 indices, e.g. those of the covers a refinement completed) and ``x``'s. Each
    step scans the columns of a row, so a small core makes steps cheap on instances with thousands
    of columns per row. Returns the best cover (n,) int8 of the whole instance; ``on_improve(x,
    cost)`` sees each cheaper one, also (n,)."""
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    keep = usable_columns(costs, csr, lag, x, per_row) if per_row > 0 else np.flatnonzero(x).astype(np.int64)
    if extra is not None and extra.size:
        keep = np.union1d(keep, extra).astype(np.int64)
    core = Residual.whole(costs, csr, csc).columns(keep)

    def whole(y: np.ndarray) -> np.ndarray:
        out = np.zeros(costs.size, np.int8)
        out[keep[y == 1]] = 1
        return out

    report = None if on_improve is None else (lambda y, cost: on_improve(whole(y), cost))
    return whole(rwls(core.costs, core.csr, core.csc, np.asarray(x)[keep], stop=stop, seed=seed, on_improve=report))
