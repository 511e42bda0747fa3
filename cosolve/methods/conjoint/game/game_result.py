"""What the conjoint game's solvers return (issue 8): the equilibrium (:class:`GameResult`) and the
averaging comparison (:class:`AveragingComparison`), and the summaries both solvers report: the
strategic :func:`divergence` of the two policies and the roles of the models' parameters (:func:`param_blocks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosolve.methods.conjoint.game.payoff import GameSpec


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


def divergence(spec: GameSpec, pi_A: list[np.ndarray], pi_B: list[np.ndarray]) -> float:
    """The RMS difference of two policies over the levels of the factors free for both parties (NaN if none)."""
    common = [d for d in spec.free(0) if d in spec.free(1)]
    if not common:
        return float("nan")
    diff = np.concatenate([pi_A[d] - pi_B[d] for d in common])
    return float(np.sqrt(np.mean(diff**2)))


def param_blocks(spec: GameSpec) -> list[str]:
    """The roles of each of the game's distinct models, e.g. ``general:Dem+primary:A`` (``GameResult.param_blocks``)."""
    roles = [[] for _ in spec.models]
    for g, i in enumerate(spec.general):
        roles[i].append(f"general:{spec.groups[g]}")
    for party, i in zip("AB", spec.primaries or (), strict=False):
        roles[i].append(f"primary:{party}")
    return ["+".join(r) for r in roles]
