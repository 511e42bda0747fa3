"""Separable convex subproblems of K-sparse TCO on the simplex (numba).

Every subproblem here is, over the coordinates ``i`` with ``mask[i]`` true (the others are 0),

    minimise   sum_i  c_i b_i + lam |b_i - h_i| + mu/2 (b_i - h_i)^2 + 1/(2 alpha) (b_i - y_i)^2
    subject to b >= 0, sum_i b_i = 1

with ``c`` (n,) a linear cost, ``h`` (n,) the drifted previous portfolio, ``y`` (n,) the prox
centre and ``alpha > 0`` the prox step (``alpha = inf`` drops the prox term). With the prox term it
is PSGA's proximal step; without it and with a mask it is the convex problem on a fixed support.

Two solvers:

- :func:`exact_prox`: the KKT multiplier ``theta`` of ``sum b = 1`` by bisection; for a given
  ``theta`` each coordinate has the closed form ``max(0, h_i + soft(w_i - h_i, lam / a))`` with
  ``a = mu + 1/alpha`` and ``w_i = (mu h_i + y_i / alpha - c_i - theta) / a``. With ``a = 0`` (a
  linear programme) it fills the cheapest slopes first (a continuous knapsack), which is exact.
- :func:`admm_prox`: ADMM on the splitting ``x = z`` (``x``: linear, quadratic and simplex terms,
  a simplex projection; ``z``: the L1 term, a soft threshold), stopped by primal and dual
  residuals. It needs ``a > 0``.

:func:`psga_kernel` runs PSGA's iterations on these kernels.
"""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit
from cosolve.portfolio.simplex import project_simplex_on as project_simplex

#: Bisection steps on the multiplier: enough to pin ``theta`` to float64 resolution.
BISECTION_STEPS = 200


@njit(cache=True)
def _coordinates(theta: float, c, h, y, lam, mu, inv_alpha, mask, out) -> float:
    """Fill ``out`` with each coordinate's minimiser for the multiplier ``theta``; return the sum."""
    a = mu + inv_alpha
    s = 0.0
    for i in range(c.size):
        if not mask[i]:
            out[i] = 0.0
            continue
        w = (mu * h[i] + y[i] * inv_alpha - c[i] - theta) / a
        d = w - h[i]
        t = lam / a
        if d > t:
            b = w - t
        elif d < -t:
            b = w + t
        else:
            b = h[i]
        b = max(b, 0.0)
        out[i] = b
        s += b
    return s


@njit(cache=True)
def _knapsack(c, h, lam, mask) -> np.ndarray:
    """The linear case (``mu = 0``, no prox term): coordinate ``i`` costs slope ``c_i - lam`` on
    ``[0, h_i]`` and ``c_i + lam`` above ``h_i``; filling the cheapest slopes first is optimal."""
    n = c.size
    slopes = np.empty(2 * n)
    caps = np.empty(2 * n)
    owner = np.empty(2 * n, dtype=np.int64)
    m = 0
    for i in range(n):
        if not mask[i]:
            continue
        if h[i] > 0.0:
            slopes[m] = c[i] - lam
            caps[m] = h[i]
            owner[m] = i
            m += 1
        slopes[m] = c[i] + lam
        caps[m] = np.inf
        owner[m] = i
        m += 1
    order = np.argsort(slopes[:m], kind="mergesort")
    out = np.zeros(n)
    left = 1.0
    for k in order:
        take = min(caps[k], left)
        out[owner[k]] += take
        left -= take
        if left <= 0.0:
            break
    return out


@njit(cache=True)
def exact_prox(c, h, y, lam: float, mu: float, alpha: float, mask) -> np.ndarray:
    """The exact minimiser (n,) of the subproblem in the module docstring (``alpha = np.inf``: no
    prox term). Needs at least one coordinate in ``mask``."""
    inv_alpha = 0.0 if alpha == np.inf else 1.0 / alpha
    a = mu + inv_alpha
    if a <= 0.0:
        return _knapsack(c, h, lam, mask)
    # theta_hi leaves every coordinate at 0, theta_lo pushes one above 1.
    top = -np.inf
    for i in range(c.size):
        if mask[i]:
            top = max(top, mu * h[i] + y[i] * inv_alpha - c[i])
    hi = top + lam + 1.0
    lo = top - lam - a - 1.0
    out = np.empty(c.size)
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _coordinates(mid, c, h, y, lam, mu, inv_alpha, mask, out) > 1.0:
            lo = mid
        else:
            hi = mid
    s = _coordinates(0.5 * (lo + hi), c, h, y, lam, mu, inv_alpha, mask, out)
    # Float residual of the sum: spread it over the coordinates strictly inside a linear piece.
    free = 0
    for i in range(c.size):
        if mask[i] and out[i] > 0.0 and out[i] != h[i]:
            free += 1
    if free > 0 and s != 1.0:
        shift = (1.0 - s) / free
        for i in range(c.size):
            if mask[i] and out[i] > 0.0 and out[i] != h[i]:
                out[i] = max(out[i] + shift, 0.0)
    total = out.sum()
    return out / total


