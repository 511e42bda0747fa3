"""Delta-method uncertainty of the optimal policy and its value.

The optimum ``pi*(params)`` and ``Q*(params) = Q(pi*; params)`` are smooth functions of the outcome
model's parameters ``params = (alpha, theta)`` (P + 1,), whose respondent-clustered covariance
``Sigma`` the fit gives. With Jacobians ``J_pi`` (sum_d L_d, P + 1) and ``J_Q`` (P + 1,), the delta
method gives ``Var(pi*) = J_pi Sigma J_pi^T`` and ``Var(Q*) = J_Q Sigma J_Q``.

- Closed form (:func:`closed_form_jacobians`): ``C z = b`` differentiates to ``C dz = db - dC z``;
  ``db/dbeta = -I`` and an interaction coefficient ``G_de[l, m]`` enters ``C`` at ``(dl, em)`` and
  ``(em, dl)``, so ``dz = -C^{-1} (dC z)``; ``alpha`` moves nothing.
- Gradient solution (:func:`implicit_jacobians`): at the optimum the logits satisfy
  ``grad_w J(w; params) = 0``, so ``dw/dparams = -H_ww^{-1} H_w,params`` (implicit function
  theorem), with ``H_w,params = (dE/dw)^T`` because ``J`` is linear in ``params`` through
  ``E = [1, E_pi[phi]]``.

Both give ``dQ*/dparams = E + (dQ/dz or dQ/dw) . (dz or dw)/dparams``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.conjoint.model import OutcomeModel
from cosolve.methods.conjoint.policy import ClosedForm, hessian, value_gradient_z


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
    expected = np.concatenate([[1.0], design.expected_features([np.asarray(p) for p in solution.pi], model.interactions)])
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
    expected = e_of_w(wt)
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
