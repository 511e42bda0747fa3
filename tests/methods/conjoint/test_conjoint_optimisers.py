"""Average-case conjoint policies: closed form, gradient ascent, delta method, best profile."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from cosolve import Solver
from cosolve.methods.conjoint.average import average_case
from cosolve.methods.conjoint.delta import closed_form_jacobians, implicit_jacobians, uncertainty, value_bias
from cosolve.methods.conjoint.gradient import optimize_policy
from cosolve.methods.conjoint.policy import closed_form, from_z, l2_penalty, policy_value, to_z
from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import OutcomeModel
from cosolve.problems.conjoint.problem import BestProfile


def random_model(
    seed: int, sizes=(2, 3, 4, 3), interactions=True, main=0.05, inter=0.01, p0="uniform", forced_choice=False
) -> OutcomeModel:
    rng = np.random.default_rng(seed)
    levels = [[f"l{j}" for j in range(s)] for s in sizes]
    design = Design.uniform([f"f{d}" for d in range(len(sizes))], levels)
    if p0 == "random":
        design = Design(design.factors, design.levels, tuple(rng.dirichlet(np.full(s, 5.0)) for s in sizes))
    P = design.n_features(interactions)
    params = np.concatenate([[0.5], rng.normal(0, main, design.n_main), rng.normal(0, inter, P - design.n_main)])
    a = rng.normal(0, 0.002, (P + 1, P + 1))
    return OutcomeModel(design, "identity", interactions, params, a @ a.T + 1e-6 * np.eye(P + 1), forced_choice=forced_choice)


def numerical_optimum(model: OutcomeModel, lam: float) -> list[np.ndarray]:
    """SLSQP over z with the simplex constraints: an independent check of the closed form."""
    design = model.design
    o = design.main_offsets

    def negative(z):
        pi = from_z(design, z)
        return -(policy_value(model, pi) - lam * l2_penalty(design, pi))

    cons = [{"type": "ineq", "fun": lambda z, d=d: 1 - z[o[d] : o[d + 1]].sum()} for d in range(design.n_factors)]
    z0 = to_z(design, list(design.p0))
    res = minimize(
        negative, z0, method="SLSQP", bounds=[(0, 1)] * z0.size, constraints=cons, options={"ftol": 1e-15, "maxiter": 500}
    )
    return from_z(design, res.x)


@pytest.mark.parametrize("seed", range(6))
def test_closed_form_matches_a_numerical_optimiser_and_gradient_ascent(seed):
    model = random_model(seed, p0="random" if seed % 2 else "uniform")
    lam = 0.3
    cf = closed_form(model, lam)
    assert cf.ok, cf.reason
    assert cf.max_eigenvalue < 0
    for a, b in zip(cf.pi, numerical_optimum(model, lam), strict=True):
        assert np.abs(a - b).max() < 1e-6
    grad = optimize_policy(model, lam)
    assert grad.converged
    for a, b in zip(cf.pi, grad.pi, strict=True):
        assert np.abs(a - b).max() < 1e-8
    assert grad.value == pytest.approx(policy_value(model, cf.pi), abs=1e-12)


def test_closed_form_refuses_when_its_checks_fail():
    strong = random_model(1, inter=1.0)
    assert not closed_form(strong, 0.01).ok and "negative definite" in closed_form(strong, 0.01).reason
    tilted = random_model(2, interactions=False, main=1.0)
    result = closed_form(tilted, 0.05)
    assert not result.ok and "simplex" in result.reason
    assert not closed_form(tilted, 0.0).ok


def test_kl_penalty_main_effects_is_the_exponential_tilt():
    """Main effects only, KL penalty: pi[d] is proportional to p0[d] exp(beta[d] / lam)."""
    model = random_model(3, interactions=False, main=0.2, p0="random")
    lam = 0.1
    grad = optimize_policy(model, lam, penalty="kl")
    o = model.design.main_offsets
    for d, p in enumerate(grad.pi):
        beta = np.concatenate([[0.0], model.theta[o[d] : o[d + 1]]])
        tilt = model.design.p0[d] * np.exp(beta / lam)
        assert np.abs(p - tilt / tilt.sum()).max() < 1e-10


def _finite_difference(model, lam, solve, eps=1e-6):
    cols_pi, cols_q = [], []
    for j in range(model.params.size):
        values = []
        for sign in (1, -1):
            params = model.params.copy()
            params[j] += sign * eps
            moved = model.with_params(params)
            pi = solve(moved)
            values.append((np.concatenate(pi), policy_value(moved, pi)))
        cols_pi.append((values[0][0] - values[1][0]) / (2 * eps))
        cols_q.append((values[0][1] - values[1][1]) / (2 * eps))
    return np.array(cols_pi).T, np.array(cols_q)


@pytest.mark.parametrize("forced_choice", [False, True])
def test_delta_method_jacobians_match_finite_differences(forced_choice):
    model = random_model(4, sizes=(2, 3, 3), forced_choice=forced_choice)
    lam = 0.25
    cf = closed_form(model, lam)
    jac_pi, jac_q = closed_form_jacobians(model, lam, cf)
    fd_pi, fd_q = _finite_difference(model, lam, lambda m: closed_form(m, lam).pi)
    assert np.abs(jac_pi - fd_pi).max() < 1e-7 and np.abs(jac_q - fd_q).max() < 1e-7
    grad = optimize_policy(model, lam)
    imp_pi, imp_q = implicit_jacobians(model, lam, "l2", grad.w)
    assert np.abs(imp_pi - jac_pi).max() < 1e-9 and np.abs(imp_q - jac_q).max() < 1e-9
    u = uncertainty(model, jac_pi, jac_q)
    assert u.value_se > 0 and all(s.shape == p.shape for s, p in zip(u.pi_se, cf.pi, strict=True))


@pytest.mark.parametrize("forced_choice", [False, True])
def test_implicit_jacobians_for_the_kl_penalty_match_finite_differences(forced_choice):
    model = random_model(5, sizes=(2, 3, 3), p0="random", forced_choice=forced_choice)
    lam = 0.2
    grad = optimize_policy(model, lam, penalty="kl")
    jac_pi, jac_q = implicit_jacobians(model, lam, "kl", grad.w)
    fd_pi, fd_q = _finite_difference(model, lam, lambda m: optimize_policy(m, lam, penalty="kl", start=grad.w).pi)
    assert np.abs(jac_pi - fd_pi).max() < 1e-6 and np.abs(jac_q - fd_q).max() < 1e-6


def test_best_profile_mip_matches_enumeration_and_is_the_small_penalty_limit():
    model = random_model(6, sizes=(2, 3, 4, 3, 2), main=0.05, inter=0.03)
    problem = BestProfile(model)
    profiles = list(itertools.product(*[range(s) for s in model.design.sizes]))
    best = max(profiles, key=lambda x: problem.value(np.array(x)))
    best_value = problem.value(np.array(best))
    for method in ("scip", "cpsat"):
        result = Solver(method, time_limit=20).solve(problem)
        assert result.status.value == "optimal"
        assert result.objective == pytest.approx(best_value, abs=1e-9)
    previous = -np.inf
    for lam in (1e-1, 1e-2, 1e-4):
        policy = optimize_policy(model, lam)
        assert policy.value >= previous - 1e-9  # less penalty, more value
        previous = policy.value
    assert [int(np.argmax(p)) for p in policy.pi] == list(best)
    assert policy.value == pytest.approx(best_value, abs=1e-3)


def test_best_profile_checks_its_solution():
    problem = BestProfile(random_model(7))
    assert problem.evaluate(np.array([0, 1, 2, 0])).feasible
    assert not problem.evaluate(np.array([0, 3, 2, 0])).feasible


def test_forced_choice_value_is_the_chance_of_beating_the_randomisation():
    model = random_model(7, p0="random", forced_choice=True)
    design = model.design
    rng = np.random.default_rng(0)
    pi = [rng.dirichlet(np.ones(s)) for s in design.sizes]
    profiles = np.array(list(itertools.product(*[range(s) for s in design.sizes])))
    f = design.features(profiles, model.interactions) @ model.theta

    def probs(p):
        return np.prod([p[d][profiles[:, d]] for d in range(design.n_factors)], axis=0)

    # forced choice with the identity link: P(x beats x') = 1/2 + f(x) - f(x'); alpha plays no part
    beats = probs(pi) @ (0.5 + f[:, None] - f[None, :]) @ probs(list(design.p0))
    assert policy_value(model, pi) == pytest.approx(beats, abs=1e-12)
    assert policy_value(model, list(design.p0)) == pytest.approx(0.5, abs=1e-12)
    assert policy_value(model.with_params(model.params + np.eye(model.params.size)[0]), pi) == pytest.approx(beats, abs=1e-12)


@pytest.mark.parametrize("forced_choice", [False, True])
def test_value_bias_is_half_the_trace_of_the_value_hessian_times_the_covariance(forced_choice):
    """Both routes of ``value_bias`` against central differences of the analytic value Jacobian."""
    model = random_model(8, sizes=(2, 3, 3), inter=0.05, forced_choice=forced_choice)
    lam = 0.25
    cf = closed_form(model, lam)
    assert cf.ok
    P, h = model.params.size, 1e-5
    rows = []
    for k in range(P):
        step = h * np.eye(P)[k]
        up, down = model.with_params(model.params + step), model.with_params(model.params - step)
        rows.append(
            (
                closed_form_jacobians(up, lam, closed_form(up, lam))[1]
                - closed_form_jacobians(down, lam, closed_form(down, lam))[1]
            )
            / (2 * h)
        )
    expected = 0.5 * float(np.sum(np.array(rows) * model.cov))
    w = np.concatenate([np.log(p[1:] / p[0]) for p in cf.pi])
    assert value_bias(model, lam, "l2", w, closed_form=True) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    assert value_bias(model, lam, "l2", w) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    result = average_case(model, lam)
    assert result.value_bias == pytest.approx(expected, rel=1e-6, abs=1e-12)
    low, high = result.value_interval()
    assert (low + high) / 2 == pytest.approx(result.value - expected, abs=1e-12)
    assert high - low == pytest.approx(2 * 1.959963984540054 * result.value_se, rel=1e-9)


def test_plug_in_value_is_biased_up_by_about_the_estimated_bias():
    """The winner's curse, by simulation: refit on resampled parameters and compare the mean
    plug-in optimal value with the true optimum plus the estimated bias."""
    model = random_model(9, sizes=(2, 3, 3, 2), main=0.02, inter=0.02, forced_choice=True)
    model = OutcomeModel(model.design, "identity", True, model.params, 4e-5 * np.eye(model.params.size), forced_choice=True)
    lam = 0.5
    truth = policy_value(model, closed_form(model, lam).pi)
    bias = average_case(model, lam).value_bias
    rng = np.random.default_rng(1)
    draws = rng.multivariate_normal(model.params, model.cov, size=4000)
    values = np.array([policy_value(m, closed_form(m, lam).pi) for m in (model.with_params(d) for d in draws)])
    assert bias > 0
    se = values.std() / np.sqrt(values.size)
    assert abs(values.mean() - truth - bias) < 4 * se + 0.1 * bias
    assert values.mean() - truth > 4 * se  # the bias is real, not noise
