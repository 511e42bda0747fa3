"""Average-case stochastic policies for a linear (identity-link) outcome model: value, penalty,
and the exact L2-penalised optimum on the product of simplices.

A policy ``pi`` is a list of D probability vectors ``pi[d]`` (L_d,); ``x`` (n_levels = sum L_d,)
stacks them, factor by factor, baseline first. ``z`` (n_main,) stacks the non-baseline ``pi[d][1:]``
in feature order (the main-effect block of :meth:`Design.expected_features`).

Objective (Jerzak, Chandra & Hazra 2026): ``J(pi) = Q(pi) - lam * Pen(pi, p0)`` with
``Q(pi) = offset + E_pi[phi] . theta`` (:mod:`cosolve.problems.conjoint.model`) and
``Pen = sum_d ||pi[d] - p0[d]||^2`` (L2). In ``x``, with ``b`` (n_levels,) the main effects (0 at
the baselines) and ``G`` (n_levels, n_levels) the interaction coefficients placed symmetrically
between the two levels they join (0 within a factor and at the baselines),

    Q(x) = offset + b . x + x^T G x / 2,        J(x) = const + g . x + x^T H x / 2,
    g = b + 2 lam p0,  H = G - 2 lam I,  const = offset - lam ||p0||^2,

a quadratic program over ``x >= 0``, ``sum_l x[d][l] = 1`` per factor (:class:`PolicyQP`). On a face
(a support ``F``: the levels outside it held at 0) a basis ``Z`` of the directions that keep every
factor's sum (``e_l - e_r``, ``r`` the factor's first level in ``F``) turns it into the unconstrained
``u -> J(x + Z u)`` with Hessian ``C_F = Z^T H Z``; over every level (``F`` all, ``r`` the baselines)
this is the ``C`` of the closed form ``C z = b`` in ``z``: ``-4 lam`` on the diagonal, ``-2 lam``
between two levels of one factor, the interaction block between factors. ``J`` is concave on the
simplices exactly when ``C`` is negative semi-definite.

:func:`solve_policy_qp` is a primal active-set method: on the current face, Newton's step to the
face's maximiser (the closed form on the support) where ``C_F`` is negative definite, else the
projected gradient or a direction of positive curvature, each cut by the ratio test (a blocking level
leaves the support); at a stationary point of the face the multipliers ``mu_d - dJ/dx_l`` of the
levels outside it decide: the level that most wants back in returns, until all are non-negative
(the KKT conditions). With ``C`` negative semi-definite the KKT point is the global optimum (unique
when definite), found from ``p0`` in finitely many steps. Otherwise ``J`` is not concave: the method
runs from ``p0`` and random starts, keeps the best KKT point and certifies it a strict local
maximum when ``C`` restricted to its support and its weakly active levels is negative definite (the
second-order sufficient condition), else reports only the KKT conditions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import OutcomeModel

#: Relative tolerance of the active-set method's tests (gradients, curvature, multipliers).
QP_TOL = 1e-11


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


@dataclass
class PolicyQP:
    """``J(x) = const + g . x + x^T H x / 2`` over the product of simplices (module docstring): ``g``
    (n,), ``H`` (n, n), ``const``; ``factor`` (n,) the factor of each level, ``starts`` (D + 1,) each
    factor's first level; ``b`` (n,) and ``G`` (n, n) the value's parts, ``offset`` its constant."""

    g: np.ndarray
    H: np.ndarray
    const: float
    factor: np.ndarray
    starts: np.ndarray
    b: np.ndarray
    G: np.ndarray
    offset: float

    def objective(self, x: np.ndarray) -> float:
        return float(self.const + self.g @ x + 0.5 * x @ self.H @ x)

    def value(self, x: np.ndarray) -> float:
        """``Q(x)``."""
        return float(self.offset + self.b @ x + 0.5 * x @ self.G @ x)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        return self.g + self.H @ x

    def basis(self, free: np.ndarray) -> np.ndarray:
        """``Z`` (n, n_free - D): columns ``e_l - e_r`` for the levels ``l`` of ``free`` (bool (n,))
        other than each factor's first free level ``r``."""
        cols = []
        for d in range(self.starts.size - 1):
            levels = np.flatnonzero(free[self.starts[d] : self.starts[d + 1]]) + self.starts[d]
            for lv in levels[1:]:
                col = np.zeros(self.g.size)
                col[lv], col[levels[0]] = 1.0, -1.0
                cols.append(col)
        return np.array(cols).T.reshape(self.g.size, len(cols))

    def reduced_hessian(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Z, C_F = Z^T H Z)`` on the face of ``free``."""
        Z = self.basis(free)
        return Z, Z.T @ self.H @ Z

    def face_inverse(self, free: np.ndarray) -> np.ndarray:
        """``M = Z C_F^{-1} Z^T`` (n, n) on the face of ``free`` (the delta method's ``dx = -M d grad J``;
        NaN where ``C_F`` is singular: the optimum is not locally unique)."""
        Z, C = self.reduced_hessian(free)
        n = self.g.size
        try:
            return Z @ np.linalg.solve(C, Z.T) if C.size else np.zeros((n, n))
        except np.linalg.LinAlgError:
            return np.full((n, n), np.nan)

    def split(self, x: np.ndarray) -> list[np.ndarray]:
        return [x[self.starts[d] : self.starts[d + 1]].copy() for d in range(self.starts.size - 1)]


def level_index(design: Design, interactions: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(main, left, right)``: the level (index into ``x``) of each main-effect feature (n_main,), and
    the two levels each interaction feature joins (n_features - n_main,) each (empty without)."""
    starts = design.level_offsets
    main = np.concatenate([starts[d] + np.arange(1, design.sizes[d]) for d in range(design.n_factors)]).astype(np.int64)
    left, right = [], []
    if interactions:
        for d, e in design.pairs:
            ld, le = np.meshgrid(np.arange(1, design.sizes[d]), np.arange(1, design.sizes[e]), indexing="ij")
            left.append(starts[d] + ld.ravel())
            right.append(starts[e] + le.ravel())
    empty = np.zeros(0, dtype=np.int64)
    return main, np.concatenate([empty, *left]).astype(np.int64), np.concatenate([empty, *right]).astype(np.int64)


