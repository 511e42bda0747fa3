"""Average-case policies by gradient ascent on softmax logits (torch, float64).

Each factor's policy is ``pi[d] = softmax((0, w_d))``: the baseline logit is pinned to 0, so the
logits ``w`` (n_main,) are identified (the redundant shift of a softmax is removed, which the delta
method's implicit differentiation needs). The objective ``J = Q(pi) - lam * Pen(pi, p0)`` with
``Pen`` the L2 distance (``l2``) or the KL divergence (``kl``) from the randomisation ``p0`` is
maximised by L-BFGS with a strong-Wolfe line search, from the logits of ``p0``, then polished by
Newton steps on the exact Hessian (while it is negative definite), which take the gradient to
float64 round-off so that the closed form and this solver agree to about 1e-12.

``Q`` here is the identity-link value ``offset + E_pi[phi] . theta`` (:mod:`cosolve.problems.conjoint.model`;
exact: the levels are independent under ``pi``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cosolve.methods.conjoint.tensors import torch_module
from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import OutcomeModel

if TYPE_CHECKING:
    import torch

PENALTIES = ("l2", "kl")


@dataclass
class GradientSolution:
    """``pi`` (list of (L_d,)), the logits ``w`` (n_main,), ``value`` Q(pi), ``objective`` J(pi),
    L-BFGS ``iterations`` and the final gradient norm ``grad_norm`` (``converged`` when it is at
    most the tolerance)."""

    pi: list[np.ndarray]
    w: np.ndarray
    value: float
    objective: float
    iterations: int
    grad_norm: float
    converged: bool


def policy_from_logits(design: Design, w: torch.Tensor) -> list[torch.Tensor]:
    """torch: the list of D policies (L_d,) from the logits ``w`` (n_main,)."""
    torch = torch_module()
    o = design.main_offsets
    zero = torch.zeros(1, dtype=w.dtype)
    return [torch.softmax(torch.cat([zero, w[o[d] : o[d + 1]]]), 0) for d in range(design.n_factors)]


def expected_features(design: Design, pi: list[torch.Tensor], interactions: bool) -> torch.Tensor:
    """torch: ``[1, E_pi[phi]]`` (P + 1,)."""
    torch = torch_module()
    parts = [torch.ones(1, dtype=pi[0].dtype)] + [p[1:] for p in pi]
    if interactions:
        parts += [torch.outer(pi[d][1:], pi[e][1:]).reshape(-1) for d, e in design.pairs]
    return torch.cat(parts)


def penalty_value(design: Design, pi: list[torch.Tensor], penalty: str) -> torch.Tensor:
    """torch: ``Pen(pi, p0)``."""
    torch = torch_module()
    total = torch.zeros((), dtype=pi[0].dtype)
    for p, q in zip(pi, design.p0, strict=True):
        q = torch.as_tensor(q, dtype=p.dtype)
        if penalty == "l2":
            total = total + ((p - q) ** 2).sum()
        elif penalty == "kl":
            total = total + (p * (torch.log(p.clamp_min(1e-300)) - torch.log(q))).sum()
        else:
            raise ValueError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    return total


def objective(
    model: OutcomeModel, lam: float, penalty: str, w: torch.Tensor, params: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """torch: ``J(w) = Q - lam * Pen`` and ``Q``, with ``params`` (P + 1,) defaulting to the model's."""
    torch = torch_module()
    if model.link != "identity":
        raise ValueError("gradient ascent here optimises the identity-link value")
    if params is None:
        params = torch.as_tensor(model.params, dtype=torch.float64)
    pi = policy_from_logits(model.design, w)
    q = value_of_features(model, expected_features(model.design, pi, model.interactions), params)
    return q - lam * penalty_value(model.design, pi, penalty), q


def value_of_features(model: OutcomeModel, expected: torch.Tensor, params: torch.Tensor) -> torch.Tensor:
    """torch: ``Q = offset + E_pi[phi] . theta`` from ``[1, E_pi[phi]]`` (P + 1,) and ``params``."""
    torch = torch_module()
    weights = torch.as_tensor(model.offset_weights(), dtype=params.dtype)
    constant = 0.5 if model.forced_choice else 0.0
    return constant + weights @ params + expected[1:] @ params[1:]


def logits_of(pi: list[np.ndarray]) -> np.ndarray:
    """The baseline-pinned logits (n_main,) of a positive policy: ``log(pi[d][l] / pi[d][0])``, ``l >= 1``."""
    return np.concatenate([np.log(np.asarray(p)[1:] / p[0]) for p in pi])


def initial_logits(design: Design) -> np.ndarray:
    """The logits of ``p0``."""
    return logits_of(list(design.p0))


def optimize_policy(
    model: OutcomeModel,
    lam: float,
    *,
    penalty: str = "l2",
    tol: float = 1e-12,
    max_iter: int = 2000,
    start: np.ndarray | None = None,
) -> GradientSolution:
    """Maximise ``J`` over the logits (module docstring); ``start`` logits default to ``p0``'s."""
    torch = torch_module()
    w = torch.tensor(initial_logits(model.design) if start is None else start, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS(
        [w],
        lr=1.0,
        max_iter=max_iter,
        tolerance_grad=tol,
        tolerance_change=1e-300,
        history_size=50,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        j, _ = objective(model, lam, penalty, w)
        (-j).backward()
        return -j

    opt.step(closure)
    iterations = int(opt.state[opt._params[0]].get("n_iter", 0))
    wd = _newton_polish(model, lam, penalty, w.detach().clone())
    wd.requires_grad_(True)
    j, q = objective(model, lam, penalty, wd)
    (grad,) = torch.autograd.grad(j, wd)
    grad_norm = float(grad.abs().max())
    w = wd
    pi = [p.detach().numpy() for p in policy_from_logits(model.design, w.detach())]
    value, obj = float(q.detach()), float(j.detach())
    return GradientSolution(pi, w.detach().numpy().copy(), value, obj, iterations, grad_norm, grad_norm <= max(tol, 1e-9))


def _newton_polish(model: OutcomeModel, lam: float, penalty: str, w, steps: int = 20):
    """Newton steps ``w - H^{-1} g`` while ``H`` is negative definite and ``J`` does not drop."""
    torch = torch_module()
    from torch.func import grad, hessian

    def j_of(v):
        return objective(model, lam, penalty, v)[0]

    best = float(j_of(w))
    for _ in range(steps):
        g = grad(j_of)(w)
        if float(g.abs().max()) <= 1e-15:
            break
        H = hessian(j_of)(w)
        if float(torch.linalg.eigvalsh(H).max()) >= 0:
            break
        candidate = w - torch.linalg.solve(H, g)
        value = float(j_of(candidate))
        if value < best - 1e-15:
            break
        w, best = candidate, value
    return w
