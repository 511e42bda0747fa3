"""The Lagrangian bound: never above the optimum (brute force), near the LP bound, and its
reduced-cost fixing never removes a column of a cheaper cover."""

import numpy as np
import pytest
from scipy.optimize import linprog

from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
from tests.heuristics.setcover.setcover_cases import random_cover
from tests.oracles import all_covers


def lp_bound(problem):
    return linprog(problem.costs, A_ub=-problem.matrix, b_ub=-np.ones(problem.n_rows), bounds=(0, 1), method="highs").fun


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("core", [False, True])
def test_bound_never_exceeds_the_optimum_and_fixing_keeps_every_cheaper_cover(seed, core):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(4, 12)), int(rng.integers(6, 14)), rng.uniform(0.15, 0.5))
    covers = all_covers(p)
    values = covers @ p.costs
    optimum = values.min()
    upper = float(p.costs @ greedy_set_cover(p.costs, p.matrix, p.csc))
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=upper, iterations=300, core_min_columns=4 if core else 10**9)
    assert lag.bound <= optimum + 1e-9
    assert lag.bound <= lp_bound(p) + 1e-6
    # the reported bound is L(u) at the reported multipliers and reduced costs
    u = lag.multipliers
    assert np.all(u >= 0)
    np.testing.assert_allclose(lag.reduced, p.costs - p.matrix.T @ u, atol=1e-9)
    assert lag.bound == pytest.approx(u.sum() + np.minimum(lag.reduced, 0).sum())
    # every cover cheaper than `cut` avoids the columns fixable at `cut`
    for cut in (upper, optimum + 0.5):
        fixable = lag.fixable(cut)
        cheaper = covers[values < cut - 1e-9]
        assert not (cheaper[:, fixable] == 1).any()


def test_bound_comes_close_to_the_lp_bound_on_orlibrary_instances():
    import cosolve

    p = cosolve.read("instances/setcover/scp41.txt")
    upper = float(p.costs @ greedy_set_cover(p.costs, p.matrix, p.csc))
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=upper)
    lp = lp_bound(p)
    assert lp - 0.01 * lp <= lag.bound <= lp + 1e-6  # within 1% of the LP relaxation (429 here, the optimum)


def test_core_pricing_on_a_large_instance_gives_a_valid_bound_fast():
    from cosolve.generators.setcover import random_setcover

    p = random_setcover(300, 30_000, nnz=300_000, seed=3)
    upper = float(p.costs @ greedy_set_cover(p.costs, p.matrix, p.csc))
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=upper, iterations=400, core_min_columns=20_000)
    assert lag.core.size < p.n_cols
    assert lag.bound <= lp_bound(p) + 1e-6
    assert lag.bound >= 0.9 * lp_bound(p)


def test_stop_returns_the_best_bound_so_far():
    rng = np.random.default_rng(0)
    p = random_cover(rng, 30, 60, 0.2)
    calls = []
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=1e3, iterations=10_000, stop=lambda: calls.append(1) or len(calls) > 2)
    assert lag.iterations <= 100
    assert lag.bound <= lp_bound(p) + 1e-6
    unstopped = lagrangian_bound(p.costs, p.matrix, p.csc, upper=1e3, iterations=lag.iterations)
    assert lag.bound == unstopped.bound  # the best of the iterations it ran, as a run of that length finds
    first = lagrangian_bound(p.costs, p.matrix, p.csc, upper=1e3, iterations=1)
    assert lag.bound >= first.bound
