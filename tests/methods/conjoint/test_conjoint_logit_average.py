"""The average case as a best response to the randomisation: identity link against the QP,
logit link against brute force, Monte Carlo against enumeration, delta method against finite
differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from test_conjoint_optimisers import random_model

from cosolve.errors import UsageError
from cosolve.methods.conjoint.average import average_case, average_case_by_response
from cosolve.methods.conjoint.policy import from_z, to_z
from cosolve.methods.conjoint.tensors import torch_threads
from cosolve.problems.conjoint.model import OutcomeModel


@pytest.fixture(autouse=True)
def one_thread():
    with torch_threads(1):
        yield


def logit_model(seed: int) -> OutcomeModel:
    m = random_model(seed, main=0.8, inter=0.3)
    return OutcomeModel(m.design, "logit", m.interactions, m.params, 100 * m.cov)


def exact_value(model: OutcomeModel, pi) -> float:
    """``E_{x ~ pi, x' ~ p0} sigmoid(f(x) - f(x'))`` by enumerating every pair of profiles."""
    design = model.design
    X = np.array(list(itertools.product(*[range(s) for s in design.sizes])))
    f = design.features(X, model.interactions) @ model.params[1:]

    def probs(p):
        return np.prod([np.asarray(p[d])[X[:, d]] for d in range(design.n_factors)], axis=0)

    return float(probs(pi) @ expit(f[:, None] - f[None, :]) @ probs(list(design.p0)))


def penalty(design, pi, kind: str) -> float:
    if kind == "l2":
        return float(sum(((p - q) ** 2).sum() for p, q in zip(pi, design.p0, strict=True)))
    return float(sum((p * np.log(np.maximum(p, 1e-300) / q)).sum() for p, q in zip(pi, design.p0, strict=True)))


def brute_force_optimum(model: OutcomeModel, lam: float, kind: str) -> float:
    """The best objective SLSQP finds on the enumerated objective, from p0 and five random starts."""
    design = model.design
    o = design.main_offsets

    def negative(z):
        pi = from_z(design, z)
        return -(exact_value(model, pi) - lam * penalty(design, pi, kind))

    cons = [{"type": "ineq", "fun": lambda z, d=d: 1 - z[o[d] : o[d + 1]].sum()} for d in range(design.n_factors)]
    rng = np.random.default_rng(0)
    starts = [list(design.p0)] + [[rng.dirichlet(np.ones(len(p))) for p in design.p0] for _ in range(5)]
    best = np.inf
    for start in starts:
        z0 = to_z(design, start)
        res = minimize(negative, z0, method="SLSQP", bounds=[(0, 1)] * z0.size, constraints=cons,
                       options={"ftol": 1e-15, "maxiter": 1000})  # fmt: skip
        best = min(best, res.fun)
    return -best


@pytest.mark.parametrize("seed", [0, 1])
def test_identity_link_reproduces_the_qp_and_its_standard_errors(seed):
    model = random_model(seed, p0="random" if seed % 2 else "uniform")
    cf = average_case(model, 0.3)
    br = average_case_by_response(model, 0.3)
    assert cf.solver == "qp" and br.extra["estimator"] == "mc" and br.extra["mc_se"] == 0.0
    for a, b in zip(cf.pi, br.pi, strict=True):
        assert np.abs(a - b).max() < 1e-8
    for a, b in zip(cf.pi_se, br.pi_se, strict=True):
        assert np.abs(a - b).max() < 1e-8
    assert br.value == pytest.approx(cf.value, abs=1e-10)
    assert br.value_se == pytest.approx(cf.value_se, rel=1e-6)
    assert br.p0_value == pytest.approx(cf.p0_value, abs=1e-12)


@pytest.mark.parametrize(("seed", "kind", "lam"), [(0, "l2", 0.3), (1, "l2", 0.3), (0, "kl", 0.05), (2, "kl", 0.05)])
def test_logit_optimum_matches_brute_force(seed, kind, lam):
    model = logit_model(seed)
    result = average_case(model, lam, penalty=kind)
    assert result.extra["estimator"] == "enumerate" and result.extra["kkt_gap"] < 1e-9
    assert result.value == pytest.approx(exact_value(model, result.pi), abs=1e-12)
    assert result.p0_value == 0.5 and exact_value(model, list(model.design.p0)) == pytest.approx(0.5, abs=1e-12)
    ours = result.value - lam * penalty(model.design, result.pi, kind)
    best = brute_force_optimum(model, lam, kind)
    assert ours >= best - 1e-9
    assert result.value > 0.5 and result.value_se > 0


def test_monte_carlo_agrees_with_enumeration():
    model = logit_model(1)
    exact = average_case_by_response(model, 0.05, penalty="kl", estimator="enumerate")
    mc = average_case_by_response(model, 0.05, penalty="kl", estimator="mc", n_samples=4000)
    assert mc.extra["estimator"] == "mc" and mc.extra["mc_se"] > 0
    # the plain Monte Carlo value is within its error of the exact value of the same policy
    assert abs(mc.value - exact_value(model, mc.pi)) < 4 * mc.extra["mc_se"]

    # and the policy it finds is nearly optimal for the exact objective
    def objective(pi):
        return exact_value(model, pi) - 0.05 * penalty(model.design, pi, "kl")

    assert objective(mc.pi) > objective(exact.pi) - 5e-4
    assert mc.value_se == pytest.approx(exact.value_se, rel=0.1)


def test_logit_delta_method_matches_finite_differences():
    model = logit_model(0)
    lam = 0.05
    base = average_case_by_response(model, lam, penalty="kl", estimator="enumerate")
    rng = np.random.default_rng(3)
    for _ in range(2):
        direction = rng.normal(size=model.params.size)
        direction[0] = 0.0
        h = 1e-4
        plus = average_case_by_response(model.with_params(model.params + h * direction), lam, penalty="kl", estimator="enumerate")
        minus = average_case_by_response(
            model.with_params(model.params - h * direction), lam, penalty="kl", estimator="enumerate"
        )
        fd_pi = (np.concatenate(plus.pi) - np.concatenate(minus.pi)) / (2 * h)
        fd_value = (plus.value - minus.value) / (2 * h)
        assert np.abs(base.extra["jac_pi"] @ direction - fd_pi).max() < 1e-5
        assert base.extra["jac_value"] @ direction == pytest.approx(fd_value, abs=1e-6)


def test_logit_refuses_the_qp():
    for solver in ("qp", "closed-form"):
        with pytest.raises(UsageError, match="identity link"):
            average_case(logit_model(0), 0.3, solver=solver)
