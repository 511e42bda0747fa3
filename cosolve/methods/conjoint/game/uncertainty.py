"""The delta method of the conjoint game (issue 8): standard errors of an equilibrium
(:func:`delta_method`) and of a best response (:func:`response_delta_method`).

At the equilibrium ``grad_w S(w; theta) = 0`` (``S`` of :meth:`~cosolve.methods.conjoint.game.logit_game.Game.scalar`, whose
stationarity in each player's own logits is the pair of first-order conditions), so
``dw/dtheta = -H_ww^{-1} H_w,theta`` (the sign flip of B's conditions cancels) and
``dV*/dtheta = dV/dtheta + dV/dw dw/dtheta``; ``Var = J Sigma J^T`` with ``Sigma`` block-diagonal over
the distinct, independently fit models. With the Monte Carlo estimator this runs on its surrogate
(with second-order terms) centred at the equilibrium, the common random numbers held fixed: the
parameter uncertainty only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from cosolve.methods.conjoint.game.logit_game import Game, Player, rows_of_jacobian
from cosolve.methods.conjoint.game.payoff import GameSpec
from cosolve.methods.conjoint.tensors import Policy, as_policy, torch_module

if TYPE_CHECKING:
    import torch

#: Levels of a best response at or below this probability are outside its support in the delta method.
SUPPORT_FLOOR = 1e-8


def delta_method(
    game: Game, w: np.ndarray
) -> tuple[float, list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """``(vote_share_se, pi_se_A, pi_se_B, jac_vote_share, jac_pi_A, jac_pi_B)`` at the equilibrium
    logits ``w`` (module docstring); ``jac_pi_P`` (sum_d L_d, n_params) over all levels of P's policy."""
    torch = torch_module()
    spec = game.spec
    theta = torch.as_tensor(spec.stacked_params(), dtype=torch.float64)
    wt = torch.as_tensor(w, dtype=torch.float64)

    def vote(w_, th):
        pi_A, pi_B = game.policies(w_)
        return game.vote_share(pi_A, pi_B, th)

    def levels(w_):
        pi_A, pi_B = game.policies(w_)
        return torch.cat(pi_A + pi_B)

    with game.centred(*game.policies(wt), hessian=True):
        jac_v, jac_pi = _implicit_jacobians(game.scalar, vote, levels, wt, theta, 2 * sum(spec.design.sizes))
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    D, half = spec.design.n_factors, sum(spec.design.sizes)
    return se_v, se_pi[:D], se_pi[D:], jac_v, jac_pi[:half], jac_pi[half:]


def response_delta_method(
    game: Game, player: int, pi_own: list[np.ndarray], pi_other: Policy
) -> tuple[float, list[np.ndarray], np.ndarray, np.ndarray]:
    """``(value_se, pi_se, jac_value, jac_pi)`` of a best response ``pi_own`` (list of (L_d,)) to the
    fixed ``pi_other``: the player's first-order conditions ``grad_w U_P(w; theta) = 0`` on the
    response's support (levels of probability at most ``SUPPORT_FLOOR`` are held at 0) give ``dw/dtheta``, and the value is
    the player's expected vote share (A's ``V``, or B's ``1 - V``)."""
    torch = torch_module()
    spec = game.spec
    own = [np.asarray(p, dtype=np.float64) for p in pi_own]
    active = {}
    for d in spec.free(player):
        top = int(np.argmax(own[d]))
        active[d] = np.array([top] + [lv for lv in np.flatnonzero(own[d] > SUPPORT_FLOOR) if lv != top])
    P = Player(spec, player, active)
    other = as_policy(pi_other)
    theta = torch.as_tensor(spec.stacked_params(), dtype=torch.float64)
    wt = torch.as_tensor(P.logits(own), dtype=torch.float64)

    def pair(w_):
        mine = P.policy(w_)
        return (mine, other) if player == 0 else (other, mine)

    def payoff(w_, th):
        return game.utility(player, P.policy(w_), other, th)

    def value(w_, th):
        v = game.vote_share(*pair(w_), th)
        return v if player == 0 else 1.0 - v

    with game.centred(*pair(wt), hessian=True):
        jac_v, jac_pi = _implicit_jacobians(payoff, value, lambda w_: torch.cat(P.policy(w_)), wt, theta, sum(spec.design.sizes))
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    return se_v, se_pi, jac_v, jac_pi


def _implicit_jacobians(
    objective: Callable[..., torch.Tensor],
    value: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    levels: Callable[[torch.Tensor], torch.Tensor],
    w: torch.Tensor,
    theta: torch.Tensor,
    n_levels: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``(d value*/d theta (n_params,), d levels*/d theta (n_levels, n_params))``, numpy, at a
    stationary point ``w`` of ``objective(w, theta)`` in ``w``: ``dw/dtheta = -H_ww^{-1} H_w,theta``
    (NaN where ``H_ww`` is singular: the stationary point is not locally unique). ``theta`` is the
    bound params of the estimator, so ``H_ww`` is taken with ``objective(w, None)`` (the same
    function, without carrying the params through the estimator's constants)."""
    torch = torch_module()
    from torch.autograd.functional import jacobian

    w_, th = w.detach().clone().requires_grad_(True), theta.detach().clone().requires_grad_(True)
    g_w, g_th = (
        torch.zeros_like(x) if g is None else g
        for g, x in zip(torch.autograd.grad(value(w_, th), (w_, th), allow_unused=True), (w_, th), strict=True)
    )
    if not w.numel():
        return g_th.detach().numpy(), np.zeros((n_levels, theta.numel()))
    H = rows_of_jacobian(lambda w_: objective(w_, None), w, w)  # at the bound params: none carried through
    M = rows_of_jacobian(objective, w, theta)
    try:
        dw = -torch.linalg.solve(H, M)
    except RuntimeError:
        dw = torch.full_like(M, float("nan"))
    return (g_th + g_w @ dw).detach().numpy(), (jacobian(levels, w) @ dw).detach().numpy()


def standard_errors(spec: GameSpec, jac_v: np.ndarray, jac_pi: np.ndarray) -> tuple[float, list[np.ndarray]]:
    """The value's standard error and the levels' (split per factor, one or more policies stacked)
    from Jacobians in the stacked parameters, whose covariance is block-diagonal over the models."""
    var_v, var_pi = 0.0, np.zeros(jac_pi.shape[0])
    for model, block in zip(spec.models, spec.slices, strict=True):  # Sigma block by block
        var_v += float(jac_v[block] @ model.cov @ jac_v[block])
        var_pi += ((jac_pi[:, block] @ model.cov) * jac_pi[:, block]).sum(1)
    se_pi = np.sqrt(np.clip(var_pi, 0.0, None))
    sizes = list(spec.design.sizes) * (jac_pi.shape[0] // sum(spec.design.sizes))
    return float(np.sqrt(max(var_v, 0.0))), np.split(se_pi, np.cumsum(sizes)[:-1])
