"""PSGA: the proximal subgradient algorithm for K-sparse TCO on a DC exact penalty.

The per-period problem (see :class:`cosolve.problems.portfolio.PortfolioPeriod`) is

    minimise F(b) = -eta <v, b> + lam ||b - h||_1 + mu/2 ||b - h||^2   over the simplex, ||b||_0 <= K.

On the simplex ``||b||_0 <= K`` holds iff ``1 - top_K(b) = 0`` (``top_K``: the sum of the K largest
entries), so PSGA minimises the DC function ``F(b) + rho (||b||_1 - top_K(b))`` over the simplex.
Each iteration linearises the concave part ``-rho top_K`` at ``b^k`` by the subgradient ``xi^k``
(the indicator of its K largest entries) and takes a proximal step on the convex part:

    b^{k+1} = argmin_{b in simplex} F(b) - rho <xi^k, b> + 1/(2 alpha) ||b - b^k||^2,

computed by ADMM (default) or exactly (:mod:`cosolve.methods.psga.prox`). Equal entries, where
``top_K`` has many subgradients, are ranked by the smooth part's descent direction
``eta v_i - mu (b_i - h_i)``: the relaxed optimum keeps many assets exactly at their previous weight
(the kink of the L1 cost), and an arbitrary choice among them (by index) left PSGA at supports up to
2e-4 worse than SCIP's optimum on the benchmark's dense-portfolio instances. It stops when
``||b^{k+1} - b^k|| <= tol * max(1, ||b^k||)``. The objective of every iterate is recorded.

Exact penalty threshold (:func:`penalty_threshold`): moving the mass ``t`` outside the K largest
entries onto the largest entry changes ``F`` by at most ``t (eta (max v - min v) + 2 lam + 5/2 mu)``
and lowers the penalty by ``rho t``; so for ``rho`` above that bound every minimiser of the penalised
problem is K-sparse, and the penalised and constrained problems have the same minimisers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosolve.errors import UsageError
from cosolve.methods.psga.prox import exact_prox, psga_kernel
from cosolve.problems.portfolio import tco_objective


def top_k_sum(b: np.ndarray, k: int) -> float:
    """Sum of the ``k`` largest entries of ``b`` (n,)."""
    if k >= b.size:
        return float(b.sum())
    return float(np.partition(b, b.size - k)[b.size - k :].sum())


def top_k_indicator(b: np.ndarray, k: int) -> np.ndarray:
    """0/1 float vector (n,) marking the ``k`` largest entries of ``b`` (ties: lower index first):
    a subgradient of ``top_K`` at ``b``."""
    xi = np.zeros(b.size)
    xi[np.argsort(-b, kind="stable")[:k]] = 1.0
    return xi


def penalty_threshold(v: np.ndarray, eta: float, lam: float, mu: float) -> float:
    """The exact-penalty bound ``eta (max v - min v) + 2 lam + 5/2 mu``: any ``rho`` strictly above
    it makes the DC penalty exact (module docstring)."""
    return float(eta * (v.max() - v.min()) + 2.0 * lam + 2.5 * mu)


def penalised_objective(b: np.ndarray, v, h, eta: float, lam: float, mu: float, k: int, rho: float) -> float:
    """``F(b) + rho (||b||_1 - top_K(b))`` (numpy; the PSGA kernel has its own numba copy, which the
    tests check against this one)."""
    return tco_objective(b, v, h, eta, lam, mu) + rho * (np.abs(b).sum() - top_k_sum(b, k))


def support_of(b: np.ndarray, k: int, eps: float = 1e-12) -> np.ndarray:
    """Boolean mask (n,) of the at most ``k`` largest entries of ``b`` above ``eps``."""
    mask = top_k_indicator(b, k) > 0
    return mask & (b > eps)


def solve_on_support(v, h, eta: float, lam: float, mu: float, mask: np.ndarray) -> np.ndarray:
    """The exact minimiser (n,) of ``F`` over the simplex with ``b_i = 0`` outside ``mask``."""
    return exact_prox(-eta * v, h, h, lam, mu, np.inf, mask)


@dataclass
class PsgaRun:
    """One PSGA run: ``b`` (n,) the final iterate, ``objectives`` the penalised objective of
    ``b^0, b^1, …`` (for the convergence plot), ``iterations`` proximal steps taken,
    ``admm_iterations`` inner ADMM iterations in total, ``converged`` whether the relative-change
    test stopped it (rather than ``max_iter`` or ``stop``)."""

    b: np.ndarray
    objectives: list[float] = field(default_factory=list)
    iterations: int = 0
    admm_iterations: int = 0
    converged: bool = False


#: PSGA steps between two looks at ``stop()``.
STOP_CHECK_EVERY = 25


def psga(
    v: np.ndarray,
    h: np.ndarray,
    *,
    eta: float,
    lam: float,
    mu: float,
    k: int,
    rho: float,
    alpha: float,
    start: np.ndarray,
    prox: str = "admm",
    tol: float = 1e-9,
    max_iter: int = 1000,
    admm_tol: float = 1e-10,
    admm_max_iter: int = 5000,
    admm_sigma: float | None = None,
    stop=None,
) -> PsgaRun:
    """Run PSGA from ``start`` (n,) on the simplex (module docstring). ``prox`` is ``"admm"`` or
    ``"exact"``; ``alpha`` the proximal step; ``stop()`` (optional) is polled every
    ``STOP_CHECK_EVERY`` steps. ADMM is warm-started from the previous step's variables; its
    penalty defaults to ``mu + 1/alpha``."""
    if prox not in ("admm", "exact"):
        raise ValueError(f"unknown prox {prox!r}; valid: admm, exact")
    v = np.ascontiguousarray(v, dtype=np.float64)
    h = np.ascontiguousarray(h, dtype=np.float64)
    b = np.array(start, dtype=np.float64)
    run = PsgaRun(b=b)
    run.objectives.append(penalised_objective(b, v, h, eta, lam, mu, k, rho))
    sigma = admm_sigma if admm_sigma is not None else mu + 1.0 / alpha
    z, u = b.copy(), np.zeros(v.size)
    buffer = np.empty(STOP_CHECK_EVERY)
    while run.iterations < max_iter and not run.converged:
        if stop is not None and stop():
            break
        chunk = min(STOP_CHECK_EVERY, max_iter - run.iterations)
        b, z, u, steps, inner, converged = psga_kernel(
            v, h, eta, lam, mu, k, rho, alpha, b, z, u, prox == "exact", tol, chunk, admm_tol, admm_max_iter, sigma, buffer
        )
        run.objectives.extend(buffer[:steps].tolist())
        run.iterations += int(steps)
        run.admm_iterations += int(inner)
        run.converged = bool(converged)
    run.b = b
    return run


STARTS = ("relaxed", "previous", "uniform")


def start_point(name: str, v: np.ndarray, h: np.ndarray, eta: float, lam: float, mu: float) -> np.ndarray:
    """PSGA's starting portfolio (n,): ``relaxed`` the optimum without the K-sparse constraint,
    ``previous`` the drifted previous portfolio ``h`` (uniform when in cash), ``uniform`` (all
    entries tie, so the first subgradient keeps the K assets the smooth part favours most)."""
    n = v.size
    if name == "relaxed":
        return solve_on_support(v, h, eta, lam, mu, np.ones(n, dtype=np.bool_))
    if name == "previous" and h.sum() > 0:
        return h / h.sum()
    if name not in STARTS:
        raise ValueError(f"unknown start {name!r}; valid: {', '.join(STARTS)}")
    return np.full(n, 1.0 / n)


def check_rho_factor(rho_factor: float) -> None:
    """UsageError unless ``rho_factor > 1`` (at 1 the penalty is only at its threshold, not exact)."""
    if not rho_factor > 1.0:
        raise UsageError(f"psga: rho_factor must be above 1 for the penalty to be exact, got {rho_factor:g}")


def solve_period(
    v: np.ndarray,
    h: np.ndarray,
    *,
    eta: float,
    lam: float,
    mu: float,
    k: int,
    rho_factor: float = 1.1,
    starts: tuple[str, ...] = STARTS,
    polish: bool = True,
    stop=None,
    **options,
) -> list[tuple[np.ndarray, PsgaRun]]:
    """PSGA from each of ``starts`` with ``rho = rho_factor * penalty_threshold``: per start the
    K-sparse portfolio (n,) (its support re-solved exactly with ``polish``, else the iterate with
    the tail cut and rescaled) and the run. ``options`` go to :func:`psga` (alpha, prox, tol, …)."""
    check_rho_factor(rho_factor)
    rho = rho_factor * penalty_threshold(v, eta, lam, mu)
    out = []
    for name in starts:
        if stop is not None and stop():
            break
        run = psga(v, h, eta=eta, lam=lam, mu=mu, k=k, rho=rho, start=start_point(name, v, h, eta, lam, mu), stop=stop, **options)
        held = support_of(run.b, k)
        if polish:
            b = solve_on_support(v, h, eta, lam, mu, held)
        else:
            b = np.where(held, np.clip(run.b, 0.0, None), 0.0)
            b /= b.sum()
        out.append((b, run))
    return out
