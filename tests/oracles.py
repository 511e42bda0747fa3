"""Brute-force oracles shared by the tests: exact optima of tiny instances by enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

from cosolve.core.result import Sense
from cosolve.problems import MIP, TSP, Problem, SetCover

INF = math.inf


def all_binary(n: int, dtype: type = np.int8) -> np.ndarray:
    """Every 0/1 vector of length ``n``, one per row (2^n, n)."""
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=dtype)


def brute_force_binary(problem: Problem, n: int | None = None) -> float:
    """Best objective over all 0/1 vectors of length n (default: the problem's ``n``), by the
    problem's own evaluation."""
    best = problem.sense.worst
    for bits in all_binary(problem.n if n is None else n):
        e = problem.evaluate(bits)
        if e.feasible and problem.sense.better(e.objective, best):
            best = e.objective
    return best


def brute_force_tsp(problem: TSP) -> float:
    """Shortest tour over every permutation that starts at city 0."""
    d = problem.distances
    best = INF
    for rest in itertools.permutations(range(1, problem.n)):
        tour = (0, *rest)
        best = min(best, sum(d[tour[k], tour[(k + 1) % problem.n]] for k in range(problem.n)))
    return float(best)


def brute_force_mip(problem: MIP) -> float | None:
    """Enumerate the (bounded) integer variables; solve an LP over the continuous ones.

    Returns the optimum, or ``None`` if infeasible. Continuous parts must be bounded."""
    ints = np.flatnonzero(problem.integrality)
    cont = np.flatnonzero(~problem.integrality)
    a = problem.matrix.toarray()
    sign = 1.0 if problem.sense is Sense.MINIMIZE else -1.0
    ranges = [range(int(problem.lower[j]), int(problem.upper[j]) + 1) for j in ints]
    best = None
    for values in itertools.product(*ranges):
        xi = np.array(values, dtype=float)
        fixed = a[:, ints] @ xi
        value = problem.c[ints] @ xi
        if len(cont):
            a_c, hi, lo = a[:, cont], problem.row_upper - fixed, problem.row_lower - fixed
            up, down = np.isfinite(hi), np.isfinite(lo)
            rows, rhs = np.vstack([a_c[up], -a_c[down]]), np.r_[hi[up], -lo[down]]
            bounds = [tuple(None if np.isinf(b) else b for b in (problem.lower[j], problem.upper[j])) for j in cont]
            lp = linprog(sign * problem.c[cont], A_ub=rows, b_ub=rhs, bounds=bounds, method="highs")
            if lp.status == 2:  # infeasible
                continue
            assert lp.status == 0, lp.message
            value += problem.c[cont] @ lp.x
        elif np.any(fixed < problem.row_lower - 1e-9) or np.any(fixed > problem.row_upper + 1e-9):
            continue
        value += problem.offset
        if best is None or problem.sense.better(value, best):
            best = value
    return best


def all_covers(problem: SetCover) -> np.ndarray:
    """Every feasible 0/1 choice of columns of a set cover (rows of the result)."""
    subsets = all_binary(problem.n_cols, np.int32)
    feasible = ((problem.matrix @ subsets.T) > 0).all(axis=0)
    return subsets[feasible]


def brute_force_setcover(problem: SetCover) -> float:
    """The cheapest cover, by enumeration (vectorised; up to about 20 columns)."""
    return float((all_covers(problem) @ problem.costs).min())


def brute_force_permutation(n: int, score) -> tuple[int, ...]:
    """The permutation of ``range(n)`` with the largest ``score(perm)``."""
    return max(itertools.permutations(range(n)), key=score)
