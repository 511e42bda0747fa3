"""The separable conjoint games (issue 8), solved in numpy without iteration over the players.

Identity links without primaries with the L2 penalty separate: ``V = 1/2 + E_pi_A[t] - E_pi_B[t]``
(:mod:`~cosolve.methods.conjoint.game.payoff`, ``t`` the share-weighted predictor), so each party's
best response ignores the other and the equilibrium is each party's L2 average-case optimum of ``t``
with its fixed factors: two exact QPs (:func:`~cosolve.methods.conjoint.policy.solve_policy_qp`) with
the delta method of :func:`~cosolve.methods.conjoint.delta.qp_jacobians`, no iteration (estimator
``qp``). With primaries and identity links the game still separates, ``V = 1/2 + N_A(pi_A) -
N_B(pi_B)``, but each ``N_P`` holds a second moment of the primary and general predictors (degree 4
in the policy): each party's own problem by SQP in numpy
(:mod:`~cosolve.methods.conjoint.game.party_problem`, estimator ``sqp``).

In both, each party's best response is its own optimum whatever the other plays: the exploitability
is 0 and the averaging comparison equals the equilibrium.
"""

from __future__ import annotations

import time

import numpy as np

from cosolve.methods.conjoint.delta import qp_jacobians
from cosolve.methods.conjoint.game.game_result import AveragingComparison, GameResult, divergence, param_blocks
from cosolve.methods.conjoint.game.party_problem import PartySolution, jacobians, maximise, party_problems, pooled
from cosolve.methods.conjoint.game.payoff import GameSpec
from cosolve.methods.conjoint.game.uncertainty import standard_errors
from cosolve.methods.conjoint.policy import QPSolution, solve_policy_qp
from cosolve.problems.conjoint.model import OutcomeModel


def separates(models: dict[str, OutcomeModel], primaries: dict[str, OutcomeModel] | None, penalty: str, estimator: str) -> bool:
    """Whether the game separates into two single-party problems solved in numpy (module docstring)."""
    roles = list(models.values()) + list((primaries or {}).values())
    return penalty == "l2" and estimator in ("auto", "mc") and all(m.link == "identity" for m in roles)


def separable_game(spec: GameSpec, lams: tuple[float, float], seed: int, t0: float) -> GameResult:
    """The separable game (module docstring): each party's QP optimum of ``t``, exploitability 0 (each
    best response is that optimum whatever the opponent plays: global when the QP is concave, else the
    best of its starts), the averaging comparison equal to the equilibrium."""
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


def _separable_result(
    spec: GameSpec,
    pis: tuple[list[np.ndarray], list[np.ndarray]],
    v: float,
    jac_v: np.ndarray,
    jac_pi: np.ndarray,
    sols: list[QPSolution] | list[PartySolution],
    estimator: str,
    clocks: tuple[float, float, float],
) -> GameResult:
    """The :class:`GameResult` of a separable game: policies ``pis`` (A's, B's), A's vote share ``v``,
    its Jacobian ``jac_v`` and the policies' ``jac_pi`` (2 sum_d L_d, n_params), the two parties'
    solutions ``sols`` (``kkt_residual``, ``iterations``), ``clocks`` (start, solve start, solve end).
    Exploitability 0 (each party's best response is its own optimum whatever the other plays) and
    the averaging comparison equal to the equilibrium."""
    t0, clock, solved = clocks
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    (pi_A, pi_B), D, half = pis, spec.design.n_factors, sum(spec.design.sizes)
    timings = {"equilibrium": solved - clock, "best_responses": 0.0, "delta": time.perf_counter() - solved, "averaging": 0.0}
    return GameResult(
        pi_A=pi_A, pi_B=pi_B, vote_share=v, vote_share_se=se_v, vote_share_mc_se=0.0, pi_se_A=se_pi[:D], pi_se_B=se_pi[D:],
        exploitability=0.0, gap_A=0.0, gap_B=0.0, divergence=divergence(spec, pi_A, pi_B),
        foc_norm=max(sols[0].kkt_residual, sols[1].kkt_residual), iterations=sols[0].iterations + sols[1].iterations,
        seconds=time.perf_counter() - t0, converged=True, estimator=estimator, jac_vote_share=jac_v, jac_pi_A=jac_pi[:half],
        jac_pi_B=jac_pi[half:], param_blocks=param_blocks(spec),
        averaging=AveragingComparison(pi_A, pi_B, v, v, v, v, v), timings=timings,
    )  # fmt: skip


def separable_primaries_game(spec: GameSpec, lams: tuple[float, float], n_starts: int, seed: int, t0: float) -> GameResult:
    """The separable game with primaries (:mod:`~cosolve.methods.conjoint.game.party_problem`): each
    party's best KKT point of its own problem from ``p0`` and ``n_starts`` random starts and vertex
    ascent, exploitability 0 against those starts (each best response is that optimum whatever the
    opponent plays), the averaging comparison equal to the equilibrium; the delta method on the supports."""
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
