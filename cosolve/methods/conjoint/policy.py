"""Average-case stochastic policies for a linear (identity-link) outcome model: value, penalty,
and the closed form of the L2-penalised optimum.

A policy ``pi`` is a list of D probability vectors ``pi[d]`` (L_d,). With the baseline level of every
factor eliminated, ``z`` (n_main,) stacks ``pi[d][1:]`` in feature order (the main-effect block of
:meth:`Design.expected_features`), and ``pi[d][0] = 1 - sum(z_d)``.

Objective (Jerzak, Chandra & Hazra 2026): ``J(pi) = Q(pi) - lam * Pen(pi, p0)`` with
``Q(pi) = offset + E_pi[phi] . theta`` (:mod:`cosolve.problems.conjoint.model`) and
``Pen = sum_d ||pi[d] - p0[d]||^2`` (L2). In ``z``:

    Q(z) = offset + beta . z + sum_{d<e} z_d^T G_de z_e
    Pen(z) = sum_d ||z_d - p_d||^2 + (sum(z_d - p_d))^2

so ``J`` is quadratic with Hessian ``C``: ``-4 lam`` on the diagonal, ``-2 lam`` between two levels of
one factor, ``G_de`` between factors; its stationary point solves ``C z = b`` with
``b_d = -beta_d - 2 lam (p_d + sum(p_d))``. When ``C`` is negative definite the stationary point is
the maximum over the affine hull of the simplices; when it also lies inside the simplices it is the
optimum (:func:`closed_form`). Otherwise the caller falls back to gradient ascent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import OutcomeModel, interaction_blocks

#: Tolerance of the "inside the simplex" check of the closed form.
INSIDE_TOL = 1e-12


def to_z(design: Design, pi: list[np.ndarray]) -> np.ndarray:
    """``pi`` (list of (L_d,)) -> ``z`` (n_main,): the non-baseline probabilities."""
    return np.concatenate([np.asarray(p, dtype=np.float64)[1:] for p in pi])


def from_z(design: Design, z: np.ndarray) -> list[np.ndarray]:
    """``z`` (n_main,) -> ``pi`` (list of (L_d,)), the baseline getting ``1 - sum``."""
    o = design.main_offsets
    return [np.concatenate([[1.0 - z[o[d] : o[d + 1]].sum()], z[o[d] : o[d + 1]]]) for d in range(design.n_factors)]


def policy_table(design: Design, pi: list[np.ndarray], se: list[np.ndarray]) -> dict[str, dict[str, dict[str, float | None]]]:
    """``{factor: {level: {"p": ..., "se": ..., "p0": ...}}}`` for JSON (a non-finite ``se``, e.g.
    undefined at a degenerate equilibrium, becomes None)."""

    def num(v: float) -> float | None:
        return float(v) if np.isfinite(v) else None

    return {
        f: {lv: {"p": float(p[i]), "se": num(s[i]), "p0": float(q[i])} for i, lv in enumerate(levels)}
        for f, levels, p, s, q in zip(design.factors, design.levels, pi, se, design.p0, strict=True)
    }


def policy_value(model: OutcomeModel, pi: list[np.ndarray]) -> float:
    """``Q(pi) = offset + E_pi[phi] . theta`` (identity link; :mod:`cosolve.problems.conjoint.model`)."""
    if model.link != "identity":
        raise ValueError("policy_value is for the identity link; see the average module for logit")
    return float(model.value_offset() + model.design.expected_features(pi, model.interactions) @ model.theta)


def value_weights(model: OutcomeModel, expected: np.ndarray) -> np.ndarray:
    """``dQ/dparams`` (P + 1,) at fixed ``pi``, from its expected features ``E_pi[phi]`` (P,)."""
    return model.offset_weights() + np.concatenate([[0.0], expected])


def l2_penalty(design: Design, pi: list[np.ndarray]) -> float:
    """``sum_d ||pi[d] - p0[d]||^2``."""
    return float(sum(((np.asarray(p) - q) ** 2).sum() for p, q in zip(pi, design.p0, strict=True)))


def kl_penalty(design: Design, pi: list[np.ndarray]) -> float:
    """``sum_d KL(pi[d] || p0[d])`` (natural log)."""
    total = 0.0
    for p, q in zip(pi, design.p0, strict=True):
        p = np.asarray(p)
        held = p > 0
        total += float((p[held] * np.log(p[held] / q[held])).sum())
    return total


def value_gradient_z(model: OutcomeModel, z: np.ndarray) -> np.ndarray:
    """``dQ/dz`` (n_main,): ``beta + sum_e G_de z_e`` per factor block."""
    design, o = model.design, model.design.main_offsets
    grad = model.theta[: design.n_main].copy()
    for (d, e), g in interaction_blocks(model).items():
        grad[o[d] : o[d + 1]] += g @ z[o[e] : o[e + 1]]
        grad[o[e] : o[e + 1]] += g.T @ z[o[d] : o[d + 1]]
    return grad


def hessian(model: OutcomeModel, lam: float) -> np.ndarray:
    """``C`` (n_main, n_main), the Hessian of ``J`` in ``z`` (module docstring)."""
    design, o = model.design, model.design.main_offsets
    C = np.zeros((design.n_main, design.n_main))
    for d in range(design.n_factors):
        block = slice(o[d], o[d + 1])
        size = o[d + 1] - o[d]
        C[block, block] = -2.0 * lam * (np.eye(size) + np.ones((size, size)))
    for (d, e), g in interaction_blocks(model).items():
        C[o[d] : o[d + 1], o[e] : o[e + 1]] = g
        C[o[e] : o[e + 1], o[d] : o[d + 1]] = g.T
    return C


def rhs(model: OutcomeModel, lam: float) -> np.ndarray:
    """``b`` (n_main,) of ``C z = b``."""
    design, o = model.design, model.design.main_offsets
    p = to_z(design, list(design.p0))
    b = -model.theta[: design.n_main].copy()
    for d in range(design.n_factors):
        block = slice(o[d], o[d + 1])
        b[block] -= 2.0 * lam * (p[block] + p[block].sum())
    return b


@dataclass
class ClosedForm:
    """The closed-form solve: ``pi`` (list of (L_d,)) and ``z``; ``ok`` when ``C`` is negative
    definite and ``pi`` inside the simplices (else ``reason`` says which check failed and ``pi`` is
    the unchecked stationary point, or None if ``C`` is singular); ``max_eigenvalue`` of ``C``."""

    pi: list[np.ndarray] | None
    z: np.ndarray | None
    ok: bool
    reason: str
    max_eigenvalue: float


def closed_form(model: OutcomeModel, lam: float) -> ClosedForm:
    """The L2-penalised optimum of an identity-link model by ``C z = b`` (module docstring)."""
    if model.link != "identity":
        return ClosedForm(None, None, False, "the closed form needs the identity link", float("nan"))
    if lam <= 0:
        return ClosedForm(None, None, False, "the closed form needs lambda > 0", float("nan"))
    C = hessian(model, lam)
    top = float(np.linalg.eigvalsh(C).max())
    if top >= 0:
        return ClosedForm(None, None, False, f"C is not negative definite (largest eigenvalue {top:.3g})", top)
    z = np.linalg.solve(C, rhs(model, lam))
    pi = from_z(model.design, z)
    low = min(float(p.min()) for p in pi)
    if low < -INSIDE_TOL:
        return ClosedForm(pi, z, False, f"the stationary point leaves the simplex (a probability of {low:.3g})", top)
    return ClosedForm([np.clip(p, 0.0, None) for p in pi], z, True, "", top)
