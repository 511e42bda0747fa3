"""PSGA on one period of K-sparse TCO: prox kernels, the exact penalty, brute force, the methods."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from cosolve import Solver
from cosolve.errors import InputError, UsageError
from cosolve.methods.psga.prox import admm_prox, exact_prox, project_simplex
from cosolve.methods.psga.psga import (
    penalised_objective,
    penalty_threshold,
    psga,
    solve_on_support,
    start_point,
    support_of,
    tco_objective,
)
from cosolve.problems.portfolio import PortfolioPeriod


def random_period(seed: int, n: int | None = None, k: int | None = None, mu: float | None = None) -> PortfolioPeriod:
    """A TCO1-style period: v = (1/x) / (h . 1/x); h dense, K-sparse or cash by seed."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(4, 9))
    k = k or int(rng.integers(1, n))
    mu = float(rng.choice([0.0, 1.0])) if mu is None else mu
    lam = float(rng.choice([0.0, 0.025, 0.1]))
    x = np.exp(rng.normal(0, 0.03, n))
    h = np.zeros(n) if seed % 4 == 0 else rng.dirichlet(np.ones(n))
    if seed % 4 == 1:
        h[rng.choice(n, n - k, replace=False)] = 0
        h /= h.sum()
    xp = 1 / x
    v = xp / (h @ xp) if h.sum() > 0 else xp / xp.mean()
    return PortfolioPeriod(v, h, k=k, eta=10.0, lam=lam, mu=mu, name=f"tiny-{seed}")


def brute_force(p: PortfolioPeriod) -> float:
    """The constrained optimum: the best exact solve over every support of size k."""
    best = np.inf
    for support in itertools.combinations(range(p.n), p.k):
        mask = np.zeros(p.n, dtype=bool)
        mask[list(support)] = True
        best = min(best, p.objective(solve_on_support(p.v, p.h, p.eta, p.lam, p.mu, mask)))
    return best


def prox_objective(b, c, h, y, lam, mu, alpha):
    d = b - h
    value = c @ b + lam * np.abs(d).sum() + 0.5 * mu * d @ d
    return value + (0.0 if alpha == np.inf else 0.5 / alpha * ((b - y) ** 2).sum())


@pytest.mark.parametrize("mu", [0.0, 1.0])
@pytest.mark.parametrize("alpha", [0.1, 1.0, 10.0])
def test_admm_prox_matches_exact_prox(mu, alpha):
    rng = np.random.default_rng(int(10 * alpha + mu))
    for _ in range(5):
        n = 30
        h = rng.dirichlet(np.ones(n))
        y = rng.dirichlet(np.ones(n))
        c = -10 * np.exp(rng.normal(0, 0.05, n)) - 3 * (rng.random(n) < 0.2)
        mask = rng.random(n) < 0.8
        mask[0] = True
        exact = exact_prox(c, h, y, 0.05, mu, alpha, mask)
        admm, _, _, _ = admm_prox(c, h, y, 0.05, mu, alpha, mask, mu + 1 / alpha, 1e-13, 200_000, y, y, np.zeros(n))
        assert np.abs(exact - admm).max() <= 1e-8
        assert exact[~mask].max(initial=0) == 0 and admm[~mask].max(initial=0) == 0


