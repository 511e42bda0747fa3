"""Delta-method uncertainty of the optimal policy and its value.

The optimum ``pi*(params)`` and ``Q*(params) = Q(pi*; params)`` are smooth functions of the outcome
model's parameters ``params = (alpha, theta)`` (P + 1,), whose respondent-clustered covariance
``Sigma`` the fit gives. With Jacobians ``J_pi`` (sum_d L_d, P + 1) and ``J_Q`` (P + 1,), the delta
method gives ``Var(pi*) = J_pi Sigma J_pi^T`` and ``Var(Q*) = J_Q Sigma J_Q``.

- Closed form (:func:`closed_form_jacobians`): ``C z = b`` differentiates to ``C dz = db - dC z``;
  ``db/dbeta = -I`` and an interaction coefficient ``G_de[l, m]`` enters ``C`` at ``(dl, em)`` and
  ``(em, dl)``, so ``dz = -C^{-1} (dC z)``; ``alpha`` moves nothing (it moves ``Q`` only for ratings).
- Gradient solution (:func:`implicit_jacobians`): at the optimum the logits satisfy
  ``grad_w J(w; params) = 0``, so ``dw/dparams = -H_ww^{-1} H_w,params`` (implicit function
  theorem), with ``H_w,params = (dE/dw)^T`` because ``J`` is linear in ``params`` through
  ``E = [1, E_pi[phi]]``.

Both give ``dQ*/dparams = dQ/dparams + (dQ/dz or dQ/dw) . (dz or dw)/dparams``, where ``dQ/dparams`` at
fixed ``pi`` is ``[1, E_pi[phi]]`` for ratings and ``[0, (E_pi - E_p0)[phi]]`` for forced choice
(:mod:`cosolve.problems.conjoint.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.methods.conjoint.policy import ClosedForm, hessian, rhs, value_gradient_z, value_weights
from cosolve.problems.conjoint.model import OutcomeModel


@dataclass
class Uncertainty:
    """``pi_se`` (list of (L_d,)) standard errors of the policy probabilities, ``value_se`` of
    ``Q(pi*)``; the Jacobians ``jac_pi`` (sum L_d, P + 1) and ``jac_value`` (P + 1,)."""

    pi_se: list[np.ndarray]
    value_se: float
    jac_pi: np.ndarray
    jac_value: np.ndarray


def _pi_rows_from_z(model: OutcomeModel, jac_z: np.ndarray) -> np.ndarray:
    """Jacobian of all levels (baseline included) from that of ``z``: the baseline row is minus
    the sum of its factor's rows."""
    design, o = model.design, model.design.main_offsets
    rows = []
    for d in range(design.n_factors):
        block = jac_z[o[d] : o[d + 1]]
        rows += [-block.sum(axis=0, keepdims=True), block]
    return np.concatenate(rows, axis=0)


def closed_form_jacobians(model: OutcomeModel, lam: float, solution: ClosedForm) -> tuple[np.ndarray, np.ndarray]:
    """``(jac_pi, jac_value)`` of the closed-form optimum (module docstring)."""
    design, o = model.design, model.design.main_offsets
    z = solution.z
    C = hessian(model, lam)
    P1 = model.params.size
    n = design.n_main
    # dC z for each parameter column; db for the main effects
    rhs = np.zeros((n, P1))
    rhs[:, 1 : n + 1] = -np.eye(n)
    if model.interactions:
        col = 1 + n
        for d, e in design.pairs:
            for i in range(o[d], o[d + 1]):
                for j in range(o[e], o[e + 1]):
                    rhs[i, col] -= z[j]
                    rhs[j, col] -= z[i]
                    col += 1
    jac_z = np.linalg.solve(C, rhs)
    expected = value_weights(model, design.expected_features([np.asarray(p) for p in solution.pi], model.interactions))
    jac_value = expected + value_gradient_z(model, z) @ jac_z
    return _pi_rows_from_z(model, jac_z), jac_value


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


def value_bias(model: OutcomeModel, lam: float, penalty: str, w: np.ndarray, *, closed_form: bool = False) -> float:
    """The second-order bias ``E[Q-hat*] - Q* ~ tr(H Sigma) / 2`` of the plug-in optimal value, with
    ``H`` (P + 1, P + 1) the Hessian of ``params -> Q(pi*(params); params)`` at the optimum (logits
    ``w``). Maximising over ``pi`` makes ``Q*`` convex-like in ``params`` (the winner's curse), so the
    plug-in value is biased upwards by about this much, which is of the order of its standard error
    when ``Q* - Q(p0)`` is small (second order in ``theta``).

    ``closed_form``: ``pi*(params)`` solves ``C z = b`` (one linear solve, L2 penalty and an interior
    optimum); otherwise it is two Newton steps on ``grad_w J = 0`` from ``w``, held fixed, which at the
    optimum have its exact first and second derivatives in ``params`` (the Newton map's derivative in
    ``w`` vanishes there), at the cost of nested Hessians."""
    import torch
    from torch.func import grad
    from torch.func import hessian as t_hessian

    from cosolve.methods.conjoint.gradient import objective

    if closed_form:
        q_star = _closed_form_value_function(model, lam)
    else:
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


def _closed_form_value_function(model: OutcomeModel, lam: float):
    """torch: ``params -> Q(pi*(params))`` through ``C z = b`` (:mod:`~cosolve.methods.conjoint.policy`):
    ``C = C_pen + G`` with ``G`` the interaction coefficients placed symmetrically, ``b = -beta + b_pen``,
    and ``Q = offset + beta . z + z^T G z / 2``."""
    import torch

    design, o = model.design, model.design.main_offsets
    n = design.n_main
    C_pen = torch.as_tensor(hessian(model.with_params(np.zeros_like(model.params)), lam))
    b_pen = torch.as_tensor(rhs(model.with_params(np.zeros_like(model.params)), lam))
    rows, cols = [], []
    if model.interactions:
        for d, e in design.pairs:
            for i in range(o[d], o[d + 1]):
                for j in range(o[e], o[e + 1]):
                    rows.append(i)
                    cols.append(j)
    flat = torch.as_tensor(np.array(rows, dtype=np.int64) * n + np.array(cols, dtype=np.int64))
    weights = torch.as_tensor(model.offset_weights())
    constant = 0.5 if model.forced_choice else 0.0

    def q_star(th):
        upper = torch.zeros(n * n, dtype=th.dtype).index_add(0, flat, th[1 + n : 1 + n + flat.numel()]).reshape(n, n)
        G = upper + upper.T
        beta = th[1 : 1 + n]
        z = torch.linalg.solve(C_pen + G, b_pen - beta)
        return constant + weights @ th + beta @ z + 0.5 * z @ G @ z

    return q_star