@njit(cache=True)
def admm_prox(
    c, h, y, lam: float, mu: float, alpha: float, mask, sigma: float, tol: float, max_iter: int, x0, z0, u0, adapt: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """ADMM for the subproblem (``mu + 1/alpha > 0``): ``x`` carries the simplex, linear and
    quadratic terms, ``z`` the L1 term, ``u`` the scaled dual; ``sigma`` is the ADMM penalty.

    Stops when the primal residual ``||x - z||`` and the dual residual ``sigma ||z - z_prev||``
    are both at most ``tol * max(1, ||x||, ||z||)`` (respectively ``tol * max(1, sigma ||u||)``),
    or after ``max_iter`` iterations. ``sigma`` adapts by residual balancing (Boyd et al. 2011,
    §3.4.1, every 5 iterations: doubled when the primal residual is 10 times the dual one, halved in the opposite
    case, within a factor 1e6 of its start; the scaled dual rescaled to match). Starts from ``x0, z0, u0`` (warm start; ``u0``
    scaled for ``sigma``). Returns ``(x, z, u, iterations)``; ``x`` is on the simplex (the
    solution), ``z`` its L1 copy, ``u`` rescaled to the initial ``sigma``.
    """
    inv_alpha = 0.0 if alpha == np.inf else 1.0 / alpha
    sigma0 = sigma
    x, z, u = x0.copy(), z0.copy(), u0.copy()
    target = np.empty_like(c)
    it = 0
    for it in range(1, max_iter + 1):
        denom = mu + inv_alpha + sigma
        thr = lam / sigma
        for i in range(c.size):
            target[i] = (mu * h[i] + y[i] * inv_alpha + sigma * (z[i] - u[i]) - c[i]) / denom
        x = project_simplex(target, mask)
        r2 = 0.0
        s2 = 0.0
        xx = 0.0
        zz = 0.0
        uu = 0.0
        for i in range(c.size):
            d = x[i] + u[i] - h[i]
            if d > thr:
                zi = h[i] + d - thr
            elif d < -thr:
                zi = h[i] + d + thr
            else:
                zi = h[i]
            if not mask[i]:
                zi = 0.0
            s2 += (zi - z[i]) ** 2
            z[i] = zi
            u[i] += x[i] - zi
            r2 += (x[i] - zi) ** 2
            xx += x[i] ** 2
            zz += zi**2
            uu += u[i] ** 2
        primal = np.sqrt(r2)
        dual = sigma * np.sqrt(s2)
        if primal <= tol * max(1.0, np.sqrt(max(xx, zz))) and dual <= tol * max(1.0, sigma * np.sqrt(uu)):
            break
        if not adapt or it % 5 != 0:
            continue
        if primal > 10.0 * dual and sigma < 1e6 * sigma0:
            sigma *= 2.0
            u *= 0.5
        elif dual > 10.0 * primal and sigma > 1e-6 * sigma0:
            sigma *= 0.5
            u *= 2.0
    return x, z, u * (sigma / sigma0), it


@njit(cache=True)
def _objective_nb(b, v, h, eta, lam, mu, k, rho) -> float:
    f = 0.0
    for i in range(b.size):
        d = b[i] - h[i]
        f += -eta * v[i] * b[i] + lam * abs(d) + 0.5 * mu * d * d + rho * abs(b[i])
    top = np.sort(b)[b.size - k :].sum()
    return f - rho * top


#: Entries of ``b`` closer than about ``1 / TIE_SCALE`` count as equal when choosing the K largest.
TIE_SCALE = 1e10


@njit(cache=True)
def psga_kernel(v, h, eta, lam, mu, k, rho, alpha, b, z, u, exact, tol, max_iter, admm_tol, admm_max_iter, sigma, objectives):
    """Up to ``max_iter`` PSGA steps from ``b`` (ADMM state ``z, u``), writing the penalised
    objective after step ``j`` to ``objectives[j]``. Returns ``(b, z, u, steps, admm_iterations,
    converged)``. It lives here, not in psga.py, because numba's cache tracks only a function's own
    file: a change to the prox kernels must recompile it."""
    n = v.size
    mask = np.ones(n, dtype=np.bool_)
    c = np.empty(n)
    inner = 0
    steps = 0
    converged = False
    gain = np.empty(n)
    for _ in range(max_iter):
        # the K largest entries; equal entries by the smooth part's descent direction (any choice
        # among ties is a subgradient of top_K, and this one keeps the assets F favours)
        for i in range(n):
            gain[i] = eta * v[i] - mu * (b[i] - h[i])
        by_gain = np.argsort(-gain, kind="mergesort")
        order = by_gain[np.argsort(-np.round(b[by_gain] * TIE_SCALE), kind="mergesort")]
        for i in range(n):
            c[i] = -eta * v[i]
        for j in range(k):
            c[order[j]] -= rho
        if exact:
            new = exact_prox(c, h, b, lam, mu, alpha, mask)
        else:
            new, z, u, it = admm_prox(c, h, b, lam, mu, alpha, mask, sigma, admm_tol, admm_max_iter, b, z, u)
            inner += it
        change = np.sqrt(((new - b) ** 2).sum())
        scale = max(1.0, np.sqrt((b**2).sum()))
        b = new
        objectives[steps] = _objective_nb(b, v, h, eta, lam, mu, k, rho)
        steps += 1
        if change <= tol * scale:
            converged = True
            break
    return b, z, u, steps, inner, converged
