"""The restricted minimax equilibrium of the conjoint game (issue 8): known solutions, the average
case, the delta method, fixed factors and the Monte Carlo path."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from exact_game import solve_matrix_game  # noqa: E402

from cosolve.errors import InputError, UsageError  # noqa: E402
from cosolve.methods.conjoint.game import solve_game  # noqa: E402
from cosolve.methods.conjoint.gradient import optimize_policy  # noqa: E402
from cosolve.problems.conjoint.design import Design  # noqa: E402
from cosolve.problems.conjoint.model import OutcomeModel  # noqa: E402


def _model(design, link, interactions, theta, cov_scale=1e-3):
    theta = np.asarray(theta, dtype=np.float64)
    return OutcomeModel(design, link, interactions, theta, cov_scale * np.eye(theta.size))


def _random_model(rng, design, link, interactions, scale):
    P = design.n_features(interactions)
    B = rng.normal(size=(P + 1, P + 1))
    return OutcomeModel(design, link, interactions, rng.normal(0.0, scale, P + 1), 1e-4 * B @ B.T / (P + 1))


SMALL = Design(
    ("party", "age", "job", "gender"),
    (("D", "R"), ("30", "50", "70"), ("law", "army", "farm"), ("m", "f")),
    (np.array([0.5, 0.5]), np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.3, 0.3]), np.array([0.5, 0.5])),
)


def test_condorcet_cycle_matches_the_matrix_game():
    """Three groups with cyclic preferences over one free factor: no pure saddle point; with one free
    factor the product policies are all mixed strategies, so the restricted equilibrium is the LP's."""
    design = Design.uniform(["party", "x"], [["D", "R"], ["a", "b", "c"]])
    ranks = {"g1": [2, 1, 0], "g2": [0, 2, 1], "g3": [1, 0, 2]}
    models = {g: _model(design, "logit", False, [0.0, 0.3, 4.0 * (u[1] - u[0]), 4.0 * (u[2] - u[0])]) for g, u in ranks.items()}
    shares = {"g1": 0.34, "g2": 0.33, "g3": 0.33}
    fixed = {"fixed_A": {"party": "D"}, "fixed_B": {"party": "R"}}
    exact = solve_matrix_game(models, shares, **fixed)
    assert not exact.pure
    res = solve_game(models, shares, lam=0.0, compare_averaging=False, **fixed)
    assert res.estimator == "enumerate"
    assert res.converged and res.exploitability < 1e-6
    np.testing.assert_allclose(res.pi_A[1], exact.marginals_A[1], atol=1e-6)
    np.testing.assert_allclose(res.pi_B[1], exact.marginals_B[1], atol=1e-6)
    assert res.vote_share == pytest.approx(exact.value, abs=1e-8)
    assert res.pi_A[0].tolist() == [1.0, 0.0] and res.pi_B[0].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("lam", [0.0, 1e-3])
def test_pure_saddle_point(lam):
    """One logit group: the matrix game has a pure saddle at the best profile. Without a penalty the
    restricted equilibrium is that profile (reached by dropping the vanishing levels from the
    supports); a small KL penalty keeps it interior next to it."""
    rng = np.random.default_rng(0)
    model = _random_model(rng, SMALL, "logit", True, 0.8)
    exact = solve_matrix_game({"all": model}, {"all": 1.0})
    assert exact.pure and exact.value == pytest.approx(0.5)
    res = solve_game({"all": model}, {"all": 1.0}, lam=lam, penalty="kl", compare_averaging=False)
    assert res.converged and res.exploitability < 1e-6
    for pi, marg in ((res.pi_A, exact.marginals_A), (res.pi_B, exact.marginals_B)):
        assert [int(np.argmax(p)) for p in pi] == [int(np.argmax(m)) for m in marg]
        if lam == 0:
            for p, m in zip(pi, marg, strict=True):
                np.testing.assert_array_equal(p, m)
        else:
            assert min(float(p.max()) for p in pi) > 0.9
    assert res.vote_share == pytest.approx(0.5, abs=1e-12)  # a symmetric game
    assert res.divergence < 1e-8


