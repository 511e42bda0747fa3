"""Delta-method uncertainty of the optimal policy and its value.

The optimum ``pi*(params)`` and ``Q*(params) = Q(pi*; params)`` are smooth functions of the outcome
model's parameters ``params = (alpha, theta)`` (P + 1,), whose respondent-clustered covariance
``Sigma`` the fit gives. With Jacobians ``J_pi`` (sum_d L_d, P + 1) and ``J_Q`` (P + 1,), the delta
method gives ``Var(pi*) = J_pi Sigma J_pi^T`` and ``Var(Q*) = J_Q Sigma J_Q``.

- Active-set optimum of the L2 penalty (:func:`qp_jacobians`; :mod:`~cosolve.methods.conjoint.policy`):
  on its face (the support held, the levels off it at 0) the optimum ``x = x_F + Z u`` solves
  ``Z^T grad J(x; params) = 0``, the closed form on the support. ``grad J = g + H x`` is linear in
  ``params``, with ``d grad J / d params = Phi(x)^T``, ``Phi`` (P + 1, n_levels) the Jacobian of
  ``E_pi[phi]`` in ``x`` (a main effect's row is its level's unit vector; an interaction joining
  levels ``i`` and ``j`` has ``x_j`` at ``i`` and ``x_i`` at ``j``), so ``dx/dparams = -M Phi^T`` with
  ``M = Z C_F^{-1} Z^T``; ``alpha`` moves nothing (it moves ``Q`` only for ratings). The levels off the
  support stay at 0: the delta method holds the active set fixed, as it is for small moves of the
  parameters unless a level off it has multiplier 0 (``QPSolution.degenerate``).
- Gradient solution (:func:`implicit_jacobians`): at the optimum the logits satisfy
  ``grad_w J(w; params) = 0``, so ``dw/dparams = -H_ww^{-1} H_w,params`` (implicit function
  theorem), with ``H_w,params = (dE/dw)^T`` because ``J`` is linear in ``params`` through
  ``E = [1, E_pi[phi]]``.

Both give ``dQ*/dparams = dQ/dparams + (dQ/dx or dQ/dw) . (dx or dw)/dparams``, where ``dQ/dparams`` at
fixed ``pi`` is ``[1, E_pi[phi]]`` for ratings and ``[0, (E_pi - E_p0)[phi]]`` for forced choice
(:mod:`cosolve.problems.conjoint.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.methods.conjoint.policy import QPSolution, level_index, policy_qp, value_weights
from cosolve.problems.conjoint.model import OutcomeModel


@dataclass
class Uncertainty:
    """``pi_se`` (list of (L_d,)) standard errors of the policy probabilities, ``value_se`` of
    ``Q(pi*)``; the Jacobians ``jac_pi`` (sum L_d, P + 1) and ``jac_value`` (P + 1,)."""

    pi_se: list[np.ndarray]
    value_se: float
    jac_pi: np.ndarray
    jac_value: np.ndarray


def _feature_jacobian(model: OutcomeModel, x: np.ndarray, *, main: bool = True) -> np.ndarray:
    """``Phi(x)`` (P + 1, n_levels): the Jacobian of ``[1, E_pi[phi]]`` in the stacked policy ``x``
    (module docstring); ``main=False`` leaves the main-effect rows 0 (the part of ``Phi`` that moves
    with ``x``)."""
    design = model.design
    main_lv, left, right = level_index(design, model.interactions)
    Phi = np.zeros((model.params.size, x.size))
    if main:
        Phi[1 + np.arange(main_lv.size), main_lv] = 1.0
    rows = 1 + design.n_main + np.arange(left.size)
    Phi[rows, left] = x[right]
    Phi[rows, right] = x[left]
    return Phi


def _qp_derivatives(model: OutcomeModel, lam: float, solution: QPSolution):
    """``(qp, Phi, M, dX)``: the QP, ``Phi(x)``, ``M = Z C_F^{-1} Z^T`` (n_levels, n_levels) and
    ``dx/dparams = -M Phi^T`` (n_levels, P + 1); ``M`` and ``dX`` are NaN where ``C_F`` is singular (the
    optimum is not locally unique)."""
    qp = policy_qp(model, lam)
    Phi = _feature_jacobian(model, solution.x)
    M = qp.face_inverse(solution.support)
    return qp, Phi, M, -M @ Phi.T


def qp_jacobians(model: OutcomeModel, lam: float, solution: QPSolution) -> tuple[np.ndarray, np.ndarray]:
    """``(jac_pi (n_levels, P + 1), jac_value (P + 1,))`` of the active-set optimum ``solution`` of
    :func:`~cosolve.methods.conjoint.policy.solve_policy_qp` (module docstring)."""
    qp, _, _, dX = _qp_derivatives(model, lam, solution)
    expected = value_weights(model, model.design.expected_features(solution.pi, model.interactions))
    return dX, expected + (qp.b + qp.G @ solution.x) @ dX


def qp_value_bias(model: OutcomeModel, lam: float, solution: QPSolution) -> float:
    """:func:`value_bias` of the active-set optimum, in closed form: with ``Q*(params) = c + w . params
    + E_pi*[phi] . theta``, ``dX = dx/dparams``, ``a = dQ/dx = b + G x`` and ``v = M a``, the Hessian of
    ``Q*`` is ``A + A^T + dX^T G dX - B - B^T``, ``A = Phi(x) dX`` (the features move with ``x``) and
    ``B = Phi_int(v) dX`` (the second derivative of ``x``, from differentiating ``Z^T grad J = 0``
    twice: ``d2x_kl = -M (dPhi_k/dx dx_l + dPhi_l/dx dx_k)``, only interactions having ``dPhi/dx``)."""
    qp, Phi, M, dX = _qp_derivatives(model, lam, solution)
    v = M @ (qp.b + qp.G @ solution.x)
    A = Phi @ dX
    B = _feature_jacobian(model, v, main=False) @ dX
    H = A + A.T + dX.T @ qp.G @ dX - B - B.T
    return 0.5 * float(np.sum(H * model.cov))


def curvature_se(model: OutcomeModel, lam: float) -> tuple[float, float]:
    """``(top, se)``: the largest eigenvalue of ``C`` (over every level; ``J`` is concave when it is
    at most 0) and its delta-method standard error. With ``v`` its unit eigenvector and ``p = Z v``,
    ``d top / d G_ij = 2 p_i p_j`` for the interaction joining levels ``i`` and ``j`` (only
    interactions move ``C``). Within about two standard errors of 0 the data do not settle whether
    ``J`` is concave: the optimum can jump with the parameters and the delta method is then a poor
    guide."""
    qp = policy_qp(model, lam)
    Z, C = qp.reduced_hessian(np.ones(qp.g.size, dtype=bool))
    values, vectors = np.linalg.eigh(C)
    p = Z @ vectors[:, -1]
    _, left, right = level_index(model.design, model.interactions)
    grad = np.zeros(model.params.size)
    grad[1 + model.design.n_main :] = 2.0 * p[left] * p[right]
    return float(values[-1]), float(np.sqrt(max(grad @ model.cov @ grad, 0.0)))


def implicit_jacobians(model: OutcomeModel, lam: float, penalty: str, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(jac_pi, jac_value)`` of the gradient optimum at logits ``w`` by implicit differentiation."""
    import torch
    from torch.func import hessian as t_hessian
    from torch.func import jacfwd

    from cosolve.methods.conjoint.gradient import expected_features, objective, policy_from_logits

    design = model.design
    params = torch.as_tensor(model.params, dtype=torch.float64)
    wt = torch.as_tensor(w, dtype=torch.float64)

    def j_of_w(v):
        return objective(model, lam, penalty, v, params)[0]

    def e_of_w(v):
        return expected_features(design, policy_from_logits(design, v), model.interactions)

    def pi_of_w(v):
        return torch.cat(policy_from_logits(design, v))

    H = t_hessian(j_of_w)(wt)  # (n_w, n_w)
    M = jacfwd(e_of_w)(wt)  # (P + 1, n_w)
    dw = -torch.linalg.solve(H, M.T)  # (n_w, P + 1)
    jac_pi = jacfwd(pi_of_w)(wt) @ dw
    expected = torch.as_tensor(value_weights(model, e_of_w(wt)[1:].numpy()))
    jac_value = expected + (M.T @ params) @ dw
    return jac_pi.detach().numpy(), jac_value.detach().numpy()


