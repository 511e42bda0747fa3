"""The average-case policy with its uncertainty: closed form where it applies, else gradient ascent.

``average_case(model, lam)`` maximises ``Q(pi) - lam * Pen(pi, p0)``.

- Identity link: with the L2 penalty it first tries the closed form
  (:func:`~cosolve.methods.conjoint.policy.closed_form`) and falls back to gradient ascent
  (:mod:`~cosolve.methods.conjoint.gradient`) when a check fails (``C`` not negative definite, or the
  stationary point outside the simplex); the KL penalty always uses gradient ascent.
- Logit link: ``Q(pi) = E_{x ~ pi, x' ~ p0} sigmoid(f(x) - f(x'))``, the chance that a profile drawn
  from ``pi`` is chosen over one drawn from the randomisation, has no closed form. It is the vote
  share of the conjoint game with one voter group and the opponent held at ``p0``, so the game's
  estimators (:mod:`~cosolve.methods.conjoint.minimax_payoff`: enumeration for small designs, else
  Monte Carlo with common random numbers and a Rao-Blackwellised surrogate) and its best response
  (:func:`~cosolve.methods.conjoint.minimax_response.best_response`: gradient ascent on softmax
  logits from several starts, Newton polish, vertex ascent) solve it (:func:`average_case_by_response`).
  ``Q(p0) = 1/2`` exactly by symmetry.

Standard errors come from the delta method through whichever solver produced the policy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cosolve.errors import UsageError
from cosolve.methods.conjoint.delta import closed_form_jacobians, implicit_jacobians, uncertainty, value_bias
from cosolve.methods.conjoint.gradient import PENALTIES, logits_of, optimize_policy
from cosolve.methods.conjoint.policy import closed_form, kl_penalty, l2_penalty, policy_table, policy_value, value_weights
from cosolve.problems.conjoint.model import OutcomeModel

#: Gradient solutions get their value's bias (nested Hessians, seconds per hundred parameters) up to
#: this many model parameters; the closed form's costs milliseconds at any size.
BIAS_MAX_PARAMS = 300


@dataclass
class PolicyResult:
    """``pi`` and ``pi_se`` (lists of (L_d,)), ``value`` Q(pi*) (the plug-in estimate) and
    ``value_se``, ``p0_value`` Q(p0) (the randomisation's value), ``solver`` ("closed-form" or
    "gradient"), ``note`` (why the closed form was not used), ``penalty`` and ``lam``, ``seconds`` of
    optimisation and delta method, and ``value_bias``, the plug-in value's estimated second-order
    bias (:func:`~cosolve.methods.conjoint.delta.value_bias`; NaN where not computed: the logit link,
    and gradient solutions of models with more than ``BIAS_MAX_PARAMS`` parameters)."""

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
    value_bias: float = float("nan")

    def value_interval(self, level: float = 0.95) -> tuple[float, float]:
        """The delta-method interval for ``Q*``, centred at ``value - value_bias`` when the bias is
        known (the plug-in value overstates ``Q*``), else at ``value``."""
        from scipy.stats import norm

        centre = self.value - (self.value_bias if np.isfinite(self.value_bias) else 0.0)
        half = float(norm.ppf(0.5 + level / 2)) * self.value_se
        return centre - half, centre + half

    def policy_table(self, model: OutcomeModel) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{factor: {level: {"p": ..., "se": ..., "p0": ...}}}`` (JSON-able)."""
        return policy_table(model.design, self.pi, self.pi_se)


def average_case(
    model: OutcomeModel,
    lam: float,
    *,
    penalty: str = "l2",
    solver: str = "auto",
    threads: int = 1,
    n_samples: int = 2000,
    seed: int = 0,
) -> PolicyResult:
    """The average-case optimum (module docstring); ``solver``: auto, closed-form or gradient (the
    logit link always uses gradient ascent); ``threads``: torch's intra-op threads while it runs (tiny
    tensors: one is fastest); ``n_samples`` and ``seed``: the logit link's Monte Carlo estimator."""
    from cosolve.methods.conjoint.gradient import torch_threads

    if penalty not in PENALTIES:
        raise UsageError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    if solver not in ("auto", "closed-form", "gradient"):
        raise UsageError(f"unknown solver {solver!r}; valid: auto, closed-form, gradient")
    if lam < 0:
        raise UsageError(f"lambda must be non-negative, got {lam}")
    with torch_threads(threads):
        if model.link == "identity":
            return _average_case(model, lam, penalty, solver)
        if solver == "closed-form":
            raise UsageError("the closed form is for the identity link; the logit link uses gradient ascent")
        return average_case_by_response(model, lam, penalty=penalty, n_samples=n_samples, seed=seed)


