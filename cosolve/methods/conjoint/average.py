"""The average-case policy with its uncertainty: an exact QP for the L2 penalty, else gradient ascent.

``average_case(model, lam)`` maximises ``Q(pi) - lam * Pen(pi, p0)``.

- Identity link: with the L2 penalty ``J`` is a quadratic in the policy, maximised over the product
  of simplices by the active-set method of :func:`~cosolve.methods.conjoint.policy.solve_policy_qp`
  (the closed form on the optimum's support; exact and global when ``J`` is concave, else the best of
  several starts with a certificate of local optimality, ``extra["certificate"]``), with the delta
  method's Jacobians and bias in closed form on that support (numpy only: no torch on this path).
  The KL penalty (and ``solver="gradient"``) uses gradient ascent on softmax logits
  (:mod:`~cosolve.methods.conjoint.gradient`, torch).
- Logit link: ``Q(pi) = E_{x ~ pi, x' ~ p0} sigmoid(f(x) - f(x'))``, the chance that a profile drawn
  from ``pi`` is chosen over one drawn from the randomisation, has no closed form. It is the vote
  share of the conjoint game with one voter group and the opponent held at ``p0``, so the game's
  estimators (:mod:`~cosolve.methods.conjoint.game.payoff`: enumeration for small designs, else
  Monte Carlo with common random numbers and a Rao-Blackwellised surrogate) and its best response
  (:func:`~cosolve.methods.conjoint.game.response.best_response`: gradient ascent on softmax
  logits from several starts, Newton polish, vertex ascent) solve it (:func:`average_case_by_response`).
  ``Q(p0) = 1/2`` exactly by symmetry.

Standard errors come from the delta method through whichever solver produced the policy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cosolve.errors import UsageError
from cosolve.methods.conjoint.delta import curvature_se, qp_jacobians, qp_value_bias, uncertainty
from cosolve.methods.conjoint.gradient import PENALTIES
from cosolve.methods.conjoint.policy import kl_penalty, l2_penalty, policy_table, policy_value, solve_policy_qp, value_weights
from cosolve.problems.conjoint.model import OutcomeModel

#: The average case's optimisers (``closed-form`` is another name of ``qp``, its former name).
SOLVERS = ("auto", "qp", "closed-form", "gradient")

#: The bias correction is applied only while the estimated bias is at most this many standard errors
#: of the value (a heuristic): near a vertex optimum (small lambda) the second-order term grows past
#: the spread it corrects (on the bundled conjoint 0.24 against a standard error of 0.05 at lambda
#: 0.1, where the corrected interval falls below the randomisation's value; 1.6 standard errors at
#: the default lambda 0.5)
BIAS_TRUST = 2.0

#: Gradient solutions get their value's bias (nested Hessians, seconds per hundred parameters) up to
#: this many model parameters; the QP's is in closed form and costs milliseconds at any size.
BIAS_MAX_PARAMS = 300


@dataclass
class PolicyResult:
    """``pi`` and ``pi_se`` (lists of (L_d,)), ``value`` Q(pi*) (the plug-in estimate) and
    ``value_se``, ``p0_value`` Q(p0) (the randomisation's value), ``solver`` ("qp" or "gradient"),
    ``note`` (what the reader should know: a non-concave objective, an optimum on the boundary),
    ``penalty`` and ``lam``, ``seconds`` of optimisation and delta method (``timings``: seconds per
    step, ``optimize`` and ``delta``), and ``value_bias``, the plug-in value's estimated second-order
    bias (:func:`~cosolve.methods.conjoint.delta.value_bias`; NaN where not computed: the logit link,
    gradient solutions of models with more than ``BIAS_MAX_PARAMS`` parameters, and QP optima that
    are not locally unique)."""

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
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def bias_corrects(self) -> bool:
        """Whether :meth:`value_interval` subtracts ``value_bias``: it is known, at most
        ``BIAS_TRUST`` standard errors (a larger second-order term says the expansion behind it does
        not hold there), and the corrected value stays at or above ``p0_value`` (the randomisation is
        feasible at no penalty, so the optimum is never below its value)."""
        b = self.value_bias
        return bool(np.isfinite(b) and abs(b) <= BIAS_TRUST * self.value_se and self.value - b >= self.p0_value)

    def value_interval(self, level: float = 0.95) -> tuple[float, float]:
        """The delta-method interval for ``Q*``, centred at ``value - value_bias`` when
        :attr:`bias_corrects` (the plug-in value overstates ``Q*``), else at ``value``."""
        from statistics import NormalDist

        centre = self.value - (self.value_bias if self.bias_corrects else 0.0)
        half = NormalDist().inv_cdf(0.5 + level / 2) * self.value_se
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
    """The average-case optimum (module docstring); ``solver``: auto (the QP for the identity link
    with the L2 penalty, else gradient ascent), qp (``closed-form``: the same) or gradient (the logit
    link always uses gradient ascent); ``threads``: torch's intra-op threads while it runs (tiny
    tensors: one is fastest); ``n_samples`` and ``seed``: the logit link's Monte Carlo estimator and
    the QP's random starts when ``J`` is not concave."""
    if penalty not in PENALTIES:
        raise UsageError(f"unknown penalty {penalty!r}; valid: {', '.join(PENALTIES)}")
    if solver not in SOLVERS:
        raise UsageError(f"unknown solver {solver!r}; valid: {', '.join(SOLVERS)}")
    if not (np.isfinite(lam) and lam >= 0):
        raise UsageError(f"lambda must be a finite non-negative number, got {lam}")
    if solver in ("qp", "closed-form") and (model.link != "identity" or penalty != "l2"):
        raise UsageError("the QP (closed form on the support) is for the identity link with the L2 penalty")
    if model.link == "identity" and penalty == "l2" and solver != "gradient":
        return _with_reliability_notes(model, _average_case_qp(model, lam, seed))
    from cosolve.methods.conjoint.tensors import torch_threads

    with torch_threads(threads):
        if model.link == "identity":
            return _with_reliability_notes(model, _average_case_gradient(model, lam, penalty))
        return average_case_by_response(model, lam, penalty=penalty, n_samples=n_samples, seed=seed)