@pytest.mark.parametrize(("penalty", "lam"), [("l2", 0.3), ("kl", 0.3), ("l2", 0.02)])
def test_identity_game_separates_into_average_case_optima(penalty, lam):
    """With identity links V = 0.5 + E_A[f] - E_B[f], f = phi . sum_g s_g theta_g: each party plays its
    average-case optimum of that pooled model against p0 (gradient.py). With the small L2 penalty
    that optimum has zeros, which logits reach only in the limit (gradient.py to ~1e-9)."""
    rng = np.random.default_rng(1)
    models = {g: _random_model(rng, SMALL, "identity", inter, 0.08) for g, inter in (("Dem", True), ("Rep", False))}
    shares = {"Dem": 0.55, "Rep": 0.45}
    pooled = 0.55 * models["Dem"].params
    pooled[: models["Rep"].params.size] += 0.45 * models["Rep"].params
    target = optimize_policy(_model(SMALL, "identity", True, pooled), lam, penalty=penalty)
    res = solve_game(models, shares, lam=lam, penalty=penalty)
    assert res.converged and res.exploitability < 1e-10
    boundary = min(float(p.min()) for p in target.pi) < 1e-6
    assert boundary == (lam == 0.02)
    for pi in (res.pi_A, res.pi_B, res.averaging.pi_A, res.averaging.pi_B):
        for p, q in zip(pi, target.pi, strict=True):
            np.testing.assert_allclose(p, q, atol=1e-6 if boundary else 1e-8)
    assert res.divergence < 1e-8 and res.vote_share == pytest.approx(0.5, abs=1e-12)
    assert res.averaging.vote_share == pytest.approx(res.vote_share, abs=1e-10)


@pytest.mark.parametrize("lam", [0.3, 0.03])
def test_separable_game_by_qps_matches_the_iterative_solver(lam):
    """Identity links, no primaries, L2: the two exact QPs (estimator ``qp``, no iteration) against
    extra-gradient/Newton on the enumerated game, with fixed party levels: the equilibrium, the vote
    share and its delta-method standard error (on the active set at the smaller penalty)."""
    rng = np.random.default_rng(5)
    models = {g: _random_model(rng, SMALL, "identity", True, 0.08) for g in ("Dem", "Rep")}
    shares = {"Dem": 0.6, "Rep": 0.4}
    fixed = {"fixed_A": {"party": "D"}, "fixed_B": {"party": "R"}}
    fast = solve_game(models, shares, lam=lam, penalty="l2", **fixed)
    slow = solve_game(models, shares, lam=lam, penalty="l2", estimator="enumerate", compare_averaging=False, **fixed)
    assert fast.estimator == "qp" and fast.exploitability == 0.0 and fast.converged
    assert slow.estimator == "enumerate" and slow.converged
    boundary = min(float(p.min()) for p in fast.pi_A[1:] + fast.pi_B[1:]) == 0.0  # the party factor is fixed
    assert boundary == (lam == 0.03)
    for a, b in ((fast.pi_A, slow.pi_A), (fast.pi_B, slow.pi_B)):
        for p, q in zip(a, b, strict=True):
            np.testing.assert_allclose(p, q, atol=1e-9)
    assert fast.vote_share == pytest.approx(slow.vote_share, abs=1e-12)
    assert fast.vote_share_se == pytest.approx(slow.vote_share_se, rel=1e-6)
    for a, b in ((fast.pi_se_A, slow.pi_se_A), (fast.pi_se_B, slow.pi_se_B)):
        for p, q in zip(a, b, strict=True):
            np.testing.assert_allclose(p, q, atol=1e-9)
    assert fast.averaging.vote_share == fast.vote_share


def _primaries_game(seed):
    rng = np.random.default_rng(seed)
    general = {"Dem": _random_model(rng, SMALL, "identity", True, 0.2), "Rep": _random_model(rng, SMALL, "identity", False, 0.2)}
    primaries = {"A": _random_model(rng, SMALL, "identity", True, 0.4), "B": general["Rep"]}
    return general, {"Dem": 0.6, "Rep": 0.4}, primaries


