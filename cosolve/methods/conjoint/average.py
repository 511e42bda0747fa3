"""The average-case policy with its uncertainty: closed form where it applies, else gradient ascent.

``average_case(model, lam)`` maximises ``Q(pi) - lam * Pen(pi, p0)`` for an identity-link outcome
model. With the L2 penalty it first tries the closed form (:func:`~cosolve.methods.conjoint.policy.closed_form`)
and falls back to gradient ascent when a check fails (``C`` not negative definite, or the stationary
point outside the simplex); the KL penalty always uses gradient ascent. Standard errors come from the
delta method through whichever solver produced the policy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cosolve.conjoint.model import OutcomeModel
from cosolve.errors import UsageError
from cosolve.methods.conjoint.delta import closed_form_jacobians, implicit_jacobians, uncertainty
from cosolve.methods.conjoint.gradient import PENALTIES, optimize_policy
from cosolve.methods.conjoint.policy import closed_form, kl_penalty, l2_penalty, policy_table, policy_value


@dataclass
class PolicyResult:
    """``pi`` and ``pi_se`` (lists of (L_d,)), ``value`` Q(pi*) and ``value_se``, ``p0_value``
    Q(p0) (the randomisation's value), ``solver`` ("closed-form" or "gradient"), ``note`` (why the
    closed form was not used), ``penalty`` and ``lam``, ``seconds`` of optimisation and delta method."""

    pi: list[np.ndarray]
    pi_se: list[np.ndarray]
    value: float
    value_se: float
    p0_value: float
    solver: str
    lam: float
    penalty: str
    note: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def policy_table(self, model: OutcomeModel) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{factor: {level: {"p": ..., "se": ..., "p0": ...}}}`` (JSON-able)."""
        return policy_table(model.design, self.pi, self.pi_se)


def average_case(model: OutcomeModel, lam: float, *, penalty: str = "l2", solver: str = "auto", threads: int = 1) -> PolicyResult:
    """The average-case optimum (module docstring); ``solver``: auto, closed-form or gradient;
    ``threads``: torch's intra-op threads while it runs (tiny tensors: one is fastest)."""
    from cosolve.methods.conjoint.gradient import torch_threads

    with torch_threads(threads):
        return _average_case(model, lam, penalty, solver)


def _average_case(model: OutcomeModel, lam: float, penalty: str, solver: str) -> PolicyResult:
    if penalty not in PENALTIES:
        raise UsageError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    if solver not in ("auto", "closed-form", "gradient"):
        raise UsageError(f"unknown solver {solver!r}; valid: auto, closed-form, gradient")
    if model.link != "identity":
        raise UsageError("the average-case optimisers need an identity-link (linear probability) outcome model")
    if lam < 0:
        raise UsageError(f"lambda must be non-negative, got {lam}")
    started = time.perf_counter()
    note = ""
    if penalty == "l2" and solver in ("auto", "closed-form"):
        cf = closed_form(model, lam)
        if cf.ok:
            jac_pi, jac_q = closed_form_jacobians(model, lam, cf)
            u = uncertainty(model, jac_pi, jac_q)
            return PolicyResult(
                cf.pi, u.pi_se, policy_value(model, cf.pi), u.value_se, policy_value(model, list(model.design.p0)),
                "closed-form", lam, penalty, "", time.perf_counter() - started,
                {"max_eigenvalue": cf.max_eigenvalue, "penalty_value": l2_penalty(model.design, cf.pi)},
            )  # fmt: skip
        if solver == "closed-form":
            raise UsageError(f"closed form not applicable: {cf.reason}")
        note = f"closed form not used: {cf.reason}"
    elif penalty != "l2" and solver == "closed-form":
        raise UsageError("the closed form is for the L2 penalty")
    grad = optimize_policy(model, lam, penalty=penalty)
    jac_pi, jac_q = implicit_jacobians(model, lam, penalty, grad.w)
    u = uncertainty(model, jac_pi, jac_q)
    pen = l2_penalty(model.design, grad.pi) if penalty == "l2" else kl_penalty(model.design, grad.pi)
    return PolicyResult(
        grad.pi, u.pi_se, grad.value, u.value_se, policy_value(model, list(model.design.p0)), "gradient", lam, penalty, note,
        time.perf_counter() - started,
        {"iterations": grad.iterations, "grad_norm": grad.grad_norm, "converged": grad.converged, "penalty_value": pen},
    )  # fmt: skip
