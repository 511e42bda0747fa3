"""GLNS parts: neighbourhoods, sub-MIP repairs, size adaptation and the instability ranking."""

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.methods.glns.instability import extract_region, generate, gradient_rule, region_kernel
from cosolve.methods.glns.neighborhood import AdaptiveSize, Subproblem, candidate_lists, free_columns_kernel, subproblem_kernel
from cosolve.methods.glns.repair import repair
from cosolve.problems import SetCover
from tests.heuristics.setcover.setcover_cases import random_cover
from tests.oracles import brute_force_setcover


def neighbourhood(p, x, budget, rng, per_row=4):
    rp, ri, cp, ci = index_arrays(p.matrix, p.csc)
    reduced = np.asarray(p.costs, float)
    cand_ptr, cand_idx = candidate_lists(reduced, np.ones(p.n_cols, bool), rp, ri, per_row)
    free, _ = free_columns_kernel(rng.permutation(p.n_cols), rp, ri, cp, ci, cand_ptr, cand_idx, x, budget)
    cover = np.asarray(p.matrix @ x.astype(np.int64), dtype=np.int64)
    rows, sub_ptr, sub_idx = subproblem_kernel(free, rp, ri, cp, ci, x, cover)
    return Subproblem(free, rows, sub_ptr, sub_idx, x[free].copy())


def brute_force_sub(sub, costs):
    """The cheapest cover of the subproblem's rows by its free columns."""
    matrix = sp.csr_array((np.ones(sub.sub_idx.size), sub.sub_idx, sub.sub_ptr), shape=(sub.rows.size, sub.size))
    return brute_force_setcover(SetCover(np.asarray(costs, float)[sub.free], matrix))


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("solver", ["scip", "cpsat"])
def test_repairs_are_feasible_never_worse_and_optimal_when_proven(seed, solver):
    rng = np.random.default_rng(seed)
    p = random_cover(rng, int(rng.integers(8, 25)), int(rng.integers(10, 30)), rng.uniform(0.1, 0.3))
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    sub = neighbourhood(p, x, budget=12, rng=rng)
    assert sub.size <= p.n_cols
    out = repair(sub, p.costs, time_limit=10, seed=seed, solver=solver)
    y = x.copy()
    y[sub.free] = out.choice
    assert p.evaluate(y).feasible  # fixed columns plus the repair cover every row
    assert out.cost <= float(p.costs[sub.free] @ sub.start) + 1e-9
    if out.optimal and sub.size <= 16:
        assert out.cost == pytest.approx(brute_force_sub(sub, p.costs))


@pytest.mark.parametrize("solver", ["scip", "cpsat"])
def test_a_repair_one_unit_cheaper_than_the_start_is_found(solver):
    # the incumbent {0, 1} costs 4; column 2 alone covers everything at cost 3 (start - 1: exactly at
    # SCIP's tightened cutoff for integral objectives)
    a = sp.csr_array(np.array([[1, 0, 1], [0, 1, 1]], dtype=np.int8))
    p = SetCover(np.array([2.0, 2.0, 3.0]), a)
    sub = Subproblem(np.arange(3), np.arange(2), np.array([0, 2, 4]), np.array([0, 2, 1, 2]), np.array([1, 1, 0], np.int8))
    out = repair(sub, p.costs, time_limit=5, solver=solver)
    assert out.choice.tolist() == [0, 0, 1] and out.cost == 3.0 and out.optimal and out.built == 1.0
    same = repair(Subproblem(sub.free, sub.rows, sub.sub_ptr, sub.sub_idx, np.array([0, 0, 1], np.int8)), p.costs, time_limit=5)
    assert same.optimal and same.cost == 3.0  # nothing cheaper: proven by the cutoff


def test_neighbourhood_respects_its_budget_and_frees_the_incumbent_around_its_rows():
    rng = np.random.default_rng(4)
    p = random_cover(rng, 60, 200, 0.05)
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    for budget in (5, 20, 80):
        sub = neighbourhood(p, x, budget, rng)
        assert budget <= sub.size <= budget + p.matrix.indptr.max()  # stops during the row that filled it
        fixed = x.copy()
        fixed[sub.free] = 0
        uncovered = np.flatnonzero((p.matrix @ fixed.astype(np.int64)) == 0)
        assert sorted(sub.rows.tolist()) == sorted(uncovered.tolist())


def test_adaptive_size_grows_after_optimal_failures_and_shrinks_after_timeouts():
    size = AdaptiveSize(100, low=20, high=150, factor=1.25)
    size.update(improved=False, optimal=True)
    assert int(size) == 125
    size.update(improved=True, optimal=False)
    assert int(size) == 125
    for _ in range(3):
        size.update(improved=False, optimal=True)
    assert int(size) == 150
    for _ in range(20):
        size.update(improved=False, optimal=False)
    assert int(size) == 20


def test_a_cap_holds_the_size_below_it_even_after_its_upper_bound_is_reset():
    size = AdaptiveSize(100, low=20, high=1000, factor=1.25)
    for _ in range(20):
        size.update(improved=False, optimal=True)
    assert int(size) == 1000
    size.cap(300)
    assert int(size) == 300
    size.high = 5000  # as when a cheaper cover unfixes columns
    for _ in range(20):
        size.update(improved=False, optimal=True)
    assert int(size) == 300
    size.cap(5)
    assert int(size) == 20  # never below low