@pytest.mark.parametrize(("seed", "lam"), [(1, 0.3), (0, 0.03)])
def test_separable_game_with_primaries_matches_the_iterative_solver(seed, lam):
    """Identity links with primaries, L2: each party's own problem by SQP in numpy (estimator ``sqp``)
    against extra-gradient/Newton on the enumerated game (torch): the equilibrium, the vote share and
    the delta-method standard errors (interior at lam 0.3, on the boundary at 0.03)."""
    general, shares, primaries = _primaries_game(seed)
    kwargs = {"lam": lam, "penalty": "l2", "primaries": primaries, "fixed_A": {"party": "D"}, "fixed_B": {"party": "R"}}
    fast = solve_game(general, shares, **kwargs)
    slow = solve_game(general, shares, estimator="enumerate", compare_averaging=False, **kwargs)
    assert fast.estimator == "sqp" and fast.exploitability == 0.0 and fast.converged and fast.foc_norm < 1e-12
    assert slow.estimator == "enumerate" and slow.converged and slow.exploitability < 1e-10
    boundary = min(float(p.min()) for p in fast.pi_A[1:] + fast.pi_B[1:]) == 0.0
    assert boundary == (lam == 0.03)
    for a, b in ((fast.pi_A, slow.pi_A), (fast.pi_B, slow.pi_B), (fast.pi_se_A, slow.pi_se_A), (fast.pi_se_B, slow.pi_se_B)):
        for p, q in zip(a, b, strict=True):
            np.testing.assert_allclose(p, q, atol=1e-9)
    assert fast.vote_share == pytest.approx(slow.vote_share, abs=1e-12)
    assert fast.vote_share_se == pytest.approx(slow.vote_share_se, rel=1e-8)
    assert fast.averaging.vote_share == fast.vote_share


def test_torch_best_responses_do_not_beat_the_separable_primaries_solution():
    """Exploitability 0 is against the SQP's own starts; the torch best responses (L-BFGS from several
    starts, vertex ascent) on the enumerated game find nothing better. (Here the iterative solver's own
    equilibrium is worse for B: ``N_B - lam Pen_B`` 0.40374 against the SQP's 0.40501, measured when
    the SQP was added; its best responses did not find the better point.)"""
    from cosolve.methods.conjoint.game.logit_game import Game
    from cosolve.methods.conjoint.game.payoff import Enumeration, build_spec
    from cosolve.methods.conjoint.game.response import best_response
    from cosolve.methods.conjoint.tensors import as_policy

    general, shares, primaries = _primaries_game(2)
    fixed = {"fixed_A": {"party": "D"}, "fixed_B": {"party": "R"}}
    res = solve_game(general, shares, lam=0.03, penalty="l2", primaries=primaries, **fixed)
    spec = build_spec(general, shares, primaries, *fixed.values())
    game = Game(spec, Enumeration(spec), (0.03, 0.03), "l2")
    for p, (own, other) in enumerate(((res.pi_A, res.pi_B), (res.pi_B, res.pi_A))):
        value, _ = best_response(game, p, other, [own], n_starts=4, seed=p)
        assert value <= float(game.utility(p, as_policy(own), as_policy(other))) + 1e-12


def _game_inputs(rng, link):
    general = {"Dem": _random_model(rng, SMALL, link, True, 0.4), "Rep": _random_model(rng, SMALL, link, False, 0.4)}
    primaries = {"A": _random_model(rng, SMALL, link, True, 0.4), "B": general["Rep"]}
    return general, {"Dem": 0.6, "Rep": 0.4}, primaries


