"""The best constant rebalanced portfolio in hindsight (BCRP), a benchmark that sees all days."""

from __future__ import annotations

import numpy as np

from cosolve.errors import CosolveError


def best_constant_portfolio(x: np.ndarray, *, tol: float = 1e-10, max_iter: int = 1000) -> np.ndarray:
    """The weights ``b`` (n,) on the simplex that maximise ``f(b) = mean_t log(b . x_t)`` over
    the whole (T, n) relative matrix ``x`` (final wealth ``exp(T f(b))``, without costs).

    The problem is concave. An active-set Newton method solves it to the KKT conditions: with
    ``g = grad f`` (``g_i = mean_t x_ti / (b . x_t)``, and ``b . g = 1``), ``g_i = 1`` for held
    assets and ``g_i <= 1`` for the others, within ``tol``. Each step is a Newton step on the
    face of the current support (a KKT system of its size), damped by a backtracking line
    search and cut where a weight reaches 0 (which then leaves the support); at a face optimum
    the asset that most violates ``g_i <= 1`` joins. It starts from the best single asset, so the
    supports stay small (the optima of the OLPS data sets hold 3 to 5 assets) and NYSE (5651 x 36)
    takes milliseconds.
    """
    x = np.asarray(x, dtype=np.float64)
    days, n = x.shape
    b = np.zeros(n)
    b[int(np.argmax(np.log(x).sum(axis=0)))] = 1.0  # the best single asset
    support = b > 0
    value = float(np.mean(np.log(x @ b)))
    for _ in range(max_iter):
        r = x @ b
        g = x.T @ (1.0 / r) / days
        held, off = np.flatnonzero(support), np.flatnonzero(~support)
        direction, gain = _face_newton(x[:, held], r, g[held]) if held.size > 1 else (None, 0.0)
        if gain <= tol * tol or np.max(np.abs(g[held] - 1.0)) <= tol:  # optimal on this face
            if off.size == 0 or g[off].max() <= 1.0 + tol:
                return b
            support[off[np.argmax(g[off])]] = True  # the most violating asset joins
            continue
        shrinking = direction < 0
        ratios = -b[held][shrinking] / direction[shrinking]
        limit = float(ratios.min()) if shrinking.any() else np.inf
        step = min(1.0, limit)
        while True:  # backtracking (Armijo) line search
            trial = b.copy()
            trial[held] = np.maximum(b[held] + step * direction, 0.0)
            if step == limit:  # a weight reaches 0: it leaves the support
                blocking = held[shrinking][np.argmin(ratios)]
                trial[blocking] = 0.0
            trial /= trial.sum()
            trial_value = float(np.mean(np.log(x @ trial)))
            if trial_value >= value + 1e-4 * step * gain:
                break
            step *= 0.5
            if step < 1e-16:  # no progress left in floating point: b is optimal to rounding
                return b
        if step == limit:
            support[blocking] = False
        b, value = trial, trial_value
    raise CosolveError(f"BCRP: the log-wealth maximisation did not converge in {max_iter} Newton steps")


def _face_newton(xs: np.ndarray, r: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, float]:
    """The Newton direction ``d`` (k,) of ``f`` on the face of the k held assets (``sum d = 0``)
    and its gain ``g . d`` (the squared Newton decrement, >= 0)."""
    days, k = xs.shape
    curvature = (xs / (r * r)[:, None]).T @ xs / days  # minus the Hessian of f
    kkt = np.zeros((k + 1, k + 1))
    kkt[:k, :k] = curvature + 1e-14 * np.trace(curvature) / k * np.eye(k)  # identical assets stay solvable
    kkt[:k, k] = kkt[k, :k] = 1.0
    direction = np.linalg.solve(kkt, np.append(g, 0.0))[:k]
    return direction, float(g @ direction)