def policy_qp(model: OutcomeModel, lam: float) -> PolicyQP:
    """The L2-penalised average case of an identity-link ``model`` as a :class:`PolicyQP`."""
    if model.link != "identity":
        raise ValueError("the policy QP is for the identity link")
    design = model.design
    sizes = np.array(design.sizes)
    n = int(sizes.sum())
    starts = design.level_offsets
    main, left, right = level_index(design, model.interactions)
    theta = model.theta
    b = np.zeros(n)
    b[main] = theta[: design.n_main]
    G = np.zeros((n, n))
    G[left, right] = theta[design.n_main :]
    G[right, left] = theta[design.n_main :]
    p0 = np.concatenate([np.asarray(p, dtype=np.float64) for p in design.p0])
    offset = model.value_offset()
    return PolicyQP(
        g=b + 2.0 * lam * p0, H=G - 2.0 * lam * np.eye(n), const=offset - lam * float(p0 @ p0),
        factor=np.repeat(np.arange(design.n_factors), sizes), starts=starts, b=b, G=G, offset=offset,
    )  # fmt: skip


def allowed_levels(design: Design, fixed: dict[int, int]) -> np.ndarray:
    """The levels (n_levels,) bool a policy may hold: all but the other levels of the ``fixed`` factors
    (factor index -> level code, held at a point mass)."""
    starts = design.level_offsets
    allowed = np.ones(int(starts[-1]), dtype=bool)
    for d, level in fixed.items():
        allowed[starts[d] : starts[d + 1]] = False
        allowed[starts[d] + level] = True
    return allowed


