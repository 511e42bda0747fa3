"""Solving the conjoint game (issue 8): extra-gradient and Newton on the first-order conditions,
supports for boundary equilibria, and the Monte Carlo surrogate's rounds.

Each player's free factors are softmax logits with the baseline pinned to 0
(:mod:`~cosolve.methods.conjoint.game.logit_game`); the first-order conditions are ``F(w) = (dU_A/dw_A,
dU_B/dw_B) = (dS/dw_A, -dS/dw_B) = 0`` with ``S = V - lam_A Pen_A + lam_B Pen_B``. Simultaneous
extra-gradient (Korpelevich) ``w' = w + eta F(w + eta F(w))``, ``eta = step / ||dF/dw||_2`` at the start
(halved whenever ``|F|`` blows up), runs until ``|F|_inf < newton_switch``; Newton steps on ``F`` then
take it to round-off (steps that shrink a probability 1000-fold are refused: as probabilities vanish
so does ``F``, and Newton would find those points too). Equilibria on the boundary of the simplices
(``lam = 0`` or the L2 penalty; the KL penalty keeps them interior) are reached in logits only in the
limit, so levels that fall below ``DROP_FLOOR`` while still shrinking leave the support and come back
if the KKT conditions ask (:func:`solve_on_support`). A stationary point need not be an equilibrium of
a non-concave game (with interactions, primaries or logit links ``V`` is multilinear, not concave,
in a player's factors), so the result reports the *exploitability*, the sum of both players'
best-response gaps (:mod:`~cosolve.methods.conjoint.game.response`); above ``tol`` the solve
restarts from the best responses (``restarts`` times), and ``converged`` means it ends at most ``tol``.

With the ``mc`` estimator and non-identity links the linearised game (the exact control value alone)
is solved first, as a warm start; then the game on the estimator's smooth local surrogate
(:meth:`~cosolve.methods.conjoint.game.monte_carlo.MonteCarlo.centre`) is solved and the surrogate
re-centred at the solution (:func:`recentred_solve`): a fixed point satisfies the Rao-Blackwellised
first-order conditions, which ``foc_norm`` reports (the samples jump with the centre, so they hold to
about the size of one jump, ~1e-6, rather than to round-off).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cosolve.methods.conjoint.game.logit_game import Game, Player
from cosolve.methods.conjoint.tensors import as_tensor, to_numpy

#: Probabilities below this that still shrink are dropped from a stalled solve's support (and put
#: back if the KKT conditions ask for them): logits reach the boundary only slowly (~1 / iterations).
DROP_FLOOR = 1e-3


def extragradient(
    game: Game, w: np.ndarray, *, step: float, max_iter: int, foc_tol: float, newton_switch: float
) -> tuple[np.ndarray, float, int]:
    """Extra-gradient then Newton on ``F`` (module docstring): ``(w, |F|_inf, iterations)``."""
    if w.size == 0:
        return w, 0.0, 0
    F = game.field(w)
    norm = float(np.abs(F).max())
    eta = step / max(float(np.linalg.norm(game.field_jacobian(w), 2)), 1e-12)
    best, it, switch = norm, 0, newton_switch
    while it < max_iter and norm > foc_tol:
        if norm < switch:
            w_new, n_new, steps = _newton(game, w, F, norm)
            it += steps
            if n_new < norm:
                w, norm = w_new, n_new
                F = game.field(w)
                if norm <= foc_tol:
                    break
            switch = norm / 10.0  # Newton stalled: extra-gradient closer in first
        w_half = w + eta * F
        w_new = w + eta * game.field(w_half)
        F_new = game.field(w_new)
        n_new = float(np.abs(F_new).max())
        it += 1
        if not np.isfinite(n_new) or n_new > 10.0 * max(best, foc_tol):
            eta /= 2.0
            continue
        w, F, norm = w_new, F_new, n_new
        best = min(best, norm)
    return w, norm, it


def _newton(game: Game, w: np.ndarray, F: np.ndarray, norm: float, steps: int = 30) -> tuple[np.ndarray, float, int]:
    used = 0
    for _ in range(steps):
        used += 1
        try:
            dw = np.linalg.solve(game.field_jacobian(w), -F)
        except np.linalg.LinAlgError:
            break
        w_new = w + dw
        if _collapses(game, w, w_new):
            break
        F_new = game.field(w_new)
        n_new = float(np.abs(F_new).max())
        if not np.isfinite(n_new) or n_new >= norm:
            break
        w, F, norm = w_new, F_new, n_new
        if norm <= 1e-15:
            break
    return w, norm, used


def _collapses(game: Game, w: np.ndarray, w_new: np.ndarray) -> bool:
    """A Newton step that shrinks some probability 1000-fold: the logits' near-stationary points on
    the boundary (where ``F`` vanishes with the probabilities) attract Newton, not only equilibria."""
    old = np.concatenate([p.numpy() for pi in game.policies(as_tensor(w)) for p in pi])
    new = np.concatenate([p.numpy() for pi in game.policies(as_tensor(w_new)) for p in pi])
    held = old > 0
    return bool(np.any(new[held] < 1e-3 * old[held]))


def solve_on_support(
    game: Game,
    w: np.ndarray,
    solve: Callable[[np.ndarray, int], tuple[np.ndarray, float, int]],
    *,
    max_iter: int,
    foc_tol: float,
    chunk: int = 500,
) -> tuple[np.ndarray, float, int]:
    """Run ``solve(w, max_iter) -> (w, |F|, iterations)`` in chunks, shrinking the players' supports
    after a chunk that ends with probabilities below ``DROP_FLOOR`` that still shrink (boundary
    equilibria, which logits reach only in the limit) and, once it converges, growing them back
    where the KKT conditions fail; it stops early after two chunks that fail to halve ``|F|``.
    ``(w, |F|, iterations)``; the game keeps the final supports."""
    used, iterations, norm, readded, stalls = 0, 0, np.inf, 0, 0
    while used < max_iter:
        previous = norm
        w, norm, it = solve(w, min(chunk, max_iter - used))
        used, iterations = used + max(it, 1), iterations + it
        pi_A, pi_B = (to_numpy(p) for p in game.policies(as_tensor(w)))
        gains = game.gains(pi_A, pi_B)
        changed = [P.reduced(pi, g, DROP_FLOOR) for P, pi, g in zip(game.players, (pi_A, pi_B), gains, strict=True)]
        if not any(changed):
            if norm > foc_tol:
                stalls = stalls + 1 if norm > 0.5 * previous else 0
                if stalls >= 2:  # no progress (e.g. the Monte Carlo surrogate's cycle): stop here
                    break
                continue
            changed = [P.extended(g, pi) for P, g, pi in zip(game.players, gains, (pi_A, pi_B), strict=True)]
            if not any(changed) or readded >= 5:
                break
            readded += 1
            pi_A, pi_B = (_put_back(pi, P, new) for pi, P, new in zip((pi_A, pi_B), game.players, changed, strict=True))
        game.set_players(*[new or old for new, old in zip(changed, game.players, strict=True)])
        w = game.logits(pi_A, pi_B)
    return w, norm, iterations


def _put_back(pi: list[np.ndarray], old: Player, new: Player | None, mass: float = 0.01) -> list[np.ndarray]:
    """``pi`` with ``mass`` spread over the levels ``new`` activates (logits near a vertex barely move)."""
    if new is None:
        return pi
    out = [np.array(p, dtype=np.float64) for p in pi]
    for d in old.free:
        back = [lv for lv in new.active[d] if lv not in old.active[d]]
        if back:
            out[d] *= 1 - mass
            out[d][back] += mass / len(back)
    return out


def recentred_solve(game: Game, w: np.ndarray, rounds: int, options: dict) -> tuple[np.ndarray, float, int]:
    """Solve the game on the Monte Carlo surrogate, re-centred at each solution (module docstring):
    ``(w, foc_norm, iterations)`` at the centre with the smallest Rao-Blackwellised ``|F|``. The samples
    move in jumps with the centre, so the iteration may settle on a short cycle of nearly equal points;
    it stops when the logits move by at most 1e-10, ``|F| <= foc_tol`` or after 3 rounds without a
    smaller ``|F|``."""
    best_w, best_norm, iterations, stale = w, np.inf, 0, 0
    for _ in range(rounds):
        game.recentre(*game.policies(as_tensor(w)), hessian=False)
        norm = float(np.abs(game.field(w)).max(initial=0.0))
        if norm < best_norm:
            best_w, best_norm, stale = w, norm, 0
        else:
            stale += 1
        if norm <= options["foc_tol"] or stale >= 3:
            break
        w_new, _, it = extragradient(game, w, **options)
        iterations += it
        shift, w = float(np.abs(w_new - w).max(initial=0.0)), w_new
        if shift <= 1e-10:
            break
    game.recentre(*game.policies(as_tensor(best_w)), hessian=False)
    return best_w, best_norm, iterations