def average_case_by_response(
    model: OutcomeModel,
    lam: float,
    *,
    penalty: str = "l2",
    estimator: str = "auto",
    n_samples: int = 2000,
    seed: int = 0,
    n_starts: int = 2,
) -> PolicyResult:
    """The average case as a best response to ``p0`` in the one-group game (module docstring), for
    either link; ``estimator``: auto, mc or enumerate (as in ``solve_game``); ``n_starts``: random
    starts besides ``p0``. ``extra`` holds the ``estimator``, its ``mc_se`` (0 when exact) and
    ``kkt_gap``, the largest first-order gain of moving one factor's mass to its best level (0 at
    a stationary point), and the delta method's Jacobians ``jac_value`` (P + 1,) and ``jac_pi``
    (sum L_d, P + 1) in the model's parameters."""
    from cosolve.methods.conjoint.minimax import make_estimator
    from cosolve.methods.conjoint.minimax_payoff import build_spec
    from cosolve.methods.conjoint.minimax_response import as_policy, best_response, response_delta_method
    from cosolve.methods.conjoint.minimax_solver import Game

    started = time.perf_counter()
    spec = build_spec({"voters": model}, {"voters": 1.0})
    kind, est = make_estimator(spec, estimator, n_samples, seed)
    game = Game(spec, est, (lam, lam), penalty)
    p0 = spec.reference(1)
    _, pi = best_response(game, 0, p0, [], n_starts=n_starts, seed=seed)
    value = float(game.vote_share(as_policy(pi), as_policy(p0)))
    value_se, pi_se, jac_value, jac_pi = response_delta_method(game, 0, pi, p0)
    with game.centred(as_policy(pi), as_policy(p0), hessian=False):
        gains = game.gains(pi, p0)[0]
    kkt_gap = max(float(g.max() - p @ g) for g, p in zip(gains, pi, strict=True))
    p0_value = 0.5
    if model.link == "identity":  # V = 1/2 + f(pi) - f(p0) there, and Q = offset + f(pi)
        p0_value = policy_value(model, list(model.design.p0))
        value += p0_value - 0.5
        jac_value = jac_value + value_weights(model, model.design.expected_features(list(model.design.p0), model.interactions))
        value_se = float(np.sqrt(max(jac_value @ model.cov @ jac_value, 0.0)))
    pen = l2_penalty(model.design, pi) if penalty == "l2" else kl_penalty(model.design, pi)
    return PolicyResult(
        pi, pi_se, value, value_se, p0_value, "gradient", lam, penalty, "", time.perf_counter() - started,
        {"estimator": kind, "mc_se": est.mc_se(as_policy(pi), as_policy(p0)), "kkt_gap": kkt_gap, "penalty_value": pen,
         "jac_value": jac_value, "jac_pi": jac_pi},
    )  # fmt: skip


def _average_case(model: OutcomeModel, lam: float, penalty: str, solver: str) -> PolicyResult:
    started = time.perf_counter()
    note = ""
    if penalty == "l2" and solver in ("auto", "closed-form"):
        cf = closed_form(model, lam)
        if cf.ok:
            jac_pi, jac_q = closed_form_jacobians(model, lam, cf)
            u = uncertainty(model, jac_pi, jac_q)
            bias = value_bias(model, lam, penalty, logits_of(cf.pi), closed_form=True)
            return PolicyResult(
                cf.pi, u.pi_se, policy_value(model, cf.pi), u.value_se, policy_value(model, list(model.design.p0)),
                "closed-form", lam, penalty, "", time.perf_counter() - started,
                {"max_eigenvalue": cf.max_eigenvalue, "penalty_value": l2_penalty(model.design, cf.pi)}, bias,
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
    bias = value_bias(model, lam, penalty, grad.w) if model.params.size <= BIAS_MAX_PARAMS else float("nan")
    return PolicyResult(
        grad.pi, u.pi_se, grad.value, u.value_se, policy_value(model, list(model.design.p0)), "gradient", lam, penalty, note,
        time.perf_counter() - started,
        {"iterations": grad.iterations, "grad_norm": grad.grad_norm, "converged": grad.converged, "penalty_value": pen},
        bias,
    )  # fmt: skip
