"""Best responses and the averaging comparison of the conjoint game (issue 8).

- Best response of a player to a fixed opponent policy: a single-player average-case problem
  ``max U_P(pi_P)`` over its own product policy, not concave in general (``V`` is multilinear in the
  factors' policies, and with primaries or logit links it couples them). L-BFGS (strong Wolfe) on the
  free logits from the given starts, ``p0`` and ``n_starts`` random logits (to a gradient of 1e-9),
  each polished by Newton steps while the Hessian is negative definite. With the Monte Carlo
  estimator this runs on its first-order surrogate, re-centred at the result up to ``rounds`` times,
  and the result is scored by the plain value; with the L2 penalty the surrogate is the player's own
  control value plus a linear term, and its maximiser is found in numpy by SQP on the policy instead
  (:func:`surrogate_sqp`, the same rounds, supports exact). Then *vertex ascent* from each result's modal
  profile: coordinate ascent over pure profiles (it finds boundary optima, e.g. ``lam = 0``, that
  logits only approach; with an exact estimator ``V`` is multilinear and ``dV/dpi_d`` at a pure
  profile lists the vote share with factor ``d`` at each level). The best value of all is returned.
- With the Monte Carlo estimator the gaps compare plain values, so they are only as small as its
  optimisation noise (a best response can pick up favourable sampling error, of the order of
  ``mc_se`` times a few). Its vertex step scores all of a factor's levels in one pass over the samples.
- Averaging comparison (:func:`averaging_comparison`): what each party gets if it ignores the
  opponent and plays its average-case optimum against the other's randomised candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from cosolve.methods.conjoint.game.game_result import AveragingComparison
from cosolve.methods.conjoint.game.logit_game import Game, Player
from cosolve.methods.conjoint.game.party_problem import PartyProblem, party_problems, sqp
from cosolve.methods.conjoint.policy import QP_TOL
from cosolve.methods.conjoint.tensors import Policy, as_policy, torch_module

if TYPE_CHECKING:
    import torch


def best_response(
    game: Game,
    player: int,
    pi_other: Policy,
    starts: list[Policy],
    *,
    n_starts: int = 2,
    seed: int = 0,
    max_iter: int = 500,
    rounds: int = 10,
) -> tuple[float, list[np.ndarray]]:
    """``(value, pi)``: the best payoff ``U_P`` found against ``pi_other`` (list of (L_d,)) and the policy
    (list of numpy (L_d,)) that attains it; ``starts``: extra initial policies (module docstring)."""
    torch = torch_module()
    P = Player(game.spec, player)  # every level, whatever the equilibrium's support
    other = as_policy(pi_other)

    def u_of_w(w):
        return game.utility(player, P.policy(w), other)

    if P.n == 0:
        pi = P.policy(torch.zeros(0, dtype=torch.float64))
        return float(u_of_w(torch.zeros(0, dtype=torch.float64))), [p.numpy() for p in pi]
    rng = np.random.default_rng(seed)
    p0 = game.spec.design.p0
    inits = [P.logits([(1 - 1e-3) * np.asarray(p) + 1e-3 * q for p, q in zip(s, p0, strict=True)]) for s in starts]
    inits += [P.initial()]
    inits += [rng.normal(0.0, 1.5, P.n) for _ in range(n_starts)]
    best_value, best_pi = -np.inf, None
    problem = None
    if not game.est.multilinear and game.penalty == "l2":  # the surrogate's best response is a numpy problem
        problem = party_problems(game.spec, game.lam)[0][player]
    for w0 in inits:
        w = torch.as_tensor(w0, dtype=torch.float64)
        if problem is not None:
            pi = as_policy(surrogate_sqp(game, player, problem, [p.detach().numpy() for p in P.policy(w)], other, rounds))
            found = float(game.utility(player, pi, other))
        else:
            for _ in range(1 if game.est.multilinear else rounds):
                own = P.policy(w)
                with game.centred(*((own, other) if player == 0 else (other, own)), hessian=False):
                    w_new = newton_polish(u_of_w, lbfgs(u_of_w, w.numpy(), max_iter))
                shift, w = float((w_new - w).abs().max()), w_new
                if shift <= 1e-9:
                    break
            pi = [p.detach() for p in P.policy(w)]
            found = float(u_of_w(w))
        for value, cand in ((found, pi), _vertex_ascent(game, player, other, pi)):
            if value > best_value:
                best_value, best_pi = value, [p.numpy().copy() for p in cand]
    return best_value, best_pi


def surrogate_sqp(
    game: Game, player: int, problem: PartyProblem, pi: list[np.ndarray], other: list[torch.Tensor], rounds: int
) -> list[np.ndarray]:
    """The Monte Carlo best response with the L2 penalty in numpy: the surrogate centred at ``pi`` (list
    of (L_d,)) is the control value, separable (the player's ``N_P``,
    :func:`~cosolve.methods.conjoint.game.party_problem.party_problems`), plus the residual's first-order
    term ``g . pi`` (``+g_A`` for A, ``-g_B`` for B), so its maximiser is a local SQP solve from ``pi``
    (the supports exact, no logits); re-centred there up to ``rounds`` times, until the policy moves at
    most 1e-9. Returns the policy (list of (L_d,))."""
    design = game.spec.design
    starts = design.level_offsets
    free = np.concatenate([np.arange(starts[d], starts[d + 1]) for d in game.spec.free(player)] + [np.zeros(0, dtype=np.int64)])
    x = np.concatenate(pi)
    tol = QP_TOL * max(float(np.abs(problem.gradient(x)).max()), float(np.abs(problem.hessian(x)).max()), 1e-300)
    for _ in range(rounds):
        own = as_policy(np.split(x, starts[1:-1]))
        g = game.est.gradient(player, *((own, other) if player == 0 else (other, own)))
        linear = np.zeros(x.size)
        linear[free] = g if player == 0 else -g
        x_new, _, _ = sqp(replace(problem, linear=linear), x, tol)
        shift, x = float(np.abs(x_new - x).max()), x_new
        if shift <= 1e-9:
            break
    return np.split(x, starts[1:-1])


def lbfgs(f: Callable[[torch.Tensor], torch.Tensor], w0: np.ndarray, max_iter: int) -> torch.Tensor:
    torch = torch_module()
    w = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS(
        [w],
        lr=1.0,
        max_iter=max_iter,
        tolerance_grad=1e-9,
        tolerance_change=1e-300,
        history_size=50,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = -f(w)
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach()


def newton_polish(f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor, steps: int = 20) -> torch.Tensor:
    """Newton steps while the Hessian is negative definite and ``f`` does not drop."""
    torch = torch_module()
    from torch.func import grad, jacrev

    best = float(f(w))
    for _ in range(steps):
        g = grad(f)(w)
        if float(g.abs().max()) <= 1e-15:
            break
        H = jacrev(jacrev(f))(w)
        top = torch.linalg.eigvalsh(H)
        if float(top.max()) >= -1e-12 * max(float(top.abs().max()), 1e-300):
            break  # not (safely) negative definite
        candidate = w - torch.linalg.solve(H, g)
        value = float(f(candidate))
        if not np.isfinite(value) or value < best - 1e-15:
            break
        w, best = candidate, value
    return w


def _vertex_penalty(p0: np.ndarray, penalty: str) -> np.ndarray:
    """``Pen`` of each point mass of one factor (L_d,)."""
    if penalty == "l2":
        return 1.0 - 2.0 * p0 + float((p0**2).sum())
    return -np.log(p0)


def _vertex_ascent(
    game: Game, player: int, other: list[torch.Tensor], pi_start: Policy, sweeps: int = 50
) -> tuple[float, list[torch.Tensor]]:
    """Coordinate ascent over the player's pure profiles from the modal profile of ``pi_start``: with a
    multilinear estimator one gradient per factor gives every level's vote share, else the Monte Carlo
    estimator's plain values of all the factor's levels in one pass
    (:meth:`~cosolve.methods.conjoint.game.monte_carlo.MonteCarlo.level_values`; the game's surrogate is not
    in use here)."""
    torch = torch_module()
    design, free = game.spec.design, game.spec.free(player)
    levels = [int(np.argmax(np.asarray(p))) for p in pi_start]
    pens = [_vertex_penalty(np.asarray(p0), game.penalty) for p0 in design.p0]

    def pure():
        return [torch.eye(size, dtype=torch.float64)[lv] for size, lv in zip(design.sizes, levels, strict=True)]

    def shares(d):
        own = pure()
        if game.est.multilinear:
            own[d].requires_grad_(True)
            pair = (own, other) if player == 0 else (other, own)
            (g,) = torch.autograd.grad(game.vote_share(*pair), own[d])
            return g.numpy()
        return game.est.level_values(player, own, other, d)

    for _ in range(sweeps):
        changed = False
        for d in free:
            v = shares(d)
            score = (v if player == 0 else -v) - game.lam[player] * pens[d]
            top = int(np.argmax(score))
            if score[top] > score[levels[d]] + 1e-15:
                levels[d], changed = top, True
        if not changed:
            break
    own = pure()
    return float(game.utility(player, own, other)), own


def averaging_comparison(
    game: Game, eq_A: list[np.ndarray], eq_B: list[np.ndarray], *, n_starts: int = 2, seed: int = 0
) -> AveragingComparison:
    """Each party's average-case optimum against the other's randomised candidate, and the vote shares
    of :class:`~cosolve.methods.conjoint.game.game_result.AveragingComparison` (the best responses start from
    the equilibrium ``eq_A``/``eq_B`` too, besides ``p0`` and random starts)."""
    spec = game.spec
    _, avg_A = best_response(game, 0, spec.reference(1), [eq_A], n_starts=n_starts, seed=seed)
    _, avg_B = best_response(game, 1, spec.reference(0), [eq_B], n_starts=n_starts, seed=seed + 1)
    _, br_B = best_response(game, 1, avg_A, [eq_B], n_starts=n_starts, seed=seed + 2)
    _, br_A = best_response(game, 0, avg_B, [eq_A], n_starts=n_starts, seed=seed + 3)

    def v(a, b) -> float:
        return float(game.vote_share(as_policy(a), as_policy(b)))

    return AveragingComparison(avg_A, avg_B, v(avg_A, avg_B), v(avg_A, eq_B), v(eq_A, avg_B), v(avg_A, br_B), v(br_A, avg_B))
