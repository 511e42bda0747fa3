"""The numpy parts of the identity-link game with primaries (issue 29): the second moments of the
features as monomials, their derivatives, and a party's objective against enumeration."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from cosolve.methods.conjoint.game.party_problem import Moments, PartyProblem, maximise
from cosolve.problems.conjoint.design import Design

DESIGN = Design(
    ("party", "age", "job", "gender"),
    (("D", "R"), ("30", "50", "70"), ("law", "army", "farm"), ("m", "f")),
    (np.array([0.5, 0.5]), np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.3, 0.3]), np.array([0.5, 0.5])),
)
PROFILES = np.array(list(product(*[range(s) for s in DESIGN.sizes])))


def _policy(rng) -> np.ndarray:
    return np.concatenate([rng.dirichlet(np.ones(s)) for s in DESIGN.sizes])


def _probabilities(x: np.ndarray) -> np.ndarray:
    starts = np.concatenate([[0], np.cumsum(DESIGN.sizes)])
    return np.prod([x[starts[d] + PROFILES[:, d]] for d in range(DESIGN.n_factors)], axis=0)


def _problem(rng, lam=0.2) -> PartyProblem:
    moments = Moments(DESIGN, True)
    c, t = np.zeros(moments.size), np.zeros(moments.size)
    c[1:], t[1:] = rng.normal(0, 0.4, moments.size - 1), rng.normal(0, 0.2, moments.size - 1)
    p0 = np.concatenate(DESIGN.p0)
    return PartyProblem(moments, c, t, 1.0, _policy(rng), lam, p0, np.ones(p0.size, dtype=bool))


def test_second_moments_match_enumeration():
    rng = np.random.default_rng(0)
    moments = Moments(DESIGN, True)
    x = _policy(rng)
    phi = np.hstack([np.ones((len(PROFILES), 1)), DESIGN.features(PROFILES, True)])
    expected = phi.T @ (_probabilities(x)[:, None] * phi)
    np.testing.assert_allclose(moments.matrix(x), expected, atol=1e-14)


def test_party_value_matches_enumeration_and_pure_profiles():
    """``N_P`` against the primary contest by enumeration: the nominee is the entrant ``x ~ pi`` w.p.
    ``1/2 + c(x) - c(x')`` against ``x' ~ q``, else ``x'``; A's share of it is ``t`` of the nominee."""
    rng = np.random.default_rng(1)
    problem = _problem(rng)
    phi = DESIGN.features(PROFILES, True)
    c, t = phi @ problem.c[1:], phi @ problem.t[1:]
    x = _policy(rng)
    p, q = _probabilities(x), _probabilities(problem.q)
    win = 0.5 + c[:, None] - c[None, :]  # entrant row beats opponent column
    nominee_t = win * t[:, None] + (1 - win) * t[None, :]
    assert problem.value(x) == pytest.approx(float(p @ nominee_t @ q), abs=1e-13)
    pure = np.zeros((len(PROFILES), x.size))
    starts = np.concatenate([[0], np.cumsum(DESIGN.sizes)])
    pure[np.arange(len(PROFILES))[:, None], starts[:-1] + PROFILES] = 1.0
    np.testing.assert_allclose(problem.pure_value(PROFILES), [problem.value(v) for v in pure], atol=1e-13)


def test_derivatives_match_finite_differences():
    rng = np.random.default_rng(2)
    problem = _problem(rng)
    x, v, h = _policy(rng), rng.normal(size=problem.p0.size), 1e-6
    fd = (problem.objective(x + h * v) - problem.objective(x - h * v)) / (2 * h)
    assert problem.gradient(x) @ v == pytest.approx(fd, rel=1e-7, abs=1e-10)
    fd_grad = (problem.gradient(x + h * v) - problem.gradient(x - h * v)) / (2 * h)
    np.testing.assert_allclose(problem.hessian(x) @ v, fd_grad, atol=1e-7)
    # the gradient's Jacobian in the predictors (bilinear in c and t)
    dc, dt = problem.gradient_jacobian(x)
    u = rng.normal(size=problem.c.size)
    u[0] = 0.0
    for jac, field in ((dc, "c"), (dt, "t")):
        moved = []
        for sign in (1, -1):
            kw = {"c": problem.c, "t": problem.t, field: getattr(problem, field) + sign * h * u}
            rest = (problem.q, problem.lam, problem.p0, problem.allowed)
            moved.append(PartyProblem(problem.moments, kw["c"], kw["t"], 1.0, *rest))
        np.testing.assert_allclose(jac @ u, (moved[0].gradient(x) - moved[1].gradient(x)) / (2 * h), atol=1e-7)
        value = problem.value_jacobian(x)[0 if field == "c" else 1]
        assert value @ u == pytest.approx((moved[0].value(x) - moved[1].value(x)) / (2 * h), rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("lam", [0.5, 0.02])
def test_maximise_ends_at_a_kkt_point_no_vertex_or_start_beats(lam):
    """The SQP's answer satisfies the KKT conditions to round-off and beats every pure profile and
    200 random policies (small design: these are cheap)."""
    rng = np.random.default_rng(3)
    problem = _problem(rng, lam)
    sol = maximise(problem, seed=0)
    assert sol.kkt_residual < 1e-12
    starts = np.concatenate([[0], np.cumsum(DESIGN.sizes)])
    pure = np.zeros((len(PROFILES), sol.x.size))
    pure[np.arange(len(PROFILES))[:, None], starts[:-1] + PROFILES] = 1.0
    assert sol.objective >= max(problem.objective(v) for v in pure) - 1e-14
    assert sol.objective >= max(problem.objective(_policy(rng)) for _ in range(200))
