"""The vote-share estimators of the conjoint game against brute-force enumeration (issue 8)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cosolve.methods.conjoint.game import payoff as mp  # noqa: E402
from cosolve.methods.conjoint.game.logit_game import Game  # noqa: E402
from cosolve.methods.conjoint.game.monte_carlo import MonteCarlo  # noqa: E402
from cosolve.problems.conjoint.design import Design  # noqa: E402
from cosolve.problems.conjoint.model import OutcomeModel  # noqa: E402

DESIGN = Design(
    ("party", "age", "job"),
    (("D", "R"), ("30", "50", "70"), ("law", "army", "farm")),
    (np.array([0.5, 0.5]), np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.3, 0.3])),
)


def _model(rng, link: str, interactions: bool, scale: float = 0.6) -> OutcomeModel:
    P = DESIGN.n_features(interactions)
    return OutcomeModel(DESIGN, link, interactions, rng.normal(0.0, scale, P + 1), 1e-3 * np.eye(P + 1))


def _policy(rng, fixed: dict[int, int] | None = None) -> list:
    pi = [torch.as_tensor(rng.dirichlet(np.ones(size))) for size in DESIGN.sizes]
    for d, level in (fixed or {}).items():
        pi[d] = torch.eye(DESIGN.sizes[d], dtype=torch.float64)[level]
    return pi


def _game(rng, link: str, primaries: bool):
    models = {"Dem": _model(rng, link, True), "Rep": _model(rng, link, False), "Ind": _model(rng, link, True)}
    prim = {"A": _model(rng, link, True), "B": models["Rep"]} if primaries else None
    return mp.build_spec(models, {"Dem": 0.4, "Rep": 0.35, "Ind": 0.25}, prim, {"party": "D"}, {"age": "50"})


def test_cross_moment_matches_enumeration():
    rng = np.random.default_rng(0)
    pad = mp.Padding(DESIGN)
    X = np.array(list(itertools.product(*[range(s) for s in DESIGN.sizes])))
    F = DESIGN.features(X, True)
    pi = _policy(rng)
    prob = np.prod([pi[d].numpy()[X[:, d]] for d in range(DESIGN.n_factors)], axis=0)
    for inter1, inter2 in [(True, True), (True, False), (False, False)]:
        t1 = rng.normal(size=DESIGN.n_features(inter1))
        t2 = rng.normal(size=DESIGN.n_features(inter2))
        f1, f2 = F[:, : t1.size] @ t1, F[:, : t2.size] @ t2
        m1, m2, m12 = mp.cross_moment(
            pad.policy(pi), pad.predictor(torch.as_tensor(t1), inter1), pad.predictor(torch.as_tensor(t2), inter2)
        )
        assert float(m1) == pytest.approx(prob @ f1, abs=1e-12)
        assert float(m2) == pytest.approx(prob @ f2, abs=1e-12)
        assert float(m12) == pytest.approx(prob @ (f1 * f2), abs=1e-12)


@pytest.mark.parametrize("primaries", [False, True])
def test_identity_links_are_exact(primaries):
    rng = np.random.default_rng(1)
    spec = _game(rng, "identity", primaries)
    mc, en = MonteCarlo(spec, 10), mp.Enumeration(spec)
    assert mc.exact
    for _ in range(3):
        pi_A, pi_B = _policy(rng, spec.fixed[0]), _policy(rng, spec.fixed[1])
        assert float(mc.value(pi_A, pi_B)) == pytest.approx(float(en.value(pi_A, pi_B)), abs=1e-12)


def test_payoff_matrix_with_primaries_by_brute_force():
    rng = np.random.default_rng(2)
    spec = _game(rng, "logit", True)
    en = mp.Enumeration(spec)
    H = en.payoff(en._theta).numpy()
    XA, XB = (x.numpy() for x in en.X)
    q = [np.prod([spec.reference(p)[d][X[:, d]] for d in range(3)], axis=0) for p, X in enumerate((XA, XB))]

    def f(i, x):
        m = spec.models[i]
        return float(DESIGN.features(x[None], m.interactions)[0] @ m.theta)

    def sig(s):
        return 1.0 / (1.0 + np.exp(-s))

    for a, b in [(0, 0), (3, 5), (len(XA) - 1, 2)]:
        total = 0.0
        for a2, b2 in itertools.product(range(len(XA)), range(len(XB))):
            wA = sig(f(spec.primaries[0], XA[a]) - f(spec.primaries[0], XA[a2]))
            wB = sig(f(spec.primaries[1], XB[b]) - f(spec.primaries[1], XB[b2]))
            for (nA, pA), (nB, pB) in itertools.product(((XA[a], wA), (XA[a2], 1 - wA)), ((XB[b], wB), (XB[b2], 1 - wB))):
                v = sum(s * sig(f(i, nA) - f(i, nB)) for s, i in zip(spec.shares, spec.general, strict=True))
                total += q[0][a2] * q[1][b2] * pA * pB * v
        assert H[a, b] == pytest.approx(total, abs=1e-12)


@pytest.mark.parametrize("primaries", [False, True])
def test_monte_carlo_unbiased_and_deterministic(primaries):
    rng = np.random.default_rng(3)
    spec = _game(rng, "logit", primaries)
    en = mp.Enumeration(spec)
    pi_A, pi_B = _policy(rng, spec.fixed[0]), _policy(rng, spec.fixed[1])
    exact = float(en.value(pi_A, pi_B))
    mc = MonteCarlo(spec, 4000, seed=5)
    value, se = float(mc.value(pi_A, pi_B)), mc.mc_se(pi_A, pi_B)
    assert 0 < se < 5e-3
    assert abs(value - exact) < 4 * se
    assert float(MonteCarlo(spec, 4000, seed=5).value(pi_A, pi_B)) == value
    assert float(MonteCarlo(spec, 4000, seed=6).value(pi_A, pi_B)) != value
    # the control part alone (linearised links) is off by much more than the Monte Carlo error
    mc.use_residual = False
    assert abs(float(mc.value(pi_A, pi_B)) - exact) > 4 * se


def test_surrogate_matches_exact_derivatives():
    """At its centre the surrogate's value is the plain Monte Carlo value and its gradient and
    Hessian in the logits are the Rao-Blackwellised estimates of the exact ones."""
    rng = np.random.default_rng(4)
    spec = _game(rng, "logit", True)
    mc, en = MonteCarlo(spec, 4000, seed=1), mp.Enumeration(spec)
    game_mc, game_en = Game(spec, mc, (0.1, 0.1), "kl"), Game(spec, en, (0.1, 0.1), "kl")
    w = rng.normal(0.0, 1.0, game_mc.players[0].n + game_mc.players[1].n)
    pols = game_mc.policies(torch.as_tensor(w))
    plain = float(mc.value(*pols))
    game_mc.recentre(*pols, hessian=True)
    assert float(mc.value(*pols, centre=game_mc.centre)) == pytest.approx(plain, abs=1e-14)
    F_mc, F_en = game_mc.field(w), game_en.field(w)
    J_mc, J_en = game_mc.field_jacobian(w), game_en.field_jacobian(w)
    assert np.abs(F_mc - F_en).max() < 0.02 * np.abs(F_en).max()
    assert np.abs(J_mc - J_en).max() < 0.02 * np.abs(J_en).max()