def _with_reliability_notes(model: OutcomeModel, result: PolicyResult) -> PolicyResult:
    """``result`` with notes where its numbers need care: a forced-choice value outside [0, 1] (the
    linear probability model extrapolating), a bias too large to correct, and an optimum with one
    level per factor (the delta method then holds the chosen levels fixed)."""
    notes = [result.note] if result.note else []
    if model.forced_choice and not 0.0 <= result.value <= 1.0:
        notes.append(
            f"the value {result.value:.4f} is a probability outside [0, 1]: the linear probability model (identity link) "
            "extrapolates at this policy; a larger lambda keeps the policy nearer p0, and the logit link stays in [0, 1]"
        )
    if np.isfinite(result.value_bias) and not result.bias_corrects:
        notes.append(
            f"the estimated bias {result.value_bias:.3g} is more than {BIAS_TRUST:g} standard errors ({result.value_se:.3g}) "
            "or would put the optimum below p0's value: the second-order correction does not hold this close to a vertex, "
            "so the interval is not bias-corrected and the plug-in value likely overstates the optimum (the winner's curse)"
        )
    if all(int((p > 0).sum()) == 1 for p in result.pi):
        notes.append(
            "the optimum puts all mass on one level of every factor: the delta method holds those levels fixed and does not "
            "see that others could win, so the standard errors and the interval understate the uncertainty"
        )
    result.note = "; ".join(notes)
    return result


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
    from cosolve.methods.conjoint.game.equilibrium import make_estimator
    from cosolve.methods.conjoint.game.logit_game import Game
    from cosolve.methods.conjoint.game.payoff import build_spec
    from cosolve.methods.conjoint.game.response import best_response
    from cosolve.methods.conjoint.game.uncertainty import response_delta_method
    from cosolve.methods.conjoint.tensors import as_policy

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


def _average_case_qp(model: OutcomeModel, lam: float, seed: int) -> PolicyResult:
    started = time.perf_counter()
    sol = solve_policy_qp(model, lam, seed=seed)
    optimized = time.perf_counter()
    jac_pi, jac_q = qp_jacobians(model, lam, sol)
    u = uncertainty(model, jac_pi, jac_q)
    bias = qp_value_bias(model, lam, sol)
    top, top_se = curvature_se(model, lam)
    done = time.perf_counter()
    off = int((~sol.support).sum())
    notes = []
    if abs(top) <= 2 * top_se:
        notes.append(
            f"C's largest eigenvalue {top:.3g} (se {top_se:.2g}) is within 2 se of 0: the data do not settle whether the "
            "objective is concave, so the optimum is fragile and its standard errors and bias correction unreliable"
        )
    if not sol.concave:
        verdict = {"local": "a strict local maximum (KKT and second-order conditions)", "kkt": "a KKT point only"}
        notes.append(
            f"the objective is not concave (C's largest eigenvalue {sol.max_eigenvalue:.3g}): best of {sol.starts} "
            f"active-set starts, certified {verdict[sol.certificate]}"
        )
    if off:
        notes.append(f"{off} of {sol.x.size} levels at probability 0 (the optimum is on the simplices' boundary)")
    if sol.degenerate:
        notes.append("a level at 0 has multiplier ~0: the standard errors hold the support fixed")
    return PolicyResult(
        sol.pi, u.pi_se, sol.value, u.value_se, policy_value(model, list(model.design.p0)), "qp", lam, "l2", "; ".join(notes),
        done - started,
        {"max_eigenvalue": sol.max_eigenvalue, "max_eigenvalue_se": top_se, "concave": sol.concave,
         "certificate": sol.certificate, "curvature": sol.curvature, "kkt_residual": sol.kkt_residual,
         "support": int(sol.support.sum()),
         "iterations": sol.iterations, "starts": sol.starts, "penalty_value": l2_penalty(model.design, sol.pi)},
        bias, {"optimize": optimized - started, "delta": done - optimized},
    )  # fmt: skip


def _average_case_gradient(model: OutcomeModel, lam: float, penalty: str) -> PolicyResult:
    from cosolve.methods.conjoint.delta import implicit_jacobians, value_bias
    from cosolve.methods.conjoint.gradient import optimize_policy

    started = time.perf_counter()
    grad = optimize_policy(model, lam, penalty=penalty)
    optimized = time.perf_counter()
    jac_pi, jac_q = implicit_jacobians(model, lam, penalty, grad.w)
    u = uncertainty(model, jac_pi, jac_q)
    pen = l2_penalty(model.design, grad.pi) if penalty == "l2" else kl_penalty(model.design, grad.pi)
    bias = value_bias(model, lam, penalty, grad.w) if model.params.size <= BIAS_MAX_PARAMS else float("nan")
    done = time.perf_counter()
    return PolicyResult(
        grad.pi, u.pi_se, grad.value, u.value_se, policy_value(model, list(model.design.p0)), "gradient", lam, penalty, "",
        done - started,
        {"iterations": grad.iterations, "grad_norm": grad.grad_norm, "converged": grad.converged, "penalty_value": pen},
        bias, {"optimize": optimized - started, "delta": done - optimized},
    )  # fmt: skip
