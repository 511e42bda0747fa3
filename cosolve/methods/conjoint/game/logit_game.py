"""The conjoint game in softmax logits (issue 8): each party's parametrisation (:class:`Player`) and the
game's payoffs, first-order conditions and their Jacobian as torch functions of the stacked logits
(:class:`Game`), with :func:`rows_of_jacobian`, the second derivatives they and the delta method take.

Each player's free factors are softmax logits with the baseline pinned to 0 (as in
:mod:`~cosolve.methods.conjoint.gradient`); a player may hold only some levels of a factor active (the
others at probability 0), which the solver's supports use. The first-order conditions are ``F(w) =
(dU_A/dw_A, dU_B/dw_B) = (dS/dw_A, -dS/dw_B) = 0`` with ``S = V - lam_A Pen_A + lam_B Pen_B``, ``V`` A's
vote share from the game's estimator (:mod:`~cosolve.methods.conjoint.game.payoff`) and ``Pen`` the L2 or
KL penalty of the average case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from cosolve.methods.conjoint.game.payoff import Estimator, GameSpec
from cosolve.methods.conjoint.gradient import penalty_value
from cosolve.methods.conjoint.tensors import Policy, concrete, detach, torch_module

if TYPE_CHECKING:
    import torch


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

    def policy(self, w: torch.Tensor) -> list[torch.Tensor]:
        """torch: the D policies (L_d,) from the logits ``w`` (n,)."""
        torch = torch_module()
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

    def __init__(self, spec: GameSpec, estimator: Estimator, lam: tuple[float, float], penalty: str) -> None:
        self.spec, self.est, self.lam, self.penalty = spec, estimator, lam, penalty
        self.set_players(Player(spec, 0), Player(spec, 1))
        self.centre = None  # the estimator's local surrogate in use (None: its plain value)

    def set_players(self, A: Player, B: Player) -> None:
        self.players = (A, B)
        self.sign = np.concatenate([np.ones(A.n), -np.ones(B.n)])

    def logits(self, pi_A: Policy, pi_B: Policy) -> np.ndarray:
        """The stacked logits of policies (lists of (L_d,)) in the current parametrisation."""
        return np.concatenate(
            [self.players[0].logits([concrete(p) for p in pi_A]), self.players[1].logits([concrete(p) for p in pi_B])]
        )

    def gains(self, pi_A: Policy, pi_B: Policy) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Each player's marginal payoff ``dU_P/dpi_P[d]`` (lists of (L_d,)) at the policies."""
        torch = torch_module()
        own = [[torch.tensor(concrete(p), requires_grad=True) for p in pi] for pi in (pi_A, pi_B)]
        out = []
        for player in (0, 1):
            u = self.utility(player, own[player], [p.detach() for p in own[1 - player]])
            out.append([g.numpy() for g in torch.autograd.grad(u, own[player])])
        return out[0], out[1]

    def recentre(self, pi_A: Policy, pi_B: Policy, hessian: bool = True) -> None:
        """Use the estimator's surrogate centred at these policies (a no-op for exact estimators)."""
        self.centre = self.est.centre([detach(p) for p in pi_A], [detach(p) for p in pi_B], hessian)

    @contextmanager
    def centred(self, pi_A: Policy, pi_B: Policy, hessian: bool = True) -> Iterator[None]:
        """:meth:`recentre` for the duration of a block, then back to the previous centre."""
        previous = self.centre
        self.recentre(pi_A, pi_B, hessian)
        try:
            yield
        finally:
            self.centre = previous

    def split(self, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return w[: self.players[0].n], w[self.players[0].n :]

    def policies(self, w: torch.Tensor) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        wA, wB = self.split(w)
        return self.players[0].policy(wA), self.players[1].policy(wB)

    def vote_share(self, pi_A: list[torch.Tensor], pi_B: list[torch.Tensor], theta: torch.Tensor | None = None) -> torch.Tensor:
        return self.est.value(pi_A, pi_B, theta, self.centre)

    def utility(
        self, player: int, pi_own: list[torch.Tensor], pi_other: list[torch.Tensor], theta: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``U_P`` for policies (lists of D tensors)."""
        pi_A, pi_B = (pi_own, pi_other) if player == 0 else (pi_other, pi_own)
        v = self.est.value(pi_A, pi_B, theta, self.centre)
        return (v if player == 0 else 1.0 - v) - self.lam[player] * penalty_value(self.spec.design, pi_own, self.penalty)

    def scalar(self, w: torch.Tensor, theta: torch.Tensor | None = None) -> torch.Tensor:
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
        torch = torch_module()
        if w.size == 0:
            return np.zeros(0)
        wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(self.scalar(wt), wt, allow_unused=True)
        return np.zeros_like(w) if g is None else self.sign * g.numpy()

    def field_jacobian(self, w: np.ndarray) -> np.ndarray:
        """``dF/dw`` (n, n) = diag(sign) times the Hessian of ``S`` (block-diagonal over the players
        where the estimator's value separates, :meth:`~cosolve.methods.conjoint.game.payoff.Estimator.separates`)."""
        torch = torch_module()
        wt = torch.as_tensor(w, dtype=torch.float64)
        block = self.players[0].n if self.est.separates(self.centre) else None
        return self.sign[:, None] * rows_of_jacobian(self.scalar, wt, wt, block).numpy()


def rows_of_jacobian(
    objective: Callable[..., torch.Tensor], w: torch.Tensor, wrt: torch.Tensor, block: int | None = None
) -> torch.Tensor:
    """``d/d wrt (grad_w objective)`` (w.numel(), wrt.numel()): ``objective(w)`` or ``objective(w, wrt)``
    (``wrt`` is ``w`` itself for the Hessian), one backward pass per row through a single graph of the
    gradient (torch.func's vmapped ``jacrev`` batches these passes but ran 3x slower on the Monte
    Carlo surrogate's gathers). With ``block``, a Hessian known to be block-diagonal over
    ``w[:block]`` and ``w[block:]``: row ``k`` and row ``block + k`` share one pass (their columns do not overlap)."""
    torch = torch_module()
    w_ = w.detach().clone().requires_grad_(True)
    if wrt is w:
        inputs, out = w_, objective(w_)
    else:
        inputs = wrt.detach().clone().requires_grad_(True)
        out = objective(w_, inputs)
    (g,) = torch.autograd.grad(out, w_, create_graph=True)
    n = g.numel()
    rows = torch.zeros((n, inputs.numel()), dtype=torch.float64)
    if not g.requires_grad:
        return rows
    if block is None:
        groups = [[(k, slice(None))] for k in range(n)]
    else:
        A, B = slice(0, block), slice(block, n)
        groups = [[(k, A)] * (k < block) + [(block + k, B)] * (block + k < n) for k in range(max(block, n - block))]
    for group in groups:
        row = torch.autograd.grad(sum(g[k] for k, _ in group), inputs, retain_graph=True, allow_unused=True)[0]
        if row is not None:
            for k, cols in group:
                rows[k, cols] = row[cols]
    return rows