@dataclass
class QPSolution:
    """The active-set optimum: ``pi`` (list of (L_d,)), ``x`` (n_levels,) stacked, ``support`` (n_levels,)
    bool (the levels of the final face), ``mu`` (D,) the factors' multipliers (``dJ/dx_l = mu_d`` on the
    support, ``<= mu_d`` off it); ``objective`` J and ``value`` Q; ``max_eigenvalue`` of ``C`` over all
    levels (``concave`` when at most the tolerance: then the solution is global); ``certificate``:
    ``global``, ``local`` (KKT and the second-order sufficient condition: a strict local maximum) or
    ``kkt`` (first-order only); ``curvature`` the largest eigenvalue of ``C`` on the support and its
    weakly active levels; ``kkt_residual`` the largest violation of the KKT conditions (gradient
    units); ``degenerate`` when a level off the support has multiplier ~0 (the policy is not
    differentiable in the parameters there); ``iterations`` and ``starts`` of the method."""

    pi: list[np.ndarray]
    x: np.ndarray
    support: np.ndarray
    mu: np.ndarray
    objective: float
    value: float
    max_eigenvalue: float
    concave: bool
    certificate: str
    curvature: float
    kkt_residual: float
    degenerate: bool
    iterations: int
    starts: int


def solve_policy_qp(
    model: OutcomeModel,
    lam: float,
    *,
    fixed: dict[int, int] | None = None,
    n_starts: int = 8,
    seed: int = 0,
    max_iter: int | None = None,
) -> QPSolution:
    """The L2-penalised average-case optimum of an identity-link model on the product of simplices
    (module docstring). ``fixed``: factor index -> level code of factors held at a point mass (a
    party's own party level in the game); ``n_starts``: random starts (Dirichlet(1) per factor) besides
    ``p0`` when ``J`` is not concave; ``max_iter``: active-set iterations per start (default
    ``50 n_levels + 100``)."""
    qp = policy_qp(model, lam)
    n = qp.g.size
    scale = max(float(np.abs(qp.g).max()), float(np.abs(qp.H).max()), 1e-300)
    tol = QP_TOL * scale
    allowed = allowed_levels(model.design, fixed or {})
    _, C = qp.reduced_hessian(allowed)
    top = float(np.linalg.eigvalsh(C).max()) if C.size else -np.inf
    concave = top <= tol

    def feasible(pi: list[np.ndarray]) -> np.ndarray:
        return _renormalise(qp, np.concatenate([np.asarray(p, dtype=np.float64) for p in pi]), allowed)

    starts = [feasible(list(model.design.p0))]
    if not concave:
        rng = np.random.default_rng(seed)
        starts += [feasible([rng.dirichlet(np.ones(s)) for s in model.design.sizes]) for _ in range(n_starts)]
    limit = 50 * n + 100 if max_iter is None else max_iter
    best, iterations = None, 0
    for x in starts:
        x, free, it = active_set(qp, x, allowed, tol, limit)
        iterations += it
        if best is None or qp.objective(x) > qp.objective(best[0]) + tol:
            best = (x, free)
    x, free = best
    mu, slack, kkt_residual = kkt_conditions(qp, qp.gradient(x), free, allowed)
    weak = ~free & allowed & (slack <= 1e3 * tol)
    _, C_face = qp.reduced_hessian(free | weak)
    curvature = float(np.linalg.eigvalsh(C_face).max()) if C_face.size else -np.inf
    certificate = "global" if concave else ("local" if curvature < -tol else "kkt")
    return QPSolution(
        qp.split(x), x, free, mu, qp.objective(x), qp.value(x), top, concave, certificate, curvature, kkt_residual,
        bool(weak.any()), iterations, len(starts),
    )  # fmt: skip


