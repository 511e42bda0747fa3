"""Average-case conjoint policies: the active-set QP against brute force, gradient ascent, delta method, best profile."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from cosolve import Solver
from cosolve.methods.conjoint.average import average_case
from cosolve.methods.conjoint.delta import implicit_jacobians, qp_jacobians, qp_value_bias, uncertainty, value_bias
from cosolve.methods.conjoint.gradient import optimize_policy
from cosolve.methods.conjoint.policy import from_z, l2_penalty, policy_qp, policy_value, solve_policy_qp, to_z
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


def brute_force(model: OutcomeModel, lam: float, n_starts: int = 10, seed: int = 0) -> tuple[list[np.ndarray], float]:
    """SLSQP over z with the simplex constraints from p0 and ``n_starts`` random points: an independent
    check of the QP. ``(pi, J)`` of the best start."""
    design = model.design
    o = design.main_offsets

    def negative(z):
        pi = from_z(design, z)
        return -(policy_value(model, pi) - lam * l2_penalty(design, pi))

    cons = [{"type": "ineq", "fun": lambda z, d=d: 1 - z[o[d] : o[d + 1]].sum()} for d in range(design.n_factors)]
    rng = np.random.default_rng(seed)
    starts = [list(design.p0)] + [[rng.dirichlet(np.ones(s)) for s in design.sizes] for _ in range(n_starts)]
    best = None
    for start in starts:
        z0 = to_z(design, start)
        res = minimize(negative, z0, method="SLSQP", bounds=[(0, 1)] * z0.size, constraints=cons,
                       options={"ftol": 1e-15, "maxiter": 1000})  # fmt: skip
        if best is None or res.fun < best.fun:
            best = res
    return from_z(design, best.x), -float(best.fun)


#: (seed, lam, main, inter): interior optima, optima on the boundary (levels at 0), vertices, and
#: non-concave objectives (strong interactions, small lambda)
CASES = [(0, 0.3, 0.05, 0.01), (1, 0.3, 0.05, 0.01), (2, 0.05, 0.1, 0.05), (3, 0.05, 0.3, 0.02), (4, 0.0, 0.1, 0.0),
         (5, 0.02, 0.05, 0.1), (6, 0.01, 0.2, 0.3), (7, 0.02, 0.05, 0.1)]  # fmt: skip


@pytest.mark.parametrize(("seed", "lam", "main", "inter"), CASES)
def test_qp_matches_slsqp_multistart_brute_force(seed, lam, main, inter):
    model = random_model(seed, main=main, inter=inter, interactions=inter > 0, p0="random" if seed % 2 else "uniform")
    sol = solve_policy_qp(model, lam)
    pi, best = brute_force(model, lam, n_starts=10 if sol.concave else 20, seed=seed)
    assert sol.objective >= best - 1e-9  # never worse than the best SLSQP start
    assert sol.objective == pytest.approx(best, abs=1e-8)
    assert max(float(np.abs(a - b).max()) for a, b in zip(sol.pi, pi, strict=True)) < 1e-6
    assert sol.value == pytest.approx(policy_value(model, sol.pi), abs=1e-14)
    assert sol.certificate == ("global" if sol.concave else "local")


def test_qp_cases_cover_interior_boundary_and_non_concave_optima():
    """The brute-force cases above reach every branch: an interior optimum, a boundary one that is
    not a vertex, a vertex, and a non-concave objective."""
    kinds = set()
    for seed, lam, main, inter in CASES:
        sol = solve_policy_qp(random_model(seed, main=main, inter=inter, interactions=inter > 0), lam)
        support, n = int(sol.support.sum()), sol.x.size
        kinds.add("interior" if support == n else "vertex" if support == len(sol.pi) else "boundary")
        kinds.add("concave" if sol.concave else "non-concave")
    assert kinds == {"interior", "boundary", "vertex", "concave", "non-concave"}


@pytest.mark.parametrize(("seed", "lam", "main", "inter"), CASES)
def test_qp_solution_satisfies_the_kkt_conditions(seed, lam, main, inter):
    model = random_model(seed, main=main, inter=inter, interactions=inter > 0)
    sol = solve_policy_qp(model, lam)
    qp = policy_qp(model, lam)
    grad = qp.gradient(sol.x)
    assert np.all(sol.x >= 0) and np.all(sol.x[~sol.support] == 0)
    assert np.allclose([p.sum() for p in sol.pi], 1.0, atol=1e-14)
    slack = sol.mu[qp.factor] - grad
    assert np.abs(slack[sol.support]).max() < 1e-12  # stationary on the support
    assert slack[~sol.support].min(initial=0.0) > -1e-12  # no level off it pays to bring in
    assert sol.kkt_residual < 1e-12


def test_interior_qp_is_the_closed_form_and_agrees_with_gradient_ascent():
    """Where the stationary point of the affine hull is inside the simplices the QP is the closed form
    ``C z = b`` (solved here directly) and gradient ascent on logits finds it too."""
    model = random_model(1, p0="random")
    lam = 0.3
    sol = solve_policy_qp(model, lam)
    assert sol.support.all() and sol.concave and sol.max_eigenvalue < 0
    qp = policy_qp(model, lam)
    Z, C = qp.reduced_hessian(np.ones(sol.x.size, dtype=bool))
    x0 = np.concatenate(model.design.p0)
    x = x0 + Z @ np.linalg.solve(C, -(Z.T @ qp.gradient(x0)))
    assert np.abs(x - sol.x).max() < 1e-13
    grad = optimize_policy(model, lam)
    assert grad.converged and np.abs(np.concatenate(grad.pi) - sol.x).max() < 1e-8
    assert grad.value == pytest.approx(sol.value, abs=1e-12)


@pytest.mark.parametrize("lam", [float("nan"), float("inf"), -1.0])
@pytest.mark.parametrize(("penalty", "solver"), [("l2", "qp"), ("l2", "gradient"), ("kl", "auto")])
def test_lambda_must_be_finite_and_non_negative(lam, penalty, solver):
    """NaN passes a ``lam < 0`` check and makes the QP's eigenvalues fail: refused, like a negative lambda."""
    from cosolve.errors import UsageError

    with pytest.raises(UsageError, match="finite non-negative"):
        average_case(random_model(0), lam, penalty=penalty, solver=solver)