@pytest.mark.parametrize("since", ["start", "gain"])
def test_the_probation_fails_after_its_seconds_of_repairs_without_a_cheaper_cover(since):
    from cosolve.methods.glns.lns import RepairProbation

    probation = RepairProbation(1.0, since)
    probation.record(0.6, improved=False)
    assert not probation.failed
    probation.record(0.5, improved=False)
    assert probation.failed
    assert not RepairProbation(0.0, since).failed  # 0: no probation
    early = RepairProbation(1.0, since)
    early.record(0.2, improved=True)  # a cheaper cover early on ...
    for _ in range(10):
        early.record(0.3, improved=False)  # ... then 3 s of repairs without one
    assert early.failed == (since == "gain")  # counted from the start, one cheaper cover ends it for good
    renewed = RepairProbation(1.0, "gain")
    renewed.record(0.9, improved=False)
    renewed.record(0.1, improved=True)
    renewed.record(0.9, improved=False)
    assert not renewed.failed  # the count restarted at the cheaper cover


def planted_instance(blocks=12, width=6):
    """Blocks of ``width`` rows. Per block: one column covering it (cost 1, in the incumbent) and
    two alternatives (cost 3). In the planted block the incumbent instead uses two half columns
    (cost 5 each) while a full column costs 1 -- the only place a repair pays."""
    columns, costs, incumbent = [], [], []
    for b in range(blocks):
        rows = list(range(b * width, (b + 1) * width))
        if b == 0:
            half = width // 2
            columns += [rows[:half], rows[half:], rows]
            costs += [5.0, 5.0, 1.0]
            incumbent += [1, 1, 0]
        else:
            columns += [rows, rows, rows]
            costs += [1.0, 3.0, 3.0]
            incumbent += [1, 0, 0]
    m, n = blocks * width, len(columns)
    a = sp.lil_array((m, n), dtype=np.int8)
    for j, rows in enumerate(columns):
        for i in rows:
            a[i, j] = 1
    return SetCover(np.array(costs), sp.csr_array(a)), np.array(incumbent, np.int8)


def test_instability_ranks_the_planted_region_first():
    p, x = planted_instance()
    assert p.evaluate(x).feasible
    cover = np.asarray(p.matrix @ x.astype(np.int64))
    region = extract_region(p.csc, p.costs, np.zeros(p.n_cols), x, cover, np.arange(p.n_cols))
    assert region.rows.tolist() == list(range(p.n_rows))
    rng = np.random.default_rng(0)
    score = sum(generate(region, gradient_rule(), chains=8, steps=16, noise=0.3, rng=rng) for _ in range(5))
    top = np.argsort(-score, kind="stable")[:3]
    assert set(top.tolist()) == {0, 1, 2}


def test_region_walk_is_bounded_and_keeps_the_incumbent_columns_of_its_rows():
    rng = np.random.default_rng(1)
    p = random_cover(rng, 80, 400, 0.03)
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    rp, ri, cp, ci = index_arrays(p.matrix, p.csc)
    cand_ptr, cand_idx = candidate_lists(p.costs, np.ones(p.n_cols, bool), rp, ri, 3)
    rows, cols = region_kernel(0, rp, ri, cp, ci, cand_ptr, cand_idx, x, 50)
    assert rows[0] == 0 and 50 <= cols.size <= 50 + 3 + p.matrix.indptr.max()
    dense = p.matrix.toarray()
    for i in rows:
        assert set(np.flatnonzero(dense[i] * x).tolist()) <= set(cols.tolist())
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=50)
    cover = np.asarray(p.matrix @ x.astype(np.int64))
    region = extract_region(p.csc, p.costs, lag.reduced, x, cover, cols)
    assert region.matrix.shape == (region.rows.size, cols.size) and region.costs.max() == pytest.approx(1.0)
    # its rows: those the region's columns touch that no incumbent column outside the region covers
    outside = x.copy()
    outside[cols] = 0
    touched = np.flatnonzero(dense[:, cols].any(axis=1))
    expected = touched[(dense[touched] @ outside) == 0]
    assert region.rows.tolist() == expected.tolist()
    assert np.all(region.matrix @ region.start >= 1)  # the incumbent covers the region's rows


@pytest.mark.parametrize("solver", ["scip", "cpsat"])
def test_a_sub_mip_whose_building_uses_up_the_slice_is_abandoned_before_the_solver_runs(solver, monkeypatch):
    # the whole of a large instance as a repair takes seconds to build; here a clock that jumps a
    # second at every look stands for it
    import cosolve.methods.glns.repair as repair_module

    clock = iter(range(10**6))
    monkeypatch.setattr(repair_module.time, "perf_counter", lambda: float(next(clock)))
    solved = []
    if solver == "scip":
        import pyscipopt

        class Spy(pyscipopt.Model):
            def optimize(self):
                solved.append(1)

        monkeypatch.setattr(pyscipopt, "Model", Spy)
    else:
        from ortools.sat.python import cp_model

        monkeypatch.setattr(cp_model.CpSolver, "solve", lambda self, model: solved.append(1))
    rng = np.random.default_rng(0)
    p = random_cover(rng, 3000, 4000, 0.002)
    x = greedy_set_cover(p.costs, p.matrix, p.csc)
    sub = neighbourhood(p, x, budget=4000, rng=rng)
    out = repair(sub, p.costs, time_limit=1.5, solver=solver)
    assert not solved and not out.optimal
    assert out.choice.tolist() == sub.start.tolist()
    assert 0 <= out.built < 1  # the first look at the clock, after one variable, already finds it past