@pytest.mark.parametrize(("link", "penalty"), [("identity", "kl"), ("identity", "l2"), ("logit", "kl")])
def test_delta_method_matches_finite_differences(link, penalty):
    """The implicit-differentiation Jacobians of V and of the policies against central differences
    of the whole equilibrium solve along random directions of the stacked parameters (identity links
    with the L2 penalty: the separable game with primaries, numpy, on the supports)."""
    rng = np.random.default_rng(2)
    general, shares, primaries = _game_inputs(rng, link)
    kwargs = {"lam": 0.2, "penalty": penalty, "primaries": primaries, "fixed_A": {"party": "D"}, "fixed_B": {"party": "R"}}
    res = solve_game(general, shares, compare_averaging=False, **kwargs)
    expected = {("identity", "kl"): "mc", ("identity", "l2"): "sqp", ("logit", "kl"): "enumerate"}[link, penalty]
    assert res.converged and res.estimator == expected
    assert res.param_blocks == ["general:Dem", "general:Rep+primary:B", "primary:A"]
    distinct = [general["Dem"], general["Rep"], primaries["A"]]
    sizes = np.cumsum([0] + [m.params.size for m in distinct])
    h = 1e-5
    for _ in range(2):
        v = rng.normal(size=sizes[-1])
        out = []
        for sign in (1.0, -1.0):
            moved = [m.with_params(m.params + sign * h * v[sizes[k] : sizes[k + 1]]) for k, m in enumerate(distinct)]
            g = {"Dem": moved[0], "Rep": moved[1]}
            moved_primaries = {"A": moved[2], "B": moved[1]}
            r = solve_game(
                g, shares, uncertainty=False, compare_averaging=False, n_starts=0, **{**kwargs, "primaries": moved_primaries}
            )
            out.append((r.vote_share, np.concatenate(r.pi_A), np.concatenate(r.pi_B)))
        fd_v = (out[0][0] - out[1][0]) / (2 * h)
        assert res.jac_vote_share @ v == pytest.approx(fd_v, rel=1e-5, abs=1e-8)
        np.testing.assert_allclose(res.jac_pi_A @ v, (out[0][1] - out[1][1]) / (2 * h), atol=1e-6)
        np.testing.assert_allclose(res.jac_pi_B @ v, (out[0][2] - out[1][2]) / (2 * h), atol=1e-6)
    Sigma = np.zeros((sizes[-1], sizes[-1]))
    for k, m in enumerate(distinct):
        Sigma[sizes[k] : sizes[k + 1], sizes[k] : sizes[k + 1]] = m.cov
    assert res.vote_share_se == pytest.approx(np.sqrt(res.jac_vote_share @ Sigma @ res.jac_vote_share), rel=1e-12)


def test_fixed_factors_stay_point_masses():
    rng = np.random.default_rng(3)
    general, shares, primaries = _game_inputs(rng, "logit")
    res = solve_game(
        general, shares, lam=(0.1, 0.2), primaries=primaries, fixed_A={"party": "D", "gender": "f"}, fixed_B={"party": "R"}
    )
    assert res.converged
    for pi in (res.pi_A, res.averaging.pi_A):
        assert pi[0].tolist() == [1.0, 0.0] and pi[3].tolist() == [0.0, 1.0]
    for pi in (res.pi_B, res.averaging.pi_B):
        assert pi[0].tolist() == [0.0, 1.0]
    assert res.pi_se_A[0].tolist() == [0.0, 0.0] and res.pi_se_A[3].tolist() == [0.0, 0.0]
    assert res.pi_se_B[0].tolist() == [0.0, 0.0] and res.pi_se_B[3].max() > 0
    assert np.isfinite(res.divergence)  # over age and job, free for both
    everything = {"party": "D", "age": "50", "job": "law", "gender": "m"}
    pure = solve_game(general, shares, lam=0.1, fixed_A=everything, fixed_B={**everything, "party": "R"}, compare_averaging=False)
    assert pure.converged and pure.iterations == 0 and np.isnan(pure.divergence) and pure.vote_share_se > 0


def test_monte_carlo_solve_agrees_with_enumeration():
    rng = np.random.default_rng(4)
    general, shares, primaries = _game_inputs(rng, "logit")
    kwargs = {
        "lam": 0.1,
        "primaries": primaries,
        "fixed_A": {"party": "D"},
        "fixed_B": {"party": "R"},
        "compare_averaging": False,
        "n_starts": 1,
    }
    exact = solve_game(general, shares, estimator="enumerate", **kwargs)
    mc = solve_game(general, shares, estimator="mc", n_samples=4000, seed=1, **kwargs)
    again = solve_game(general, shares, estimator="mc", n_samples=4000, seed=1, uncertainty=False, **{**kwargs, "n_starts": 0})
    assert mc.vote_share == again.vote_share  # deterministic given the seed
    assert mc.foc_norm < 1e-4 and mc.exploitability < 1e-4 and 0 < mc.vote_share_mc_se < 5e-3
    assert abs(mc.vote_share - exact.vote_share) < 4 * mc.vote_share_mc_se + 1e-3
    for a, b in zip(mc.pi_A + mc.pi_B, exact.pi_A + exact.pi_B, strict=True):
        np.testing.assert_allclose(a, b, atol=0.02)
    assert mc.vote_share_se == pytest.approx(exact.vote_share_se, rel=0.1)


