"""Restricted minimax equilibrium of the two-party conjoint game (issue 8; Jerzak, Chandra & Hazra 2026).

Parties A and B choose product policies over one design (factors they fix stay point masses). A's
payoff is ``U_A = V - lam_A Pen(pi_A, p0)``, B's is ``U_B = (1 - V) - lam_B Pen(pi_B, p0)``, with ``V``
A's expected vote share (:mod:`~cosolve.methods.conjoint.game.payoff`: groups, shares, optional
primaries, estimators) and ``Pen`` the L2 or KL penalty of the average case.

Identity links without primaries with the L2 penalty separate: ``V = 1/2 + E_pi_A[t] - E_pi_B[t]``
(:mod:`~cosolve.methods.conjoint.game.payoff`, ``t`` the share-weighted predictor), so each party's
best response ignores the other and the equilibrium is each party's L2 average-case optimum of ``t``
with its fixed factors: two exact QPs (:func:`~cosolve.methods.conjoint.policy.solve_policy_qp`) with
the delta method of :func:`~cosolve.methods.conjoint.delta.qp_jacobians`, no iteration (estimator
``qp``). With primaries and identity links the game still separates, ``V = 1/2 + N_A(pi_A) -
N_B(pi_B)``, but each ``N_P`` holds a second moment of the primary and general predictors (degree 4
in the policy): each party's own problem by SQP in numpy
(:mod:`~cosolve.methods.conjoint.game.party_problem`, estimator ``sqp``); both in
:mod:`~cosolve.methods.conjoint.game.separable`.

Otherwise, solver (:mod:`~cosolve.methods.conjoint.game.extragradient_newton`): extra-gradient then Newton on both players'
first-order conditions in softmax logits, with supports that shrink for boundary equilibria and, for
the Monte Carlo estimator, a re-centred smooth surrogate. A stationary point need not be an
equilibrium of a non-concave game (with interactions, primaries or logit links ``V`` is multilinear,
not concave, in a player's factors), so the result reports the *exploitability*, the sum of both
players' best-response gaps (:mod:`~cosolve.methods.conjoint.game.response`); above ``tol`` the
solve restarts from the best responses (``restarts`` times), and ``converged`` means it ends at most
``tol``. Uncertainty is by the delta method (:func:`~cosolve.methods.conjoint.game.uncertainty.delta_method`).
"""

from __future__ import annotations

import time

import numpy as np

from cosolve.errors import UsageError
from cosolve.methods.conjoint.game.extragradient_newton import extragradient, recentred_solve, solve_on_support
from cosolve.methods.conjoint.game.game_result import GameResult, divergence, param_blocks
from cosolve.methods.conjoint.game.logit_game import Game, Player
from cosolve.methods.conjoint.game.monte_carlo import MonteCarlo
from cosolve.methods.conjoint.game.payoff import Enumeration, GameSpec, build_spec
from cosolve.methods.conjoint.game.response import averaging_comparison, best_response
from cosolve.methods.conjoint.game.separable import separable_game, separable_primaries_game, separates
from cosolve.methods.conjoint.game.uncertainty import delta_method
from cosolve.methods.conjoint.gradient import PENALTIES
from cosolve.methods.conjoint.tensors import as_tensor, to_numpy, torch_threads
from cosolve.problems.conjoint.model import OutcomeModel

ESTIMATORS = ("auto", "mc", "enumerate")
#: ``auto`` enumerates when both players have at most this many profiles.
ENUMERATE_MAX_PROFILES = 200


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
    options = {k: v for k, v in locals().items() if k not in ("threads", "torch_threads")}
    if separates(models, primaries, penalty, estimator):
        return _solve_game(**options)  # numpy only
    with torch_threads(threads):
        return _solve_game(**options)


def _solve_game(
    models, shares, *, lam, penalty, primaries, fixed_A, fixed_B, estimator, n_samples, seed, mc_rounds, step, max_iter,
    newton_switch, foc_tol, tol, n_starts, restarts, uncertainty, compare_averaging,
) -> GameResult:  # fmt: skip
    t0 = time.perf_counter()
    if penalty not in PENALTIES:
        raise UsageError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    if estimator not in ESTIMATORS:
        raise UsageError(f"unknown estimator {estimator!r}; valid: {', '.join(ESTIMATORS)}")
    lams = (float(lam), float(lam)) if np.isscalar(lam) else tuple(float(v) for v in lam)
    if len(lams) != 2 or not all(np.isfinite(v) and v >= 0 for v in lams):
        raise UsageError(f"lam must be one finite non-negative number or a pair (lam_A, lam_B), got {lam}")
    spec = build_spec(models, shares, primaries, fixed_A, fixed_B)
    if separates(models, primaries, penalty, estimator):
        if primaries is not None:
            return separable_primaries_game(spec, lams, n_starts, seed, t0)
        return separable_game(spec, lams, seed, t0)
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
        pi_A, pi_B = game.policies(as_tensor(w))
        now = time.perf_counter()
        timings["equilibrium"] += now - clock
        clock = now
        gaps, responses = [], []
        for p, (own, other) in enumerate(((pi_A, pi_B), (pi_B, pi_A))):
            br_value, br_pi = best_response(game, p, other, [to_numpy(own)], n_starts=n_starts, seed=seed + p)
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
        starts = [br if gap > limit / 2 else to_numpy(pi) for br, gap, pi in zip(responses, gaps, (pi_A, pi_B), strict=True)]
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
        pi_A=to_numpy(pi_A),
        pi_B=to_numpy(pi_B),
        vote_share=v,
        vote_share_se=se[0],
        vote_share_mc_se=mc_se,
        pi_se_A=se[1],
        pi_se_B=se[2],
        exploitability=gaps[0] + gaps[1],
        gap_A=gaps[0],
        gap_B=gaps[1],
        divergence=divergence(spec, to_numpy(pi_A), to_numpy(pi_B)),
        foc_norm=norm,
        iterations=iterations,
        seconds=0.0,
        converged=gaps[0] + gaps[1] <= limit,
        estimator=kind,
        jac_vote_share=se[3],
        jac_pi_A=se[4],
        jac_pi_B=se[5],
        param_blocks=param_blocks(spec),
        timings=timings,
    )
    if compare_averaging:
        clock = time.perf_counter()
        result.averaging = averaging_comparison(game, to_numpy(pi_A), to_numpy(pi_B), n_starts=n_starts, seed=seed)
        timings["averaging"] = time.perf_counter() - clock
    result.seconds = time.perf_counter() - t0
    return result


def make_estimator(spec: GameSpec, estimator: str, n_samples: int, seed: int) -> tuple[str, Enumeration | MonteCarlo]:
    """``(kind, estimator)`` for the game: ``estimator`` auto, mc or enumerate (see ``solve_game``)."""
    kind = _choose_estimator(spec, estimator)
    return kind, (Enumeration(spec) if kind == "enumerate" else MonteCarlo(spec, n_samples, seed))


def _choose_estimator(spec: GameSpec, estimator: str) -> str:
    n = max(_count(spec, p) for p in (0, 1))
    if estimator == "enumerate" and n > 10**4:
        raise UsageError(f"enumerating the game needs at most 10000 profiles per party, it has {n}")
    if estimator != "auto":
        return estimator
    if spec.all_identity:
        return "mc"
    return "enumerate" if n <= ENUMERATE_MAX_PROFILES else "mc"


def _count(spec: GameSpec, player: int) -> int:
    return int(np.prod([spec.design.sizes[d] for d in spec.free(player)]))