def uncertainty(model: OutcomeModel, jac_pi: np.ndarray, jac_value: np.ndarray) -> Uncertainty:
    """Standard errors from the Jacobians and the model's covariance."""
    var_pi = np.einsum("ip,pq,iq->i", jac_pi, model.cov, jac_pi)
    var_q = float(jac_value @ model.cov @ jac_value)
    sizes = model.design.sizes
    cuts = np.cumsum(sizes)[:-1]
    se = [np.sqrt(np.clip(v, 0.0, None)) for v in np.split(var_pi, cuts)]
    return Uncertainty(se, float(np.sqrt(max(var_q, 0.0))), jac_pi, jac_value)


def value_bias(model: OutcomeModel, lam: float, penalty: str, w: np.ndarray) -> float:
    """The second-order bias ``E[Q-hat*] - Q* ~ tr(H Sigma) / 2`` of the plug-in optimal value, with
    ``H`` (P + 1, P + 1) the Hessian of ``params -> Q(pi*(params); params)`` at the optimum (logits
    ``w``). Maximising over ``pi`` makes ``Q*`` convex-like in ``params`` (the winner's curse), so the
    plug-in value is biased upwards by about this much, which is of the order of its standard error
    when ``Q* - Q(p0)`` is small (second order in ``theta``).

    Here ``pi*(params)`` is two Newton steps on ``grad_w J = 0`` from the gradient solution's logits
    ``w``, held fixed, which at the optimum have its exact first and second derivatives in ``params``
    (the Newton map's derivative in ``w`` vanishes there), at the cost of nested Hessians (torch); the
    active-set optimum of the L2 penalty has them in closed form (:func:`qp_value_bias`)."""
    import torch
    from torch.func import grad
    from torch.func import hessian as t_hessian

    from cosolve.methods.conjoint.gradient import objective

    start = torch.as_tensor(w, dtype=torch.float64)

    def j_of(v, th):
        return objective(model, lam, penalty, v, th)[0]

    def q_star(th):
        v = start
        for _ in range(2):
            v = v - torch.linalg.solve(t_hessian(j_of)(v, th), grad(j_of)(v, th))
        return objective(model, lam, penalty, v, th)[1]

    H = t_hessian(q_star)(torch.as_tensor(model.params, dtype=torch.float64)).detach().numpy()
    return 0.5 * float(np.sum(H * model.cov))