def test_input_errors():
    rng = np.random.default_rng(5)
    general, shares, _ = _game_inputs(rng, "identity")
    with pytest.raises(InputError, match="sum to 1"):
        solve_game(general, {"Dem": 0.6, "Rep": 0.6}, lam=0.1)
    with pytest.raises(InputError, match="unknown factor"):
        solve_game(general, shares, lam=0.1, fixed_A={"colour": "red"})
    with pytest.raises(InputError, match="no level"):
        solve_game(general, shares, lam=0.1, fixed_B={"party": "Green"})
    with pytest.raises(UsageError, match="unknown penalty"):
        solve_game(general, shares, lam=0.1, penalty="tv")
    with pytest.raises(UsageError, match="lam"):
        solve_game(general, shares, lam=-1.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_lambda_and_shares_are_refused(bad):
    """NaN slips past ``< 0`` checks (and inf past the penalty): both are refused before any solve."""
    rng = np.random.default_rng(5)
    general, shares, _ = _game_inputs(rng, "identity")
    for penalty in ("l2", "kl"):
        with pytest.raises(UsageError, match="finite"):
            solve_game(general, shares, lam=bad, penalty=penalty)
        with pytest.raises(UsageError, match="finite"):
            solve_game(general, shares, lam=(0.1, bad), penalty=penalty)
    with pytest.raises(InputError, match="finite"):
        solve_game(general, {"Dem": bad, "Rep": 0.4}, lam=0.1)


def _mc_game(rng, primaries: bool, lam: float = 0.3):
    from cosolve.methods.conjoint.game.logit_game import Game
    from cosolve.methods.conjoint.game.monte_carlo import MonteCarlo
    from cosolve.methods.conjoint.game.payoff import build_spec

    general, shares, prim = _game_inputs(rng, "logit")
    spec = build_spec(general, shares, prim if primaries else None, {"party": "D"}, {"party": "R"})
    return Game(spec, MonteCarlo(spec, 500, 0), (lam, lam), "l2")


@pytest.mark.parametrize("primaries", [False, True])
def test_level_values_are_the_plain_value_of_each_level(primaries):
    """The Monte Carlo vertex step's one pass over a factor's levels against one plain value per level."""
    rng = np.random.default_rng(6)
    game = _mc_game(rng, primaries)
    other = [torch.as_tensor(rng.dirichlet(np.ones(s))) for s in SMALL.sizes]
    for player in (0, 1):
        own = [torch.eye(s, dtype=torch.float64)[rng.integers(s)] for s in SMALL.sizes]
        for d in range(1, SMALL.n_factors):
            got = game.est.level_values(player, own, other, d)
            want = []
            for lv in range(SMALL.sizes[d]):
                mine = [torch.eye(SMALL.sizes[d], dtype=torch.float64)[lv] if e == d else p for e, p in enumerate(own)]
                want.append(float(game.vote_share(*((mine, other) if player == 0 else (other, mine)))))
            np.testing.assert_allclose(got, want, atol=1e-14)


@pytest.mark.parametrize("primaries", [False, True])
def test_monte_carlo_l2_best_response_by_sqp_matches_lbfgs_on_the_surrogate(primaries):
    """The numpy SQP rounds on the re-centred surrogate against the torch rounds they replaced (L-BFGS
    on the logits, Newton polish; kept here as the reference) from ``p0``: the same policy (interior at
    lam 0.3, where logits reach it) and plain payoff."""
    from cosolve.methods.conjoint.game.logit_game import Player
    from cosolve.methods.conjoint.game.party_problem import party_problems
    from cosolve.methods.conjoint.game.response import lbfgs, newton_polish, surrogate_sqp
    from cosolve.methods.conjoint.tensors import as_policy

    rng = np.random.default_rng(7)
    game = _mc_game(rng, primaries)
    other = as_policy([rng.dirichlet(np.ones(s)) for s in SMALL.sizes])
    for player in (0, 1):
        P = Player(game.spec, player)

        def u_of_w(w, P=P, player=player):
            return game.utility(player, P.policy(w), other)

        w = torch.as_tensor(P.initial(), dtype=torch.float64)
        for _ in range(10):
            own = P.policy(w)
            with game.centred(*((own, other) if player == 0 else (other, own)), hessian=False):
                w_new = newton_polish(u_of_w, lbfgs(u_of_w, w.numpy(), 500))
            shift, w = float((w_new - w).abs().max()), w_new
            if shift <= 1e-9:
                break
        reference = [p.detach().numpy() for p in P.policy(w)]
        start = [p.detach().numpy() for p in P.policy(torch.as_tensor(P.initial(), dtype=torch.float64))]
        problem = party_problems(game.spec, game.lam)[0][player]
        got = surrogate_sqp(game, player, problem, start, other, 10)
        for a, b in zip(got, reference, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-7)
        assert float(game.utility(player, as_policy(got), other)) == pytest.approx(float(u_of_w(w)), abs=1e-10)


@pytest.mark.parametrize("primaries", [False, True])
def test_monte_carlo_first_order_jacobian_matches_backward_passes(primaries):
    """The surrogate's first-order terms differentiated in the stacked params by one backward pass and
    feature scatter-adds against one backward pass per coordinate through ``first_order`` with the
    params carried (the reference): models with and without interactions, a model in two roles."""
    rng = np.random.default_rng(6)
    game = _mc_game(rng, primaries)
    est = game.est
    centre = est.centre(*[[torch.as_tensor(rng.dirichlet(np.ones(s))) for s in SMALL.sizes] for _ in range(2)], hessian=False)
    theta = est._theta.clone().requires_grad_(True)
    r0, gA, gB = est.first_order(centre["XA"], centre["XB"], est._constants(theta))
    for got, y in zip(est.first_order_jacobian(centre["XA"], centre["XB"]), (r0[None], gA, gB), strict=True):
        rows = [torch.autograd.grad(y[k], theta, retain_graph=True)[0].numpy() for k in range(y.numel())]
        np.testing.assert_allclose(got.reshape(len(rows), -1), np.stack(rows), rtol=0, atol=1e-10)
        assert np.abs(np.stack(rows)).max() > 1e-3  # the reference is not trivially zero


def test_paired_hessian_rows_match_one_pass_per_row():
    """With the Monte Carlo surrogate's first-order centre the game's Hessian is block-diagonal over
    the players and ``field_jacobian`` pairs rows across the blocks: the same matrix as one backward
    pass per row; the second-order centre couples the players and is not paired."""
    from cosolve.methods.conjoint.game.logit_game import rows_of_jacobian

    rng = np.random.default_rng(8)
    game = _mc_game(rng, True)
    w = rng.normal(0.0, 0.5, game.players[0].n + game.players[1].n)
    wt = torch.as_tensor(w)
    for hessian in (False, True):
        game.recentre(*game.policies(wt), hessian=hessian)
        assert game.est.separates(game.centre) is not hessian
        full = rows_of_jacobian(game.scalar, wt, wt).numpy()
        np.testing.assert_array_equal(game.field_jacobian(w), game.sign[:, None] * full)
        cross = full[: game.players[0].n, game.players[0].n :]
        assert bool(np.abs(cross).max() > 1e-6) is hessian


@pytest.mark.parametrize("primaries", [False, True])
def test_surrogate_second_order_terms_are_the_residual_with_two_coordinates_set(primaries):
    """``HAA``/``HBB`` (from their pairs ``i < j``, mirrored) and ``HAB`` against the plain residual's
    mean with the two coordinates' factors moved in the samples (models with and without interactions)."""
    rng = np.random.default_rng(9)
    game = _mc_game(rng, primaries)
    est = game.est
    centre = est.centre(*[[torch.as_tensor(rng.dirichlet(np.ones(s))) for s in SMALL.sizes] for _ in range(2)])
    X = [centre["XA"], centre["XB"]]
    const = est._const
    opp = [[v for v in const["opp"][p]] for p in (0, 1)] if est.opponents else [None, None]

    def moved(p, coords):
        Y = X[p].clone()
        for k in coords:
            Y[:, est.coords[p][0][k]] = est.coords[p][1][k]
        return [est.predict(pr, Y) for pr in const["preds"]]

    blocks = {(0, 0): centre["H"][0], (0, 1): centre["H"][1], (1, 1): centre["H"][2]}
    for (p, q), H in blocks.items():
        for i, j in zip(*rng.integers(0, H.shape, size=(6, 2)).T, strict=True):
            if p == q and est.coords[p][0][i] == est.coords[p][0][j]:
                assert float(H[i, j]) == 0.0
                continue
            fs = [moved(r, [k for k, owner in ((i, p), (j, q)) if owner == r]) for r in (0, 1)]
            want = float(est.residual(fs[0], fs[1], *opp).mean())
            assert float(H[i, j]) == pytest.approx(want, abs=1e-12)
            if p == q:
                assert float(H[j, i]) == float(H[i, j])