def active_set(qp: PolicyQP, x: np.ndarray, allowed: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The primal active-set method (module docstring) from the feasible ``x`` (0 where not
    ``allowed``; those levels never enter): ``(x, free, iterations)`` at a KKT point. On each face,
    in the eigenbasis of ``C_F``: the reduced gradient's part along curvature above ``-tol`` is
    followed to the boundary (``J`` rises all the way), else Newton's step in the negatively curved
    part (the face's maximiser when ``C_F`` is negative definite), else, at a stationary point, a
    direction of positive curvature to the boundary; each step is cut by the ratio test."""
    x = np.array(x, dtype=np.float64)
    free = x > 0
    for it in range(1, max_iter + 1):
        grad = qp.gradient(x)
        Z, C = qp.reduced_hessian(free)
        values, vectors = np.linalg.eigh(C) if C.size else (np.zeros(0), np.zeros((0, 0)))
        rv = vectors.T @ (Z.T @ grad)
        curved = values < -tol
        if np.abs(rv[~curved]).max(initial=0.0) > tol:
            p, step = Z @ (vectors[:, ~curved] @ rv[~curved]), np.inf
        elif np.abs(rv[curved]).max(initial=0.0) > tol:
            p, step = Z @ (vectors[:, curved] @ (-rv[curved] / values[curved])), 1.0
        elif values.size and values[-1] > tol:
            p, step = Z @ vectors[:, -1], np.inf
        else:  # a stationary point of the face: release the level that most wants back in, if any
            mu = _face_means(qp, grad, free)
            want = np.where(free | ~allowed, -np.inf, grad - mu[qp.factor])
            j = int(np.argmax(want))
            if want[j] <= tol:
                return _polish(qp, x, free), free, it
            free[j] = True
            continue
        falling = free & (p < -1e-15 * np.abs(p).max())
        ratios = np.where(falling, x / np.where(falling, -p, 1.0), np.inf)
        j = int(np.argmin(ratios))
        if ratios[j] <= step:
            x = np.clip(x + ratios[j] * p, 0.0, None)
            x[j], free[j] = 0.0, False
        else:
            x = np.clip(x + step * p, 0.0, None)
        x = _renormalise(qp, x, free)
    raise RuntimeError(f"the active-set method did not converge in {max_iter} iterations")


def _face_means(qp: PolicyQP, values: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Per factor, the mean of ``values`` over its free levels (D,)."""
    D = qp.starts.size - 1
    return np.bincount(qp.factor[free], weights=values[free], minlength=D) / np.bincount(qp.factor[free], minlength=D)


def kkt_conditions(qp: PolicyQP, grad: np.ndarray, free: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(mu, slack, residual)`` at a point with gradient ``grad`` and support ``free``: the factors'
    multipliers ``mu`` (D,), ``slack = mu_d - dJ/dx_l`` (n,; >= 0 off the support at a KKT point, 0 on
    it) and the largest violation of the KKT conditions over the ``allowed`` levels (gradient units)."""
    mu = _face_means(qp, grad, free)
    slack = mu[qp.factor] - grad
    residual = float(max(np.abs(slack[free]).max(initial=0.0), (-slack[~free & allowed]).max(initial=0.0)))
    return mu, slack, residual


def _renormalise(qp: PolicyQP, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``x`` with the levels off the face at 0 and each factor summing to 1 (removes round-off drift)."""
    x = np.where(free, x, 0.0)
    return x / np.bincount(qp.factor, weights=x)[qp.factor]


def _polish(qp: PolicyQP, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """One more Newton step on the face (to round-off), kept if it stays feasible."""
    Z, C = qp.reduced_hessian(free)
    if not C.size:
        return x
    try:
        y = x + Z @ np.linalg.solve(C, -(Z.T @ qp.gradient(x)))
    except np.linalg.LinAlgError:
        return x
    return _renormalise(qp, y, free) if y[free].min() >= 0 else x
