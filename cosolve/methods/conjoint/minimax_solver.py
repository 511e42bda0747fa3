"""Solving the conjoint game (issue 8): the players' logits, extra-gradient and Newton on the
first-order conditions, supports for boundary equilibria, and the Monte Carlo surrogate's rounds.

Each player's free factors are softmax logits with the baseline pinned to 0 (as in
:mod:`~cosolve.methods.conjoint.gradient`); the first-order conditions are ``F(w) = (dU_A/dw_A,
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
best-response gaps (:mod:`~cosolve.methods.conjoint.minimax_response`); above ``tol`` the solve
restarts from the best responses (``restarts`` times), and ``converged`` means it ends at most ``tol``.

With the ``mc`` estimator and non-identity links the linearised game (the exact control value alone)
is solved first, as a warm start; then the game on the estimator's smooth local surrogate
(:meth:`~cosolve.methods.conjoint.minimax_mc.MonteCarlo.centre`) is solved and the surrogate
re-centred at the solution (:func:`recentred_solve`): a fixed point satisfies the Rao-Blackwellised
first-order conditions, which ``foc_norm`` reports (the samples jump with the centre, so they hold to
about the size of one jump, ~1e-6, rather than to round-off).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from cosolve.methods.conjoint.gradient import penalty_value
from cosolve.methods.conjoint.minimax_payoff import GameSpec

#: Probabilities below this that still shrink are dropped from a stalled solve's support (and put
#: back if the KKT conditions ask for them): logits reach the boundary only slowly (~1 / iterations).
DROP_FLOOR = 1e-3


def _torch():
    import torch

    return torch


class Player:
    """One party's parametrisation: logits (n,) of its free factors over their *active* levels
    (``active[d]``, the reference level first with its logit pinned to 0; by default all levels,
    baseline first). Inactive levels have probability 0; one active level is a point mass."""

    def __init__(self, spec: GameSpec, index: int, active: dict[int, np.ndarray] | None = None) -> None:
        self.design, self.fixed, self.free = spec.design, spec.fixed[index], spec.free(index)
        self.active = active or {d: np.arange(self.design.sizes[d]) for d in self.free}
        self.offsets = np.concatenate([[0], np.cumsum([len(self.active[d]) - 1 for d in self.free])]).astype(int)
        self.n = int(self.offsets[-1])

    @property
    def full(self) -> bool:
        return all(len(self.active[d]) == self.design.sizes[d] for d in self.free)

    def policy(self, w):
        """torch: the D policies (L_d,) from the logits ``w`` (n,)."""
        torch = _torch()
        out, k = [], 0
        for d, size in enumerate(self.design.sizes):
            if d in self.fixed:
                out.append(torch.eye(size, dtype=torch.float64)[self.fixed[d]])
                continue
            levels = self.active[d]
            chunk = w[self.offsets[k] : self.offsets[k + 1]]
            k += 1
            p = torch.softmax(torch.cat([torch.zeros(1, dtype=torch.float64), chunk]), 0)
            if len(levels) < size or levels[0] != 0:
                p = torch.zeros(size, dtype=torch.float64).index_add(0, torch.as_tensor(levels), p)
            out.append(p)
        return out

    def logits(self, pi: list[np.ndarray]) -> np.ndarray:
        """The logits of a policy (list of (L_d,)) that is positive on the active levels."""
        parts = [np.log(pi[d][self.active[d][1:]] / pi[d][self.active[d][0]]) for d in self.free]
        return np.concatenate([*parts, np.zeros(0)])

    def initial(self) -> np.ndarray:
        """The logits of ``p0`` on the free factors."""
        return self.logits(list(self.design.p0))

    def reduced(self, pi: list[np.ndarray], gain: list[np.ndarray], floor: float) -> Player | None:
        """The player without the levels that are below ``floor`` and still shrinking (their marginal
        payoff ``gain[d][l]`` below the policy's mean), None if there are none; each factor keeps its
        most likely level, which becomes its reference."""
        active, changed = {}, False
        for d in self.free:
            mean = float(pi[d] @ gain[d])
            keep = [lv for lv in self.active[d] if pi[d][lv] >= floor or gain[d][lv] >= mean]
            top = int(np.argmax(pi[d]))
            active[d] = np.array([top] + [lv for lv in keep if lv != top])
            changed |= len(active[d]) < len(self.active[d])
        return self._with(active) if changed else None

    def extended(self, gain: list[np.ndarray], pi: list[np.ndarray]) -> Player | None:
        """The player with the inactive levels whose marginal payoff ``gain[d][l]`` (dU/dpi) beats
        the active ones' put back (None if none does): the equilibrium's KKT check on the support."""
        active, changed = {}, False
        for d in self.free:
            on = self.active[d]
            best = float(gain[d][on].max())
            scale = max(float(np.abs(gain[d]).max()), 1e-300)
            back = [lv for lv in range(self.design.sizes[d]) if lv not in on and gain[d][lv] > best + 1e-9 * scale]
            active[d] = np.array(list(on) + back)
            changed |= bool(back)
        return self._with(active) if changed else None

    def _with(self, active: dict[int, np.ndarray]) -> Player:
        out = Player.__new__(Player)
        out.design, out.fixed, out.free, out.active = self.design, self.fixed, self.free, active
        out.offsets = np.concatenate([[0], np.cumsum([len(active[d]) - 1 for d in self.free])]).astype(int)
        out.n = int(out.offsets[-1])
        return out


class Game:
    """An estimator, both players and their penalties: payoffs as torch functions of logits."""

    def __init__(self, spec: GameSpec, estimator, lam: tuple[float, float], penalty: str) -> None:
        self.spec, self.est, self.lam, self.penalty = spec, estimator, lam, penalty
        self.set_players(Player(spec, 0), Player(spec, 1))
        self.centre = None  # the estimator's local surrogate in use (None: its plain value)

    def set_players(self, A: Player, B: Player) -> None:
        self.players = (A, B)
        self.sign = np.concatenate([np.ones(A.n), -np.ones(B.n)])

    def logits(self, pi_A, pi_B) -> np.ndarray:
        """The stacked logits of policies (lists of (L_d,)) in the current parametrisation."""
        return np.concatenate([self.players[0].logits(_concrete(pi_A)), self.players[1].logits(_concrete(pi_B))])

    def gains(self, pi_A, pi_B) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Each player's marginal payoff ``dU_P/dpi_P[d]`` (lists of (L_d,)) at the policies."""
        torch = _torch()
        own = [[torch.tensor(_concrete([p])[0], requires_grad=True) for p in pi] for pi in (pi_A, pi_B)]
        out = []
        for player in (0, 1):
            u = self.utility(player, own[player], [p.detach() for p in own[1 - player]])
            out.append([g.numpy() for g in torch.autograd.grad(u, own[player])])
        return out[0], out[1]

    def recentre(self, pi_A, pi_B, hessian: bool = True) -> None:
        """Use the estimator's surrogate centred at these policies (a no-op for exact estimators)."""
        self.centre = self.est.centre([_detach(p) for p in pi_A], [_detach(p) for p in pi_B], hessian)

    @contextmanager
    def centred(self, pi_A, pi_B, hessian: bool = True):
        """:meth:`recentre` for the duration of a block, then back to the previous centre."""
        previous = self.centre
        self.recentre(pi_A, pi_B, hessian)
        try:
            yield
        finally:
            self.centre = previous

    def split(self, w):
        return w[: self.players[0].n], w[self.players[0].n :]

    def policies(self, w):
        wA, wB = self.split(w)
        return self.players[0].policy(wA), self.players[1].policy(wB)

    def vote_share(self, pi_A, pi_B, theta=None):
        return self.est.value(pi_A, pi_B, theta, self.centre)

    def utility(self, player: int, pi_own, pi_other, theta=None):
        """``U_P`` for policies (lists of D tensors)."""
        pi_A, pi_B = (pi_own, pi_other) if player == 0 else (pi_other, pi_own)
        v = self.est.value(pi_A, pi_B, theta, self.centre)
        return (v if player == 0 else 1.0 - v) - self.lam[player] * penalty_value(self.spec.design, pi_own, self.penalty)

    def scalar(self, w, theta=None):
        """``S = V - lam_A Pen_A + lam_B Pen_B`` at the stacked logits ``w``."""
        pi_A, pi_B = self.policies(w)
        design = self.spec.design
        return (
            self.est.value(pi_A, pi_B, theta, self.centre)
            - self.lam[0] * penalty_value(design, pi_A, self.penalty)
            + self.lam[1] * penalty_value(design, pi_B, self.penalty)
        )

    def field(self, w: np.ndarray) -> np.ndarray:
        """``F(w)`` (n,): each player's payoff gradient in its own logits."""
        torch = _torch()
        if w.size == 0:
            return np.zeros(0)
        wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(self.scalar(wt), wt, allow_unused=True)
        return np.zeros_like(w) if g is None else self.sign * g.numpy()

    def field_jacobian(self, w: np.ndarray) -> np.ndarray:
        """``dF/dw`` (n, n) = diag(sign) times the Hessian of ``S`` (block-diagonal over the players
        where the estimator's value separates, :meth:`~cosolve.methods.conjoint.minimax_payoff.Estimator.separates`)."""
        torch = _torch()
        from cosolve.methods.conjoint.minimax_response import _rows_of_jacobian

        wt = torch.as_tensor(w, dtype=torch.float64)
        block = self.players[0].n if self.est.separates(self.centre) else None
        return self.sign[:, None] * _rows_of_jacobian(self.scalar, wt, wt, block).numpy()


def extragradient(game: Game, w: np.ndarray, *, step: float, max_iter: int, foc_tol: float, newton_switch: float):
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


def _newton(game: Game, w: np.ndarray, F: np.ndarray, norm: float, steps: int = 30):
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
    old = np.concatenate([p.numpy() for pi in game.policies(_tensor(w)) for p in pi])
    new = np.concatenate([p.numpy() for pi in game.policies(_tensor(w_new)) for p in pi])
    held = old > 0
    return bool(np.any(new[held] < 1e-3 * old[held]))


def solve_on_support(game: Game, w: np.ndarray, solve, *, max_iter: int, foc_tol: float, chunk: int = 500):
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
        pi_A, pi_B = (_numpy(p) for p in game.policies(_tensor(w)))
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


def recentred_solve(game: Game, w: np.ndarray, rounds: int, options: dict):
    """Solve the game on the Monte Carlo surrogate, re-centred at each solution (module docstring):
    ``(w, foc_norm, iterations)`` at the centre with the smallest Rao-Blackwellised ``|F|``. The samples
    move in jumps with the centre, so the iteration may settle on a short cycle of nearly equal points;
    it stops when the logits move by at most 1e-10, ``|F| <= foc_tol`` or after 3 rounds without a
    smaller ``|F|``."""
    best_w, best_norm, iterations, stale = w, np.inf, 0, 0
    for _ in range(rounds):
        game.recentre(*game.policies(_tensor(w)), hessian=False)
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
    game.recentre(*game.policies(_tensor(best_w)), hessian=False)
    return best_w, best_norm, iterations


def _concrete(pi) -> list[np.ndarray]:
    return [np.asarray(p.detach() if hasattr(p, "detach") else p, dtype=np.float64) for p in pi]


def _detach(p):
    return p.detach() if hasattr(p, "detach") else p


def _tensor(w: np.ndarray):
    torch = _torch()
    return torch.as_tensor(w, dtype=torch.float64)


def _numpy(pi) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in pi]