def test_non_concave_objective_is_reported_with_its_certificate():
    model = random_model(1, inter=1.0)
    result = average_case(model, 0.01)
    assert result.solver == "qp" and not result.extra["concave"] and result.extra["max_eigenvalue"] > 0
    assert result.extra["certificate"] in ("local", "kkt") and "not concave" in result.note
    assert result.extra["starts"] > 1
    tilted = random_model(2, interactions=False, main=1.0)
    boundary = average_case(tilted, 0.05)
    assert boundary.extra["concave"] and boundary.extra["certificate"] == "global" and "boundary" in boundary.note


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


@pytest.mark.parametrize(
    ("seed", "sizes", "lam", "inter", "forced_choice"),
    [(4, (2, 3, 3), 0.25, 0.01, False), (4, (2, 3, 3), 0.25, 0.01, True), (0, (2, 3, 4), 0.05, 0.05, True),
     (0, (2, 3, 4), 0.02, 0.1, False)],
)  # fmt: skip
def test_qp_delta_method_matches_finite_differences_on_the_active_set(seed, sizes, lam, inter, forced_choice):
    """Interior, boundary (levels at 0) and non-concave optima: the Jacobians of the closed form on the
    support against central differences of re-solved QPs (whose support does not move), and the
    interior case against implicit differentiation of gradient ascent's logits."""
    model = random_model(seed, sizes=sizes, main=0.1 if lam < 0.1 else 0.05, inter=inter, forced_choice=forced_choice)
    sol = solve_policy_qp(model, lam)
    assert not sol.degenerate
    jac_pi, jac_q = qp_jacobians(model, lam, sol)
    supports = []

    def solve(m):
        moved = solve_policy_qp(m, lam)
        supports.append(moved.support)
        return moved.pi

    fd_pi, fd_q = _finite_difference(model, lam, solve)
    assert all((s == sol.support).all() for s in supports)
    assert np.abs(jac_pi - fd_pi).max() < 1e-7 and np.abs(jac_q - fd_q).max() < 1e-7
    assert not jac_pi[~sol.support].any()  # levels off the support stay at 0
    if sol.support.all():
        grad = optimize_policy(model, lam)
        imp_pi, imp_q = implicit_jacobians(model, lam, "l2", grad.w)
        assert np.abs(imp_pi - jac_pi).max() < 1e-9 and np.abs(imp_q - jac_q).max() < 1e-9
    u = uncertainty(model, jac_pi, jac_q)
    assert u.value_se > 0 and all(s.shape == p.shape for s, p in zip(u.pi_se, sol.pi, strict=True))


def test_qp_delta_method_standard_error_matches_simulation_on_the_active_set():
    """Draws of the parameters from their (small) covariance, the QP re-solved for each: the spread
    of the optimal value is the delta method's standard error (the support holds for every draw)."""
    model = random_model(0, sizes=(2, 3, 4), main=0.1, inter=0.05, forced_choice=True)
    model = OutcomeModel(model.design, "identity", True, model.params, 1e-6 * model.cov / model.cov.max(), forced_choice=True)
    lam = 0.05
    sol = solve_policy_qp(model, lam)
    assert 3 < sol.support.sum() < sol.x.size
    result = average_case(model, lam)
    rng = np.random.default_rng(2)
    values, xs = [], []
    for draw in rng.multivariate_normal(model.params, model.cov, size=400):
        moved = solve_policy_qp(model.with_params(draw), lam)
        assert (moved.support == sol.support).all()
        values.append(moved.value)
        xs.append(moved.x)
    assert np.std(values) == pytest.approx(result.value_se, rel=0.15)
    np.testing.assert_allclose(np.std(xs, axis=0), np.concatenate(result.pi_se), rtol=0.15, atol=1e-12)


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