@pytest.mark.parametrize("alpha", [0.5, np.inf])
def test_exact_prox_is_optimal_along_every_feasible_direction(alpha):
    """Moving mass eps from any held asset to any other never lowers the prox objective."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = 8
        h, y = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
        c = -10 * np.exp(rng.normal(0, 0.05, n))
        mu = float(rng.choice([0.5, 1.0]))
        b = exact_prox(c, h, y, 0.05, mu, alpha, np.ones(n, dtype=np.bool_))
        assert b.min() >= 0 and abs(b.sum() - 1) < 1e-12
        base = prox_objective(b, c, h, y, 0.05, mu, alpha)
        for i, j in itertools.permutations(range(n), 2):
            eps = min(1e-6, b[i])
            if eps <= 0:
                continue
            moved = b.copy()
            moved[i] -= eps
            moved[j] += eps
            assert prox_objective(moved, c, h, y, 0.05, mu, alpha) >= base - 1e-12


def test_linear_case_matches_linprog():
    """mu = 0 without prox term (the continuous knapsack) against an LP with b = h + p - q."""
    rng = np.random.default_rng(4)
    for trial in range(20):
        n, lam = 7, 0.05
        h = rng.dirichlet(np.ones(n)) if trial % 2 else np.zeros(n)
        c = -10 * np.exp(rng.normal(0, 0.05, n))
        b = exact_prox(c, h, h, lam, 0.0, np.inf, np.ones(n, dtype=np.bool_))
        # variables [p, q] >= 0, b = h + p - q >= 0, sum b = 1; cost c.b + lam (p + q)
        cost = np.concatenate([c + lam, -c + lam])
        eye = np.eye(n)
        lp = linprog(
            cost,
            A_ub=np.hstack([-eye, eye]),
            b_ub=h,
            A_eq=np.concatenate([np.ones(n), -np.ones(n)])[None],
            b_eq=[1 - h.sum()],
        )
        assert lp.status == 0
        assert tco_objective(b, -c / 10, h, 10, lam, 0.0) == pytest.approx(lp.fun + c @ h, abs=1e-12)


def test_project_simplex_against_definition():
    rng = np.random.default_rng(5)
    mask = np.ones(6, dtype=np.bool_)
    for _ in range(50):
        y = rng.normal(0, 1, 6)
        p = project_simplex(y, mask)
        assert p.min() >= 0 and abs(p.sum() - 1) < 1e-12
        # optimality: (y - p) . (q - p) <= 0 for every vertex q of the simplex
        for q in np.eye(6):
            assert (y - p) @ (q - p) <= 1e-12


@pytest.mark.parametrize("prox", ["admm", "exact"])
def test_psga_is_k_sparse_on_the_simplex_and_records_its_objective(prox):
    for seed in range(30):
        p = random_period(seed, n=12, k=3)
        rho = 1.1 * penalty_threshold(p.v, p.eta, p.lam, p.mu)
        run = psga(p.v, p.h, eta=p.eta, lam=p.lam, mu=p.mu, k=p.k, rho=rho, alpha=10.0, start=np.full(12, 1 / 12), prox=prox)
        assert run.converged
        assert run.b.min() >= -1e-12 and abs(run.b.sum() - 1) < 1e-9
        assert (run.b > 1e-9).sum() <= p.k
        assert len(run.objectives) == run.iterations + 1
        assert run.objectives[-1] == pytest.approx(penalised_objective(run.b, p.v, p.h, p.eta, p.lam, p.mu, p.k, rho))
        if prox == "exact":  # the proximal DC algorithm descends monotonically
            assert np.all(np.diff(run.objectives) <= 1e-10)


def test_psga_equals_brute_force_on_tiny_instances():
    """PSGA is a local method: it must reach the optimum over all supports on at least 99% of 200
    random tiny instances (1 of 1000 is missed in a wider check with the default three starts, 13
    with the relaxed and previous starts alone) and never report a worse objective than it
    evaluates to."""
    hits = 0
    for seed in range(200):
        p = random_period(seed)
        result = Solver("psga").solve(p)
        assert result.status.value == "feasible"
        assert p.evaluate(result.solution).feasible
        hits += result.objective <= brute_force(p) + 1e-9 * abs(result.objective)
    assert hits >= 198


def test_penalty_threshold_makes_penalised_and_constrained_optima_coincide():
    """The penalised global minimum is min over supports S of min_b F(b) + rho (1 - sum_S b),
    each a convex problem: above the threshold it equals the constrained optimum, well below
    it a dense portfolio wins on some instance."""
    below_differs = 0
    for seed in range(40):
        p = random_period(seed, n=6, k=2)
        constrained = brute_force(p)
        thr = penalty_threshold(p.v, p.eta, p.lam, p.mu)
        for factor in (1.01, 0.05):
            rho = factor * thr
            best = np.inf
            for support in itertools.combinations(range(p.n), p.k):
                bonus = np.zeros(p.n)
                bonus[list(support)] = rho
                b = exact_prox(-p.eta * p.v - bonus, p.h, p.h, p.lam, p.mu, np.inf, np.ones(p.n, dtype=np.bool_))
                best = min(best, penalised_objective(b, p.v, p.h, p.eta, p.lam, p.mu, p.k, rho))
            if factor > 1:
                assert best == pytest.approx(constrained, abs=1e-9)
            else:
                below_differs += best < constrained - 1e-9
    assert below_differs > 0


def test_methods_agree_with_scip_and_are_feasible():
    for seed, mu in [(1, 0.0), (2, 1.0), (5, 0.0), (7, 1.0)]:
        p = random_period(seed, n=10, k=3, mu=mu)
        scip = Solver("scip", time_limit=30).solve(p)
        assert scip.status.value == "optimal"
        assert scip.objective == pytest.approx(brute_force(p), abs=1e-7)
        for method in ("psga", "ksparse-projection"):
            r = Solver(method, time_limit=5).solve(p)
            assert p.evaluate(r.solution).feasible and r.objective >= scip.objective - 1e-7
        psga = Solver("psga", time_limit=5).solve(p)
        assert psga.objective == pytest.approx(scip.objective, abs=1e-7)  # psga reaches SCIP's proven optimum
        if mu == 0:
            r = Solver("ortools-mip", time_limit=30).solve(p)
            assert r.status.value == "optimal" and r.objective == pytest.approx(scip.objective, abs=1e-7)


def test_psga_exact_prox_option_and_stats():
    p = random_period(9, n=10, k=4, mu=1.0)
    r = Solver("psga", prox="exact", starts="relaxed").solve(p)
    assert r.stats["iterations"] >= 1 and r.stats["admm_iterations"] == 0 and r.stats["converged"] == 1
    assert len(r.stats["objectives"]) == r.stats["iterations"] + 1
    default = Solver("psga").solve(p)
    assert default.stats["admm_iterations"] > 0


def test_errors():
    p = random_period(2, n=10, k=3, mu=1.0)
    with pytest.raises(UsageError, match="mu = 0"):
        Solver("ortools-mip").solve(p)
    with pytest.raises(UsageError, match="starts"):
        Solver("psga", starts="relaxed,best").solve(p)
    with pytest.raises(UsageError, match="above 1"):
        Solver("psga", rho_factor=1.0).solve(p)
    with pytest.raises(InputError, match="k must be"):
        PortfolioPeriod(np.ones(3), np.zeros(3), k=4)
    with pytest.raises(InputError, match="shape"):
        PortfolioPeriod(np.ones(3), np.zeros(2), k=1)
    with pytest.raises(InputError, match="non-negative"):
        PortfolioPeriod(np.ones(3), np.array([0.5, 0.7, 0.0]), k=1)


def test_evaluate_names_the_violation():
    p = PortfolioPeriod(np.array([1.0, 1.01, 0.99]), np.array([0.5, 0.5, 0.0]), k=1, lam=0.1)
    assert p.evaluate(np.array([0.0, 1.0, 0.0])).feasible
    assert "more than k" in p.evaluate(np.array([0.5, 0.5, 0.0])).violation
    assert "sum" in p.evaluate(np.array([0.0, 0.9, 0.0])).violation
    assert "negative" in p.evaluate(np.array([-0.1, 1.1, 0.0])).violation
    # F = -10 * 1.01 + 0.1 * (0.5 + 0.5) = -10.0
    assert p.evaluate(np.array([0.0, 1.0, 0.0])).objective == pytest.approx(-10.0)


def test_start_points():
    p = random_period(3, n=6, k=2)
    for name in ("relaxed", "previous", "uniform"):
        b = start_point(name, p.v, p.h, p.eta, p.lam, p.mu)
        assert b.min() >= 0 and abs(b.sum() - 1) < 1e-12
    assert support_of(np.array([0.5, 0.0, 0.3, 0.2]), 2).tolist() == [True, False, True, False]
