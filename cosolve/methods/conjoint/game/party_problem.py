"""Each party's own problem in the identity-link game with primaries and the L2 penalty, solved in numpy
by SQP (issue 29): :class:`PartyProblem`, :func:`maximise` and the delta method's :func:`jacobians`.

With identity links the control value of :mod:`~cosolve.methods.conjoint.game.payoff` is exact,
``V = 1/2 + N_A(pi_A) - N_B(pi_B)``, and ``N_P`` depends on party P's own policy only, so the game
still separates: each party maximises ``J_P(x) = N_P(x) - lam_P ||x - p0||^2`` whatever the other
plays, ``x`` (n_levels,) its stacked policy. Unlike the game without primaries (two QPs), ``N_P``
holds the second moment ``E_pi[c t]`` of the primary predictor ``c`` and the share-weighted general
predictor ``t``: a multilinear polynomial of degree up to 4 in ``x``.

Second moments (:class:`Moments`): with ``phi~ = (1, phi)`` (P + 1,) the features with a constant,
``M(x) = E_pi[phi~ phi~^T]`` has entries that are monomials in ``x``: each feature is the indicator of
one or two levels, so ``M_ij`` is the product of the distinct levels of both (0 when they name two
levels of one factor). Then ``E c = c~ . M e_0``, ``E[c t] = c~^T M t~`` (``c~ = (0, theta_c)``), and

    N_P(x) = <W, M(x)> + const,   W = e_0 t~^T / 2 + k (c~ t~^T - (t~ . m_q) c~ e_0^T - (c~ . m_q) e_0 t~^T),

``k`` the primary link's slope (1), ``m_q = M(q) e_0``, ``const = t~ . m_q / 2 + k c~^T M(q) t~``. Its
value, gradient and Hessian in ``x`` are sums over the monomials (scatter-adds), and so is the
Jacobian of the gradient in the parameters (``W`` is bilinear in ``c~`` and ``t~``).

Each party's problem (:func:`maximise`) runs sequential quadratic programming: at ``x`` the
quadratic model (gradient, Hessian; the Hessian shifted down where it is not negative definite on
the allowed levels) is maximised over the product of simplices by the active-set method of
:mod:`~cosolve.methods.conjoint.policy`, then a backtracking line search on ``J`` along the step;
once the support settles the model is Newton's and the iterates converge quadratically. ``J`` is not
concave, so this runs from ``p0`` and random starts, then from the best pure profile that coordinate
ascent reaches from the results' modal profiles and from random profiles (boundary optima of small
penalties), and keeps the best KKT point, as the torch best responses did (L-BFGS from starts, vertex
ascent); the exploitability is 0 against those starts. The delta method holds the support:
``Z^T grad J(x; params) = 0`` gives ``dx/dparams = -Z C_F^{-1} Z^T d grad J / d params``.

The same parties' problems (without primaries ``N_P = E_pi t``) plus a linear term are the Monte Carlo
surrogate's best responses of the logit games with the L2 penalty
(:func:`~cosolve.methods.conjoint.game.response.best_response`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.methods.conjoint.game.payoff import KAPPA, GameSpec
from cosolve.methods.conjoint.policy import QP_TOL, PolicyQP, active_set, allowed_levels, kkt_conditions, level_index
from cosolve.problems.conjoint.design import Design

#: SQP iterations per start (each is one active-set QP and a line search).
MAX_SQP = 200


class Moments:
    """The monomials of ``M(x) = E_pi[phi~ phi~^T]`` (module docstring) for one design: ``slots``
    (K, 4) the levels (indices into ``x``; ``n`` pads) of each consistent pair ``(i, j)``, ``i <= j``,
    of features ``rows``/``cols`` (K,) each; ``n`` levels, ``size = P + 1``."""

    def __init__(self, design: Design, interactions: bool) -> None:
        self.design, self.interactions, self.n = design, interactions, int(sum(design.sizes))
        n = self.n
        main, left, right = level_index(design, interactions)
        scope = np.full((1 + main.size + left.size, 2), n, dtype=np.int64)  # feature -> its levels, padded
        scope[1 : 1 + main.size, 0] = main
        scope[1 + main.size :, 0], scope[1 + main.size :, 1] = left, right
        self.size = scope.shape[0]
        rows, cols = np.triu_indices(self.size)
        slots = np.concatenate([scope[rows], scope[cols]], axis=1)
        factor = np.append(np.repeat(np.arange(design.n_factors), design.sizes), -1)[slots]
        keep = np.ones(rows.size, dtype=bool)
        for a in range(4):
            for b in range(a + 1, 4):
                same = (factor[:, a] == factor[:, b]) & (slots[:, a] < n)
                keep &= ~same | (slots[:, a] == slots[:, b])  # two levels of one factor: never together
                slots[same & (slots[:, a] == slots[:, b]), b] = n  # the same level twice: once
        self.rows, self.cols, self.slots = rows[keep], cols[keep], slots[keep]
        # distinct monomials (many pairs share one: a main effect times an interaction that holds it)
        ordered = np.sort(self.slots, axis=1)
        key = ((ordered[:, 0] * (n + 1) + ordered[:, 1]) * (n + 1) + ordered[:, 2]) * (n + 1) + ordered[:, 3]
        _, first, self.inverse = np.unique(key, return_index=True, return_inverse=True)
        self.monomials = ordered[first]

    def matrix(self, x: np.ndarray) -> np.ndarray:
        """``M(x)`` (P + 1, P + 1)."""
        M = np.zeros((self.size, self.size))
        M[self.rows, self.cols] = np.append(x, 1.0)[self.slots].prod(1)
        M[self.cols, self.rows] = M[self.rows, self.cols]
        return M

    def weights(self, W: np.ndarray) -> np.ndarray:
        """Per distinct monomial, its weight in ``<W, M>`` (K,): ``W_ij + W_ji`` off the diagonal."""
        w = W[self.rows, self.cols] + W[self.cols, self.rows]
        w = np.where(self.rows == self.cols, 0.5 * w, w)
        return np.bincount(self.inverse, weights=w, minlength=self.monomials.shape[0])

    def value(self, w: np.ndarray, x: np.ndarray) -> float:
        """``<W, M(x)>`` from the monomial weights ``w`` of :meth:`weights`."""
        t = np.append(x, 1.0)[self.monomials]
        return float(w @ (t[:, 0] * t[:, 1] * t[:, 2] * t[:, 3]))

    def gradient(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``d <W, M(x)> / dx`` (n,) from the monomial weights ``w``."""
        others = _others(np.append(x, 1.0)[self.monomials])
        m = self.n + 1
        g = sum(np.bincount(self.monomials[:, a], weights=w * others[a], minlength=m) for a in range(4))
        return g[: self.n]

    def hessian(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``d2 <W, M(x)> / dx2`` (n, n) (zero within a factor: no monomial holds two of its levels)."""
        t, m = np.append(x, 1.0)[self.monomials], self.n + 1
        t01, t23 = t[:, 0] * t[:, 1], t[:, 2] * t[:, 3]
        rest = {(0, 1): t23, (0, 2): t[:, 1] * t[:, 3], (0, 3): t[:, 1] * t[:, 2], (1, 2): t[:, 0] * t[:, 3],
                (1, 3): t[:, 0] * t[:, 2], (2, 3): t01}  # fmt: skip
        index = np.concatenate([self.monomials[:, a] * m + self.monomials[:, b] for a, b in rest])
        H = np.bincount(index, weights=np.concatenate([w * r for r in rest.values()]), minlength=m * m)
        H = H.reshape(m, m)[: self.n, : self.n]
        return H + H.T

    def contracted_jacobian(self, u: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``sum_i u_i dM_ik/dx`` (n, P + 1), ``u`` (P + 1,)."""
        others = _others(np.append(x, 1.0)[self.slots])
        m = self.n + 1
        once = np.where(self.rows == self.cols, 0.5, 1.0)  # a diagonal pair is met from both sides
        out = np.zeros(m * self.size)
        for i, k in ((self.rows, self.cols), (self.cols, self.rows)):
            for a in range(4):
                out += np.bincount(self.slots[:, a] * self.size + k, weights=u[i] * others[a] * once, minlength=m * self.size)
        return out.reshape(m, self.size)[: self.n]


def _others(t: np.ndarray) -> list[np.ndarray]:
    """Per slot ``a`` of ``t`` (K, 4), the product of the other three (K,)."""
    t01, t23 = t[:, 0] * t[:, 1], t[:, 2] * t[:, 3]
    return [t[:, 1] * t23, t[:, 0] * t23, t01 * t[:, 3], t01 * t[:, 2]]


@dataclass
class PartyProblem:
    """Party P's ``J(x) = <W, M(x)> + const + linear . x - lam ||x - p0||^2`` (module docstring): ``c``
    (P + 1,) the padded primary predictor (None without primaries: then ``N_P = E_x t``), ``t`` (P + 1,)
    the pooled general one, ``kappa`` the primary slope, ``q`` (n,) the party's reference candidate,
    ``allowed`` (n,) its levels (a fixed factor keeps one), ``linear`` (n,) an extra linear term or
    None (a Monte Carlo residual's gradient, :func:`~cosolve.methods.conjoint.game.response.best_response`)."""

    moments: Moments
    c: np.ndarray | None
    t: np.ndarray
    kappa: float
    q: np.ndarray
    lam: float
    p0: np.ndarray
    allowed: np.ndarray
    linear: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.Mq = Mq = self.moments.matrix(self.q)
        self.mq = Mq[:, 0]
        t, e0 = self.t, np.eye(self.t.size)[0]
        if self.c is None:
            W, self.const = np.outer(e0, t), 0.0
        else:
            c, k = self.c, self.kappa
            W = 0.5 * np.outer(e0, t) + k * (np.outer(c, t) - (t @ self.mq) * np.outer(c, e0) - (c @ self.mq) * np.outer(e0, t))
            self.const = float(0.5 * t @ self.mq + k * c @ Mq @ t)
        self.w = self.moments.weights(W)
        self.lin = np.zeros(self.p0.size) if self.linear is None else np.asarray(self.linear, dtype=np.float64)

    def value(self, x: np.ndarray) -> float:
        """``N_P(x)`` (plus ``linear . x``)."""
        return self.moments.value(self.w, x) + self.const + float(self.lin @ x)

    def pure_value(self, X: np.ndarray) -> np.ndarray:
        """``N_P`` (plus ``linear . x``) (B,) at the pure profiles ``X`` (B, D): ``E[c t] = c(x) t(x)`` there."""
        design = self.moments.design
        cols = design.feature_columns(X, self.moments.interactions)
        t = np.append(self.t[1:], 0.0)[cols].sum(1)
        extra = self.lin[design.level_offsets[:-1] + X].sum(1)
        if self.c is None:
            return t + extra
        c = np.append(self.c[1:], 0.0)[cols].sum(1)
        Eq_c, Eq_t = self.c @ self.mq, self.t @ self.mq
        return 0.5 * (t + Eq_t) + self.kappa * (c * t - c * Eq_t - Eq_c * t + self.c @ self.Mq @ self.t) + extra

    def objective(self, x: np.ndarray) -> float:
        return self.value(x) - self.lam * float(((x - self.p0) ** 2).sum())

    def gradient(self, x: np.ndarray) -> np.ndarray:
        return self.moments.gradient(self.w, x) + self.lin - 2.0 * self.lam * (x - self.p0)

    def hessian(self, x: np.ndarray) -> np.ndarray:
        return self.moments.hessian(self.w, x) - 2.0 * self.lam * np.eye(x.size)

    def value_jacobian(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(dN/dc~, dN/dt~)`` (P + 1,) each at fixed ``x``."""
        M, k, c, t, mq = self.moments.matrix(x), self.kappa, self.c, self.t, self.mq
        Mq = self.Mq
        m = M[:, 0]
        d_t = 0.5 * (m + mq) + k * (M @ c - (c @ m) * mq - (c @ mq) * m + Mq @ c)
        d_c = k * (M @ t - (t @ mq) * m - (t @ m) * mq + Mq @ t)
        return d_c, d_t

    def gradient_jacobian(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(d grad J / dc~, d grad J / dt~)`` (n, P + 1) each (``W`` is bilinear in ``c~``, ``t~``)."""
        k, c, t, mq, e0 = self.kappa, self.c, self.t, self.mq, np.eye(self.c.size)[0]
        mom = self.moments
        u = 0.5 * e0 + k * c - k * (c @ mq) * e0
        v = k * t - k * (t @ mq) * e0
        d_t = mom.contracted_jacobian(u, x) - k * np.outer(mom.contracted_jacobian(c, x)[:, 0], mq)
        d_c = mom.contracted_jacobian(v, x) - k * np.outer(mom.contracted_jacobian(t, x)[:, 0], mq)
        return d_c, d_t


def pooled(spec: GameSpec, weighted: list[tuple[int, float]], size: int) -> tuple[np.ndarray, np.ndarray]:
    """``sum_k w_k (0, theta_{i_k})`` over ``weighted`` pairs ``(i, w)`` of model index (in
    ``spec.models``) and weight, padded to (size,) (a main-effects model's interactions are 0), and its
    derivative (size, n_params) in the stacked params (``alpha`` moves nothing)."""
    vec, chain = np.zeros(size), np.zeros((size, int(spec.slices[-1].stop)))
    for i, weight in weighted:
        m, block = spec.models[i], spec.slices[i]
        vec[1 : m.params.size] += weight * m.theta
        chain[np.arange(1, m.params.size), np.arange(block.start + 1, block.stop)] += weight
    return vec, chain


def party_problems(spec: GameSpec, lams: tuple[float, float]) -> tuple[list[PartyProblem], np.ndarray, list[np.ndarray | None]]:
    """Both parties' :class:`PartyProblem` of the game's control value (``N_A``, ``N_B``; the links'
    tangents, exact with identity links) and the derivatives of ``t~`` (P + 1, n_params) and of each
    party's ``c~`` (None without primaries) in the stacked params."""
    design = spec.design
    roles = list(spec.general) + list(spec.primaries or ())
    moments = Moments(design, any(spec.models[i].interactions for i in roles))
    general = [(i, spec.shares[g] * KAPPA[spec.models[i].link]) for g, i in enumerate(spec.general)]
    t, chain_t = pooled(spec, general, moments.size)  # t = sum_g s_g kappa_g f_g
    p0 = np.concatenate([np.asarray(p, dtype=np.float64) for p in design.p0])
    problems, chains_c = [], []
    for p in (0, 1):
        c, chain_c, kappa = None, None, 1.0
        if spec.primaries is not None:
            c, chain_c = pooled(spec, [(spec.primaries[p], 1.0)], moments.size)
            kappa = KAPPA[spec.models[spec.primaries[p]].link]
        allowed = allowed_levels(design, spec.fixed[p])
        problems.append(PartyProblem(moments, c, t, kappa, np.concatenate(spec.reference(p)), lams[p], p0, allowed))
        chains_c.append(chain_c)
    return problems, chain_t, chains_c


@dataclass
class PartySolution:
    """The best KKT point of :func:`maximise`: ``x`` (n,), ``support`` (n,) bool, ``objective`` J,
    ``kkt_residual`` (gradient units), ``iterations`` (SQP steps, all starts), ``starts``."""

    x: np.ndarray
    support: np.ndarray
    objective: float
    kkt_residual: float
    iterations: int
    starts: int


def _qp(problem: PartyProblem, x: np.ndarray, g: np.ndarray, H: np.ndarray) -> PolicyQP:
    """The quadratic model of ``J`` at ``x`` as a :class:`PolicyQP` (its constant dropped)."""
    design = problem.moments.design
    lin = g - H @ x
    return PolicyQP(lin, H, 0.0, np.repeat(np.arange(design.n_factors), design.sizes), design.level_offsets, lin, H, 0.0)


def _model_step(problem: PartyProblem, x: np.ndarray, g: np.ndarray, H: np.ndarray, tol: float, shift: bool) -> np.ndarray:
    """The step to the active-set maximiser of the quadratic model at ``x``; with ``shift`` the
    Hessian is first moved below 0 on the allowed levels (then the step ascends ``J``)."""
    qp = _qp(problem, x, g, H)
    if shift:
        _, C = qp.reduced_hessian(problem.allowed)
        top = float(np.linalg.eigvalsh(C).max()) if C.size else 0.0
        qp = _qp(problem, x, g, H - (max(top, 0.0) + 1e-3 * max(float(np.abs(H).max()), 1e-12)) * np.eye(x.size))
    y, _, _ = active_set(qp, x, problem.allowed, tol, 50 * x.size + 100)
    return y - x


def sqp(problem: PartyProblem, x: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, int]:
    """SQP from the feasible ``x`` (module docstring): ``(x, support, iterations)``. Newton's model
    step is taken when it does not lower ``J`` (beyond round-off); else the shifted model's step with
    a backtracking (Armijo) line search. It stops when the step vanishes."""
    J = problem.objective(x)
    noise = 1e-14 * max(1.0, abs(J))
    for it in range(1, MAX_SQP + 1):
        g, H = problem.gradient(x), problem.hessian(x)
        step = _model_step(problem, x, g, H, tol, shift=False)
        size = float(np.abs(step).max())
        if size <= 1e-14:
            return x, x > 0, it
        trial = np.clip(x + step, 0.0, None)
        J_trial = problem.objective(trial)
        if J_trial < J - noise:  # the model misleads where J is not concave
            step = _model_step(problem, x, g, H, tol, shift=True)
            slope = float(g @ step)
            if float(np.abs(step).max()) <= 1e-14 or slope <= 0.0:
                return x, x > 0, it
            alpha = 1.0
            while True:
                trial = np.clip(x + alpha * step, 0.0, None)
                J_trial = problem.objective(trial)
                if J_trial >= J + 1e-4 * alpha * slope:
                    break
                alpha *= 0.5
                if alpha < 1e-12:
                    return x, x > 0, it
        elif size <= 1e-9 and J_trial <= J:  # round-off: the step no longer pays
            return trial, trial > 0, it
        x, J = trial, J_trial
    return x, x > 0, MAX_SQP


def _vertex_ascent(problem: PartyProblem, X: np.ndarray, sweeps: int = 50) -> np.ndarray:
    """Coordinate ascent over pure profiles from the profiles ``X`` (B, D) level codes, all at once:
    at a pure profile ``N`` is a function of the predictors ``c(x)``, ``t(x)``
    (:meth:`PartyProblem.pure_value`), so each factor's levels are scored by the profiles with that
    factor changed, minus the L2 penalty of each point mass; the best level of each factor in turn.
    Returns the stacked point masses (B, n)."""
    design, allowed = problem.moments.design, problem.allowed
    starts = design.level_offsets
    X = np.array(X, dtype=np.int64)
    for _ in range(sweeps):
        changed = False
        for d in range(design.n_factors):
            block = slice(starts[d], starts[d + 1])
            size = design.sizes[d]
            trial = np.repeat(X, size, axis=0)
            trial[:, d] = np.tile(np.arange(size), X.shape[0])
            p0 = problem.p0[block]
            pens = 1.0 - 2.0 * p0 + float((p0**2).sum())
            score = problem.pure_value(trial).reshape(-1, size) - problem.lam * pens
            score = np.where(allowed[block], score, -np.inf)
            top = np.argmax(score, axis=1)
            better = score[np.arange(X.shape[0]), top] > score[np.arange(X.shape[0]), X[:, d]] + 1e-15
            X[better, d] = top[better]
            changed |= bool(better.any())
        if not changed:
            break
    out = np.zeros((X.shape[0], problem.p0.size))
    out[np.arange(X.shape[0])[:, None], starts[:-1] + X] = 1.0
    return out


def _modes(problem: PartyProblem, x: np.ndarray) -> np.ndarray:
    """The modal profile (D,) of the stacked policy ``x`` among the allowed levels."""
    starts = problem.moments.design.level_offsets
    held = np.where(problem.allowed, x, -1.0)
    return np.array([int(np.argmax(held[starts[d] : starts[d + 1]])) for d in range(starts.size - 1)])


def maximise(problem: PartyProblem, *, n_starts: int = 2, n_vertices: int = 16, seed: int = 0) -> PartySolution:
    """The best KKT point of ``J`` from ``p0`` and ``n_starts`` random starts (Dirichlet(1) per factor),
    then from the best vertex of :func:`_vertex_ascent` from their modal profiles and ``n_vertices``
    random profiles."""
    design, allowed = problem.moments.design, problem.allowed
    factor = np.repeat(np.arange(design.n_factors), design.sizes)
    g0, H0 = problem.gradient(problem.p0), problem.hessian(problem.p0)
    tol = QP_TOL * max(float(np.abs(g0).max()), float(np.abs(H0).max()), 1e-300)

    def feasible(x: np.ndarray) -> np.ndarray:
        x = np.where(allowed, x, 0.0)
        return x / np.bincount(factor, weights=x)[factor]

    rng = np.random.default_rng(seed)
    starts = [feasible(problem.p0)] + [
        feasible(np.concatenate([rng.dirichlet(np.ones(s)) for s in design.sizes])) for _ in range(n_starts)
    ]
    best, iterations, ends = None, 0, []
    for x in starts:
        x, free, it = sqp(problem, x, tol)
        iterations += it
        ends.append(x)
        if best is None or problem.objective(x) > problem.objective(best[0]) + tol:
            best = (x, free)
    # coordinate ascent over pure profiles (cheap: predictor values) from each result's modal profile
    # and from random profiles; SQP from the best vertex reached (boundary optima of small penalties)
    X = np.array([_modes(problem, x) for x in ends] + [_modes(problem, rng.random(factor.size)) for _ in range(n_vertices)])
    vertices = _vertex_ascent(problem, X)
    top = vertices[int(np.argmax([problem.objective(v) for v in vertices]))]
    x, free, it = sqp(problem, top, tol)
    iterations += it
    if problem.objective(x) > problem.objective(best[0]) + tol:
        best = (x, free)
    x, free = best
    grad = problem.gradient(x)
    _, _, kkt = kkt_conditions(_qp(problem, x, grad, problem.hessian(x)), grad, free, allowed)
    return PartySolution(x, free, problem.objective(x), kkt, iterations, len(starts))


def jacobians(problem: PartyProblem, solution: PartySolution) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(dx/dc~, dx/dt~)`` (n, P + 1) each on the solution's support (module docstring; NaN where the
    face's Hessian is singular), then ``(dN*/dc~, dN*/dt~)`` (P + 1,) each, ``N* = N_P(x*(params))``."""
    x = solution.x
    K = _qp(problem, x, problem.gradient(x), problem.hessian(x)).face_inverse(solution.support)
    dg_c, dg_t = problem.gradient_jacobian(x)
    dx_c, dx_t = -K @ dg_c, -K @ dg_t
    dN_dx = problem.moments.gradient(problem.w, x)
    v_c, v_t = problem.value_jacobian(x)
    return dx_c, dx_t, v_c + dN_dx @ dx_c, v_t + dN_dx @ dx_t
