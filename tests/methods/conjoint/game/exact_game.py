"""The tests' exact baseline of the conjoint game for small designs: the pure-strategy matrix game (issue 8).

Each party's pure strategies are its profiles (every level of its free factors, the fixed ones held);
the payoff ``H[x, y]`` (nA, nB) is A's vote share when A's entrant (nominee without primaries) is ``x``
and B's is ``y`` (:meth:`~cosolve.methods.conjoint.game.payoff.Enumeration.payoff`, the primaries'
opponents integrated out). Without penalties the game over *all* mixed strategies is this matrix
game: a pure saddle point if ``max_x min_y H = min_y max_x H``, else the mixed equilibrium by two small
linear programs (HiGHS through ``scipy.optimize.linprog``):

    A: max v  s.t.  H^T p >= v 1,  sum p = 1,  p >= 0;     B: min u  s.t.  H q <= u 1,  sum q = 1,  q >= 0.

The restricted (product-policy) equilibrium coincides with it when the matrix game's solution is a
product distribution, e.g. a pure saddle point or a single free factor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosolve.methods.conjoint.game.payoff import Enumeration, build_spec
from cosolve.problems.conjoint.model import OutcomeModel

#: Tolerance of the pure-saddle test.
SADDLE_TOL = 1e-12


@dataclass
class MatrixGame:
    """``profiles_A`` (nA, D), ``profiles_B`` (nB, D) level codes; ``payoff`` (nA, nB); equilibrium
    mixed strategies ``p_A`` (nA,), ``p_B`` (nB,) over the profiles, their per-factor ``marginals_A`` /
    ``marginals_B`` (lists of (L_d,)); A's ``value``; ``pure`` when a pure saddle point exists."""

    profiles_A: np.ndarray
    profiles_B: np.ndarray
    payoff: np.ndarray
    p_A: np.ndarray
    p_B: np.ndarray
    marginals_A: list[np.ndarray]
    marginals_B: list[np.ndarray]
    value: float
    pure: bool


def solve_matrix_game(
    models: dict[str, OutcomeModel],
    shares: dict[str, float],
    *,
    primaries: dict[str, OutcomeModel] | None = None,
    fixed_A: dict[str, str] | None = None,
    fixed_B: dict[str, str] | None = None,
    max_profiles: int = 5000,
) -> MatrixGame:
    """The unpenalised game over all mixed strategies of profiles (module docstring); the arguments are
    those of :func:`~cosolve.methods.conjoint.game.solve_game`."""
    from cosolve.errors import UsageError

    spec = build_spec(models, shares, primaries, fixed_A, fixed_B)
    sizes = [int(np.prod([spec.design.sizes[d] for d in spec.free(p)])) for p in (0, 1)]
    if max(sizes) > max_profiles:
        raise UsageError(f"the matrix game has {max(sizes)} profiles per party, more than max_profiles={max_profiles}")
    est = Enumeration(spec)
    H = est.payoff(est._theta).numpy()
    XA, XB = (x.numpy() for x in est.X)
    p_A, p_B, value, pure = solve_payoff_matrix(H)
    return MatrixGame(
        XA, XB, H, p_A, p_B, _marginals(spec.design.sizes, XA, p_A), _marginals(spec.design.sizes, XB, p_B), value, pure
    )


def solve_payoff_matrix(H: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """``(p_A, p_B, value, pure)`` of the zero-sum game with row player maximising ``p_A^T H p_B``."""
    from scipy.optimize import linprog

    nA, nB = H.shape
    row_min, col_max = H.min(axis=1), H.max(axis=0)
    i, j = int(np.argmax(row_min)), int(np.argmin(col_max))
    if col_max[j] - row_min[i] <= SADDLE_TOL:
        return np.eye(nA)[i], np.eye(nB)[j], float(H[i, j]), True
    # A: variables (p, v), minimise -v subject to v - H^T p <= 0
    res_A = linprog(
        np.concatenate([np.zeros(nA), [-1.0]]),
        A_ub=np.hstack([-H.T, np.ones((nB, 1))]),
        b_ub=np.zeros(nB),
        A_eq=np.concatenate([np.ones(nA), [0.0]])[None],
        b_eq=[1.0],
        bounds=[(0, None)] * nA + [(None, None)],
        method="highs",
    )
    res_B = linprog(
        np.concatenate([np.zeros(nB), [1.0]]),
        A_ub=np.hstack([H, -np.ones((nA, 1))]),
        b_ub=np.zeros(nA),
        A_eq=np.concatenate([np.ones(nB), [0.0]])[None],
        b_eq=[1.0],
        bounds=[(0, None)] * nB + [(None, None)],
        method="highs",
    )
    if res_A.status != 0 or res_B.status != 0:
        raise RuntimeError(f"the matrix game's linear programs failed: {res_A.message}; {res_B.message}")
    p_A, p_B = np.clip(res_A.x[:nA], 0, None), np.clip(res_B.x[:nB], 0, None)
    return p_A / p_A.sum(), p_B / p_B.sum(), float(-res_A.fun), False


def _marginals(sizes, X: np.ndarray, p: np.ndarray) -> list[np.ndarray]:
    return [np.bincount(X[:, d], weights=p, minlength=size) for d, size in enumerate(sizes)]
