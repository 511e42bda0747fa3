"""Restricted minimax equilibrium of the two-party conjoint game (issue 8; Jerzak, Chandra & Hazra 2026).

Parties A and B choose product policies over one design (factors they fix stay point masses). A's
payoff is ``U_A = V - lam_A Pen(pi_A, p0)``, B's is ``U_B = (1 - V) - lam_B Pen(pi_B, p0)``, with ``V``
A's expected vote share (:mod:`~cosolve.methods.conjoint.minimax_payoff`: groups, shares, optional
primaries, estimators) and ``Pen`` the L2 or KL penalty of the average case.

Identity links without primaries with the L2 penalty separate: ``V = 1/2 + E_pi_A[t] - E_pi_B[t]``
(:mod:`~cosolve.methods.conjoint.minimax_payoff`, ``t`` the share-weighted predictor), so each party's
best response ignores the other and the equilibrium is each party's L2 average-case optimum of ``t``
with its fixed factors: two exact QPs (:func:`~cosolve.methods.conjoint.policy.solve_policy_qp`) with
the delta method of :func:`~cosolve.methods.conjoint.delta.qp_jacobians`, no iteration (estimator
``qp``). With primaries and identity links the game still separates, ``V = 1/2 + N_A(pi_A) -
N_B(pi_B)``, but each ``N_P`` holds a second moment of the primary and general predictors (degree 4
in the policy): each party's own problem by SQP in numpy
(:mod:`~cosolve.methods.conjoint.minimax_primaries`, estimator ``sqp``).

Otherwise, solver (:mod:`~cosolve.methods.conjoint.minimax_solver`): extra-gradient then Newton on both players'
first-order conditions in softmax logits, with supports that shrink for boundary equilibria and, for
the Monte Carlo estimator, a re-centred smooth surrogate. A stationary point need not be an
equilibrium of a non-concave game (with interactions, primaries or logit links ``V`` is multilinear,
not concave, in a player's factors), so the result reports the *exploitability*, the sum of both
players' best-response gaps (:mod:`~cosolve.methods.conjoint.minimax_response`); above ``tol`` the
solve restarts from the best responses (``restarts`` times), and ``converged`` means it ends at most
``tol``. Uncertainty is by the delta method (:func:`~cosolve.methods.conjoint.minimax_response.delta_method`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cosolve.methods.conjoint.gradient import PENALTIES
from cosolve.methods.conjoint.minimax_mc import MonteCarlo
from cosolve.methods.conjoint.minimax_payoff import Enumeration, GameSpec, build_spec
from cosolve.methods.conjoint.minimax_solver import Game, Player, extragradient, recentred_solve, solve_on_support
from cosolve.problems.conjoint.model import OutcomeModel

ESTIMATORS = ("auto", "mc", "enumerate")
#: ``auto`` enumerates when both players have at most this many profiles.
ENUMERATE_MAX_PROFILES = 200


@dataclass
class AveragingComparison:
    """What each party does if it ignores the opponent: ``pi_A``/``pi_B`` maximise its own payoff
    against the other's randomised candidate ``q`` (``p0`` with that party's fixed factors). Vote
    shares (A's): ``vote_share`` both average-case; ``A_vs_equilibrium`` average-case A against the
    equilibrium B; ``equilibrium_vs_B``; ``worst_case_A`` when B best-responds to average-case A;
    ``worst_case_B`` when A best-responds to average-case B (B's share is 1 minus it)."""

    pi_A: list[np.ndarray]
    pi_B: list[np.ndarray]
    vote_share: float
    A_vs_equilibrium: float
    equilibrium_vs_B: float
    worst_case_A: float
    worst_case_B: float


@dataclass
class GameResult:
    """The restricted equilibrium: ``pi_A``, ``pi_B`` (lists of (L_d,)), A's ``vote_share`` with its
    delta-method ``vote_share_se`` (parameter uncertainty) and ``vote_share_mc_se`` (Monte Carlo error
    of the estimator, 0 when exact); ``pi_se_A``/``pi_se_B`` (lists of (L_d,), 0 on fixed factors and on
    levels outside a boundary equilibrium's support, which the delta method holds fixed; NaN where
    the equilibrium is not locally unique);
    ``exploitability = gap_A + gap_B`` (best-response gaps in payoff units); ``divergence`` the RMS
    difference of the policies over the levels of factors free for both (NaN if none); ``foc_norm``
    ``|F|_inf``; ``jac_vote_share`` (n_params,) and ``jac_pi_A``/``jac_pi_B`` (sum_d L_d, n_params) over the
    stacked params of the distinct models, labelled by ``param_blocks`` (their roles, e.g.
    ``general:Dem+primary:A``); ``averaging`` the comparison; ``timings`` seconds per step (``equilibrium``,
    ``best_responses``, ``delta``, ``averaging``)."""

    pi_A: list[np.ndarray]
    pi_B: list[np.ndarray]
    vote_share: float
    vote_share_se: float
    vote_share_mc_se: float
    pi_se_A: list[np.ndarray]
    pi_se_B: list[np.ndarray]
    exploitability: float
    gap_A: float
    gap_B: float
    divergence: float
    foc_norm: float
    iterations: int
    seconds: float
    converged: bool
    estimator: str
    jac_vote_share: np.ndarray | None = None
    jac_pi_A: np.ndarray | None = None
    jac_pi_B: np.ndarray | None = None
    param_blocks: list[str] = field(default_factory=list)
    averaging: AveragingComparison | None = None
    timings: dict[str, float] = field(default_factory=dict)


def solve_game(
    models: dict[str, OutcomeModel],
    shares: dict[str, float],
    *,
    lam: float | tuple[float, float],
    penalty: str = "kl",
    primaries: dict[str, OutcomeModel] | None = None,
    fixed_A: dict[str, str] | None = None,
    fixed_B: dict[str, str] | None = None,
    estimator: str = "auto",
    n_samples: int = 2000,
    seed: int = 0,
    mc_rounds: int = 30,
    step: float = 0.5,
    max_iter: int = 5000,
    newton_switch: float = 1e-2,
    foc_tol: float = 1e-12,
    tol: float | None = None,
    n_starts: int = 2,
    restarts: int = 3,
    uncertainty: bool = True,
    compare_averaging: bool = True,
    threads: int = 1,
) -> GameResult:
    """The restricted equilibrium of the game (module docstring).

    ``models``: each voter group's general-election model; ``shares``: electorate shares (sum 1);
    ``primaries``: ``{"A": model, "B": model}`` (each party's primary voters) or None; ``fixed_A`` /
    ``fixed_B``: factor name -> level name; ``lam``: one penalty weight or ``(lam_A, lam_B)``;
    ``estimator``: ``mc`` (exact with identity links), ``enumerate`` (exact, small designs) or ``auto``
    (``mc`` with identity links, else ``enumerate`` up to ``ENUMERATE_MAX_PROFILES`` profiles per party);
    ``n_samples``/``seed``: the Monte Carlo's M and common random numbers; ``mc_rounds``: re-centrings
    of its surrogate; ``step``: extra-gradient step relative to ``1 / ||dF/dw||``; ``tol``:
    exploitability for ``converged`` (default 1e-6, and with the Monte Carlo estimator at least
    ``0.05 * vote_share_mc_se``: best responses scored by plain Monte Carlo values pick up some of its
    sampling noise); ``n_starts``: random starts of each best response (besides the equilibrium and
    ``p0``); ``restarts``: new solves from the best responses when the exploitability exceeds ``tol``;
    ``uncertainty``: the delta method; ``compare_averaging``: the averaging comparison; ``threads``:
    torch's intra-op threads during the solve (restored after): the game's tensors are tiny, and
    more threads only add synchronisation (up to 100x slower on a busy 2-core machine)."""
    from cosolve.methods.conjoint.gradient import torch_threads

    options = {k: v for k, v in locals().items() if k not in ("threads", "torch_threads")}
    if _separates(models, primaries, penalty, estimator):
        return _solve_game(**options)  # numpy only
    with torch_threads(threads):
        return _solve_game(**options)


def _separates(models: dict[str, OutcomeModel], primaries, penalty: str, estimator: str) -> bool:
    """Whether the game separates into two single-party problems solved in numpy (module docstring)."""
    roles = list(models.values()) + list((primaries or {}).values())
    return penalty == "l2" and estimator in ("auto", "mc") and all(m.link == "identity" for m in roles)


def _solve_game(
    models, shares, *, lam, penalty, primaries, fixed_A, fixed_B, estimator, n_samples, seed, mc_rounds, step, max_iter,
    newton_switch, foc_tol, tol, n_starts, restarts, uncertainty, compare_averaging,
) -> GameResult:  # fmt: skip
    from cosolve.errors import UsageError
    from cosolve.methods.conjoint.minimax_response import averaging_comparison, best_response, delta_method

    t0 = time.perf_counter()
    if penalty not in PENALTIES:
        raise UsageError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    if estimator not in ESTIMATORS:
        raise UsageError(f"unknown estimator {estimator!r}; valid: {', '.join(ESTIMATORS)}")
    lams = (float(lam), float(lam)) if np.isscalar(lam) else tuple(float(v) for v in lam)
    if len(lams) != 2 or not all(np.isfinite(v) and v >= 0 for v in lams):
        raise UsageError(f"lam must be one finite non-negative number or a pair (lam_A, lam_B), got {lam}")
    spec = build_spec(models, shares, primaries, fixed_A, fixed_B)
    if _separates(models, primaries, penalty, estimator):
        if primaries is not None:
            return _separable_primaries_game(spec, lams, n_starts, seed, t0)
        return _separable_game(spec, lams, seed, t0)
    kind, est = make_estimator(spec, estimator, n_samples, seed)
    game = Game(spec, est, lams, penalty)
    w = np.concatenate([game.players[0].initial(), game.players[1].initial()])
    options = {"step": step, "max_iter": max_iter, "foc_tol": foc_tol, "newton_switch": newton_switch}
    sampled = kind == "mc" and not est.exact

    def plain(w, n):
        return extragradient(game, w, **{**options, "max_iter": n})

    def recentred(w, n):
        return recentred_solve(game, w, mc_rounds, {**options, "max_iter": n})

    support = {"max_iter": max_iter, "foc_tol": foc_tol}
    timings = {"equilibrium": 0.0, "best_responses": 0.0, "delta": 0.0, "averaging": 0.0}
    clock = time.perf_counter()
    if sampled:
        est.use_residual = False
        w, norm, iterations = solve_on_support(game, w, plain, **support)
        est.use_residual = True
    else:
        iterations = 0
    solve = recentred if sampled else plain
    for attempt in range(restarts + 1):
        w, norm, it = solve_on_support(game, w, solve, **support)
        iterations += it
        game.centre = None
        pi_A, pi_B = game.policies(_tensor(w))
        now = time.perf_counter()
        timings["equilibrium"] += now - clock
        clock = now
        gaps, responses = [], []
        for p, (own, other) in enumerate(((pi_A, pi_B), (pi_B, pi_A))):
            br_value, br_pi = best_response(game, p, other, [_numpy(own)], n_starts=n_starts, seed=seed + p)
            gaps.append(max(br_value - float(game.utility(p, own, other)), 0.0))
            responses.append(br_pi)
        mc_se = est.mc_se(pi_A, pi_B)
        now = time.perf_counter()
        timings["best_responses"] += now - clock
        clock = now
        limit = max(1e-6, 0.05 * mc_se) if tol is None else tol
        if gaps[0] + gaps[1] <= limit or attempt == restarts:
            break
        # a stationary point that is no equilibrium (the game is not concave): restart from the best
        # responses of the players who have one, on full supports
        starts = [br if gap > limit / 2 else _numpy(pi) for br, gap, pi in zip(responses, gaps, (pi_A, pi_B), strict=True)]
        game.set_players(Player(spec, 0), Player(spec, 1))
        w = game.logits(
            *[[(1 - 1e-3) * np.asarray(x) + 1e-3 * q for x, q in zip(pi, spec.design.p0, strict=True)] for pi in starts]
        )
    v = float(game.vote_share(pi_A, pi_B))
    nan = [np.full(size, np.nan) for size in spec.design.sizes]
    se = (float("nan"), nan, [p.copy() for p in nan], None, None, None)
    if uncertainty:
        se = delta_method(game, w)
    timings["delta"] = time.perf_counter() - clock
    result = GameResult(
        pi_A=_numpy(pi_A),
        pi_B=_numpy(pi_B),
        vote_share=v,
        vote_share_se=se[0],
        vote_share_mc_se=mc_se,
        pi_se_A=se[1],
        pi_se_B=se[2],
        exploitability=gaps[0] + gaps[1],
        gap_A=gaps[0],
        gap_B=gaps[1],
        divergence=_divergence(spec, _numpy(pi_A), _numpy(pi_B)),
        foc_norm=norm,
        iterations=iterations,
        seconds=0.0,
        converged=gaps[0] + gaps[1] <= limit,
        estimator=kind,
        jac_vote_share=se[3],
        jac_pi_A=se[4],
        jac_pi_B=se[5],
        param_blocks=_param_blocks(spec),
        timings=timings,
    )
    if compare_averaging:
        clock = time.perf_counter()
        result.averaging = averaging_comparison(game, _numpy(pi_A), _numpy(pi_B), n_starts=n_starts, seed=seed)
        timings["averaging"] = time.perf_counter() - clock
    result.seconds = time.perf_counter() - t0
    return result


def _separable_game(spec: GameSpec, lams: tuple[float, float], seed: int, t0: float) -> GameResult:
    """The separable game (module docstring): each party's QP optimum of ``t``, exploitability 0 (each
    best response is that optimum whatever the opponent plays: global when the QP is concave, else the
    best of its starts), the averaging comparison equal to the equilibrium."""
    from cosolve.methods.conjoint.delta import qp_jacobians
    from cosolve.methods.conjoint.minimax_primaries import pooled
    from cosolve.methods.conjoint.policy import solve_policy_qp

    clock = time.perf_counter()
    interactions = any(spec.models[i].interactions for i in spec.general)
    size = spec.design.n_features(interactions) + 1
    t, chain = pooled(spec, [(i, spec.shares[g]) for g, i in enumerate(spec.general)], size)  # identity: kappa = 1
    t_model = OutcomeModel(spec.design, "identity", interactions, t, np.zeros((size, size)))
    sols = [solve_policy_qp(t_model, lams[p], fixed=spec.fixed[p], seed=seed + p) for p in (0, 1)]
    solved = time.perf_counter()
    jac = [qp_jacobians(t_model, lams[p], sols[p]) for p in (0, 1)]
    jac_v = (jac[0][1] - jac[1][1]) @ chain
    jac_pi = np.concatenate([jac[0][0] @ chain, jac[1][0] @ chain])
    v = 0.5 + sols[0].value - sols[1].value
    return _separable_result(spec, (sols[0].pi, sols[1].pi), v, jac_v, jac_pi, sols, "qp", (t0, clock, solved))


def _separable_result(spec: GameSpec, pis, v: float, jac_v: np.ndarray, jac_pi: np.ndarray, sols, estimator: str, clocks):
    """The :class:`GameResult` of a separable game: policies ``pis`` (A's, B's), A's vote share ``v``,
    its Jacobian ``jac_v`` and the policies' ``jac_pi`` (2 sum_d L_d, n_params), the two parties'
    solutions ``sols`` (``kkt_residual``, ``iterations``), ``clocks`` (start, solve start, solve end).
    Exploitability 0 (each party's best response is its own optimum whatever the other plays) and
    the averaging comparison equal to the equilibrium."""
    from cosolve.methods.conjoint.minimax_response import standard_errors

    t0, clock, solved = clocks
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    (pi_A, pi_B), D, half = pis, spec.design.n_factors, sum(spec.design.sizes)
    timings = {"equilibrium": solved - clock, "best_responses": 0.0, "delta": time.perf_counter() - solved, "averaging": 0.0}
    return GameResult(
        pi_A=pi_A, pi_B=pi_B, vote_share=v, vote_share_se=se_v, vote_share_mc_se=0.0, pi_se_A=se_pi[:D], pi_se_B=se_pi[D:],
        exploitability=0.0, gap_A=0.0, gap_B=0.0, divergence=_divergence(spec, pi_A, pi_B),
        foc_norm=max(sols[0].kkt_residual, sols[1].kkt_residual), iterations=sols[0].iterations + sols[1].iterations,
        seconds=time.perf_counter() - t0, converged=True, estimator=estimator, jac_vote_share=jac_v, jac_pi_A=jac_pi[:half],
        jac_pi_B=jac_pi[half:], param_blocks=_param_blocks(spec),
        averaging=AveragingComparison(pi_A, pi_B, v, v, v, v, v), timings=timings,
    )  # fmt: skip


def _separable_primaries_game(spec: GameSpec, lams: tuple[float, float], n_starts: int, seed: int, t0: float) -> GameResult:
    """The separable game with primaries (:mod:`~cosolve.methods.conjoint.minimax_primaries`): each
    party's best KKT point of its own problem from ``p0`` and ``n_starts`` random starts and vertex
    ascent, exploitability 0 against those starts (each best response is that optimum whatever the
    opponent plays), the averaging comparison equal to the equilibrium; the delta method on the supports."""
    from cosolve.methods.conjoint.minimax_primaries import jacobians, maximise, party_problems

    clock = time.perf_counter()
    design = spec.design
    starts = design.level_offsets
    problems, chain_t, chains_c = party_problems(spec, lams)
    sols = [maximise(problems[p], n_starts=n_starts, seed=seed + p) for p in (0, 1)]
    solved = time.perf_counter()
    jac_pi, jac_n = [], []
    for p in (0, 1):
        dx_c, dx_t, dn_c, dn_t = jacobians(problems[p], sols[p])
        jac_pi.append(dx_c @ chains_c[p] + dx_t @ chain_t)
        jac_n.append(dn_c @ chains_c[p] + dn_t @ chain_t)
    jac_v = jac_n[0] - jac_n[1]
    v = 0.5 + problems[0].value(sols[0].x) - problems[1].value(sols[1].x)
    pis = tuple([s.x[starts[d] : starts[d + 1]].copy() for d in range(design.n_factors)] for s in sols)
    return _separable_result(spec, pis, v, jac_v, np.concatenate(jac_pi), sols, "sqp", (t0, clock, solved))


def make_estimator(spec: GameSpec, estimator: str, n_samples: int, seed: int):
    """``(kind, estimator)`` for the game: ``estimator`` auto, mc or enumerate (see ``solve_game``)."""
    kind = _choose_estimator(spec, estimator)
    return kind, (Enumeration(spec) if kind == "enumerate" else MonteCarlo(spec, n_samples, seed))


def _choose_estimator(spec: GameSpec, estimator: str) -> str:
    n = max(_count(spec, p) for p in (0, 1))
    if estimator == "enumerate" and n > 10**4:
        from cosolve.errors import UsageError

        raise UsageError(f"enumerating the game needs at most 10000 profiles per party, it has {n}")
    if estimator != "auto":
        return estimator
    if spec.all_identity:
        return "mc"
    return "enumerate" if n <= ENUMERATE_MAX_PROFILES else "mc"


def _count(spec: GameSpec, player: int) -> int:
    return int(np.prod([spec.design.sizes[d] for d in spec.free(player)]))


def _divergence(spec: GameSpec, pi_A: list[np.ndarray], pi_B: list[np.ndarray]) -> float:
    common = [d for d in spec.free(0) if d in spec.free(1)]
    if not common:
        return float("nan")
    diff = np.concatenate([pi_A[d] - pi_B[d] for d in common])
    return float(np.sqrt(np.mean(diff**2)))


def _param_blocks(spec: GameSpec) -> list[str]:
    roles = [[] for _ in spec.models]
    for g, i in enumerate(spec.general):
        roles[i].append(f"general:{spec.groups[g]}")
    for party, i in zip("AB", spec.primaries or (), strict=False):
        roles[i].append(f"primary:{party}")
    return ["+".join(r) for r in roles]


def _tensor(w: np.ndarray):
    import torch

    return torch.as_tensor(w, dtype=torch.float64)


def _numpy(pi) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in pi]