@pytest.mark.parametrize(("sizes", "lam", "inter", "forced_choice"), [((2, 3, 3), 0.25, 0.05, False),
                                                                     ((2, 3, 3), 0.25, 0.05, True),
                                                                     ((2, 3, 4), 0.05, 0.05, True)])  # fmt: skip
def test_value_bias_is_half_the_trace_of_the_value_hessian_times_the_covariance(sizes, lam, inter, forced_choice):
    """The QP's closed-form bias and gradient ascent's (torch) against central differences of the
    analytic value Jacobian, on an interior and on a boundary optimum."""
    model = random_model(8 if lam > 0.1 else 0, sizes=sizes, main=0.05 if lam > 0.1 else 0.1, inter=inter,
                         forced_choice=forced_choice)  # fmt: skip
    sol = solve_policy_qp(model, lam)
    P, h = model.params.size, 1e-5
    rows = []
    for k in range(P):
        step = h * np.eye(P)[k]
        up, down = model.with_params(model.params + step), model.with_params(model.params - step)
        rows.append(
            (qp_jacobians(up, lam, solve_policy_qp(up, lam))[1] - qp_jacobians(down, lam, solve_policy_qp(down, lam))[1])
            / (2 * h)
        )
    expected = 0.5 * float(np.sum(np.array(rows) * model.cov))
    assert qp_value_bias(model, lam, sol) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    if sol.support.all():
        w = np.concatenate([np.log(p[1:] / p[0]) for p in sol.pi])
        assert value_bias(model, lam, "l2", w) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    else:
        assert sol.support.sum() > len(sizes)  # a boundary optimum that is not a vertex
    result = average_case(model, lam)
    assert result.value_bias == pytest.approx(expected, rel=1e-6, abs=1e-12)
    low, high = result.value_interval()
    assert (low + high) / 2 == pytest.approx(result.value - result.value_bias, abs=1e-15)
    assert high - low == pytest.approx(2 * 1.959963984540054 * result.value_se, rel=1e-9)


def test_plug_in_value_is_biased_up_by_about_the_estimated_bias():
    """The winner's curse, by simulation: refit on resampled parameters and compare the mean
    plug-in optimal value with the true optimum plus the estimated bias."""
    model = random_model(9, sizes=(2, 3, 3, 2), main=0.02, inter=0.02, forced_choice=True)
    model = OutcomeModel(model.design, "identity", True, model.params, 4e-5 * np.eye(model.params.size), forced_choice=True)
    lam = 0.5
    truth = solve_policy_qp(model, lam).value
    bias = average_case(model, lam).value_bias
    rng = np.random.default_rng(1)
    draws = rng.multivariate_normal(model.params, model.cov, size=4000)
    values = np.array([solve_policy_qp(m, lam).value for m in (model.with_params(d) for d in draws)])
    assert bias > 0
    se = values.std() / np.sqrt(values.size)
    assert abs(values.mean() - truth - bias) < 4 * se + 0.1 * bias
    assert values.mean() - truth > 4 * se  # the bias is real, not noise


def test_a_bias_too_large_to_trust_is_not_subtracted_from_the_interval():
    from cosolve.methods.conjoint.average import PolicyResult

    def result(value, se, bias):
        return PolicyResult([np.array([1.0])], [np.array([0.0])], value, se, 0.5, "qp", 0.1, "l2", value_bias=bias)

    trusted = result(0.5134, 0.0019, 0.0030)  # the bundled conjoint at lambda 0.5: 1.6 se
    assert trusted.bias_corrects
    assert sum(trusted.value_interval()) / 2 == pytest.approx(0.5134 - 0.0030)
    for untrusted in (result(0.6195, 0.048, 0.235), result(0.52, 0.05, 0.03)):  # 4.9 se; below p0's value 0.5
        assert not untrusted.bias_corrects
        assert sum(untrusted.value_interval()) / 2 == pytest.approx(untrusted.value)


def test_a_forced_choice_value_outside_the_unit_interval_and_a_vertex_optimum_are_noted():
    model = random_model(3, sizes=(3, 3, 3), interactions=False, main=0.3, forced_choice=True)
    result = average_case(model, 0.0)
    assert result.value > 1.0 and "outside [0, 1]" in result.note
    assert all((p > 0).sum() == 1 for p in result.pi) and "all mass on one level of every factor" in result.note
    inside = average_case(model, 5.0)  # a policy near p0
    assert 0.0 <= inside.value <= 1.0 and "outside [0, 1]" not in inside.note
