"""Best responses, the delta method and the averaging comparison of the conjoint game (issue 8).

- Best response of a player to a fixed opponent policy: a single-player average-case problem
  ``max U_P(pi_P)`` over its own product policy, not concave in general (``V`` is multilinear in the
  factors' policies, and with primaries or logit links it couples them). L-BFGS (strong Wolfe) on the
  free logits from the given starts, ``p0`` and ``n_starts`` random logits (to a gradient of 1e-9),
  each polished by Newton steps while the Hessian is negative definite. With the Monte Carlo
  estimator this runs on its first-order surrogate, re-centred at the result up to ``rounds`` times,
  and the result is scored by the plain value; with the L2 penalty the surrogate is the player's own
  control value plus a linear term, and its maximiser is found in numpy by SQP on the policy instead
  (:func:`_surrogate_sqp`, the same rounds, supports exact). Then *vertex ascent* from each result's modal
  profile: coordinate ascent over pure profiles (it finds boundary optima, e.g. ``lam = 0``, that
  logits only approach; with an exact estimator ``V`` is multilinear and ``dV/dpi_d`` at a pure
  profile lists the vote share with factor ``d`` at each level). The best value of all is returned.
- With the Monte Carlo estimator the gaps compare plain values, so they are only as small as its
  optimisation noise (a best response can pick up favourable sampling error, of the order of
  ``mc_se`` times a few). Its vertex step scores all of a factor's levels in one pass over the samples.
- Delta method: at the equilibrium ``grad_w S(w; theta) = 0`` (``S`` of the minimax module, whose
  stationarity in each player's own logits is the pair of first-order conditions), so
  ``dw/dtheta = -H_ww^{-1} H_w,theta`` (the sign flip of B's conditions cancels) and
  ``dV*/dtheta = dV/dtheta + dV/dw dw/dtheta``; ``Var = J Sigma J^T`` with ``Sigma`` block-diagonal over
  the distinct, independently fit models. With the Monte Carlo estimator this runs on its surrogate
  (with second-order terms) centred at the equilibrium, the common random numbers held fixed: the
  parameter uncertainty only.
"""

from __future__ import annotations

import numpy as np

#: Levels of a best response at or below this probability are outside its support in the delta method.
SUPPORT_FLOOR = 1e-8


def _torch():
    import torch

    return torch


def as_policy(pi):
    """Policies (lists of (L_d,), numpy or torch) as float64 tensors."""
    torch = _torch()
    return [torch.as_tensor(np.asarray(p.detach() if hasattr(p, "detach") else p), dtype=torch.float64) for p in pi]


def best_response(
    game, player: int, pi_other, starts, *, n_starts: int = 2, seed: int = 0, max_iter: int = 500, rounds: int = 10
):
    """``(value, pi)``: the best payoff ``U_P`` found against ``pi_other`` (list of (L_d,)) and the policy
    (list of numpy (L_d,)) that attains it; ``starts``: extra initial policies (module docstring)."""
    torch = _torch()
    from cosolve.methods.conjoint.minimax_solver import Player

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
        from cosolve.methods.conjoint.minimax_primaries import party_problems

        problem = party_problems(game.spec, game.lam)[0][player]
    for w0 in inits:
        w = torch.as_tensor(w0, dtype=torch.float64)
        if problem is not None:
            pi = as_policy(_surrogate_sqp(game, player, problem, [p.detach().numpy() for p in P.policy(w)], other, rounds))
            found = float(game.utility(player, pi, other))
        else:
            for _ in range(1 if game.est.multilinear else rounds):
                own = P.policy(w)
                with game.centred(*((own, other) if player == 0 else (other, own)), hessian=False):
                    w_new = _newton_polish(u_of_w, _lbfgs(u_of_w, w.numpy(), max_iter))
                shift, w = float((w_new - w).abs().max()), w_new
                if shift <= 1e-9:
                    break
            pi = [p.detach() for p in P.policy(w)]
            found = float(u_of_w(w))
        for value, cand in ((found, pi), _vertex_ascent(game, player, other, pi)):
            if value > best_value:
                best_value, best_pi = value, [p.numpy().copy() for p in cand]
    return best_value, best_pi


def _surrogate_sqp(game, player: int, problem, pi: list[np.ndarray], other, rounds: int) -> list[np.ndarray]:
    """The Monte Carlo best response with the L2 penalty in numpy: the surrogate centred at ``pi`` (list
    of (L_d,)) is the control value, separable (the player's ``N_P``,
    :func:`~cosolve.methods.conjoint.minimax_primaries.party_problems`), plus the residual's first-order
    term ``g . pi`` (``+g_A`` for A, ``-g_B`` for B), so its maximiser is a local SQP solve from ``pi``
    (the supports exact, no logits); re-centred there up to ``rounds`` times, until the policy moves at
    most 1e-9. Returns the policy (list of (L_d,))."""
    from dataclasses import replace

    from cosolve.methods.conjoint.minimax_primaries import _sqp
    from cosolve.methods.conjoint.policy import QP_TOL

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
        x_new, _, _ = _sqp(replace(problem, linear=linear), x, tol)
        shift, x = float(np.abs(x_new - x).max()), x_new
        if shift <= 1e-9:
            break
    return np.split(x, starts[1:-1])


def _lbfgs(f, w0: np.ndarray, max_iter: int):
    torch = _torch()
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


def _newton_polish(f, w, steps: int = 20):
    """Newton steps while the Hessian is negative definite and ``f`` does not drop."""
    torch = _torch()
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


def _vertex_ascent(game, player: int, other, pi_start, sweeps: int = 50):
    """Coordinate ascent over the player's pure profiles from the modal profile of ``pi_start``: with a
    multilinear estimator one gradient per factor gives every level's vote share, else the Monte Carlo
    estimator's plain values of all the factor's levels in one pass
    (:meth:`~cosolve.methods.conjoint.minimax_mc.MonteCarlo.level_values`; the game's surrogate is not
    in use here)."""
    torch = _torch()
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


def delta_method(game, w: np.ndarray):
    """``(vote_share_se, pi_se_A, pi_se_B, jac_vote_share, jac_pi_A, jac_pi_B)`` at the equilibrium
    logits ``w`` (module docstring); ``jac_pi_P`` (sum_d L_d, n_params) over all levels of P's policy."""
    torch = _torch()
    spec = game.spec
    theta = torch.as_tensor(spec.stacked_params(), dtype=torch.float64)
    wt = torch.as_tensor(w, dtype=torch.float64)

    def vote(w_, th):
        pi_A, pi_B = game.policies(w_)
        return game.vote_share(pi_A, pi_B, th)

    def levels(w_):
        pi_A, pi_B = game.policies(w_)
        return torch.cat(pi_A + pi_B)

    with game.centred(*game.policies(wt), hessian=True):
        jac_v, jac_pi = _implicit_jacobians(game.scalar, vote, levels, wt, theta, 2 * sum(spec.design.sizes))
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    D, half = spec.design.n_factors, sum(spec.design.sizes)
    return se_v, se_pi[:D], se_pi[D:], jac_v, jac_pi[:half], jac_pi[half:]


def response_delta_method(game, player: int, pi_own, pi_other):
    """``(value_se, pi_se, jac_value, jac_pi)`` of a best response ``pi_own`` (list of (L_d,)) to the
    fixed ``pi_other``: the player's first-order conditions ``grad_w U_P(w; theta) = 0`` on the
    response's support (levels of probability at most ``SUPPORT_FLOOR`` are held at 0) give ``dw/dtheta``, and the value is
    the player's expected vote share (A's ``V``, or B's ``1 - V``)."""
    torch = _torch()
    from cosolve.methods.conjoint.minimax_solver import Player

    spec = game.spec
    own = [np.asarray(p, dtype=np.float64) for p in pi_own]
    active = {}
    for d in spec.free(player):
        top = int(np.argmax(own[d]))
        active[d] = np.array([top] + [lv for lv in np.flatnonzero(own[d] > SUPPORT_FLOOR) if lv != top])
    P = Player(spec, player, active)
    other = as_policy(pi_other)
    theta = torch.as_tensor(spec.stacked_params(), dtype=torch.float64)
    wt = torch.as_tensor(P.logits(own), dtype=torch.float64)

    def pair(w_):
        mine = P.policy(w_)
        return (mine, other) if player == 0 else (other, mine)

    def payoff(w_, th):
        return game.utility(player, P.policy(w_), other, th)

    def value(w_, th):
        v = game.vote_share(*pair(w_), th)
        return v if player == 0 else 1.0 - v

    with game.centred(*pair(wt), hessian=True):
        jac_v, jac_pi = _implicit_jacobians(payoff, value, lambda w_: torch.cat(P.policy(w_)), wt, theta, sum(spec.design.sizes))
    se_v, se_pi = standard_errors(spec, jac_v, jac_pi)
    return se_v, se_pi, jac_v, jac_pi


def _implicit_jacobians(objective, value, levels, w, theta, n_levels: int):
    """``(d value*/d theta (n_params,), d levels*/d theta (n_levels, n_params))``, numpy, at a
    stationary point ``w`` of ``objective(w, theta)`` in ``w``: ``dw/dtheta = -H_ww^{-1} H_w,theta``
    (NaN where ``H_ww`` is singular: the stationary point is not locally unique). ``theta`` is the
    bound params of the estimator, so ``H_ww`` is taken with ``objective(w, None)`` (the same
    function, without carrying the params through the estimator's constants)."""
    torch = _torch()
    from torch.autograd.functional import jacobian

    w_, th = w.detach().clone().requires_grad_(True), theta.detach().clone().requires_grad_(True)
    g_w, g_th = (
        torch.zeros_like(x) if g is None else g
        for g, x in zip(torch.autograd.grad(value(w_, th), (w_, th), allow_unused=True), (w_, th), strict=True)
    )
    if not w.numel():
        return g_th.detach().numpy(), np.zeros((n_levels, theta.numel()))
    H = _rows_of_jacobian(lambda w_: objective(w_, None), w, w)  # at the bound params: none carried through
    M = _rows_of_jacobian(objective, w, theta)
    try:
        dw = -torch.linalg.solve(H, M)
    except RuntimeError:
        dw = torch.full_like(M, float("nan"))
    return (g_th + g_w @ dw).detach().numpy(), (jacobian(levels, w) @ dw).detach().numpy()


def _rows_of_jacobian(objective, w, wrt, block: int | None = None):
    """``d/d wrt (grad_w objective)`` (w.numel(), wrt.numel()): ``objective(w)`` or ``objective(w, wrt)``
    (``wrt`` is ``w`` itself for the Hessian), one backward pass per row through a single graph of the
    gradient (torch.func's vmapped ``jacrev`` batches these passes but ran 3x slower on the Monte
    Carlo surrogate's gathers). With ``block``, a Hessian known to be block-diagonal over
    ``w[:block]`` and ``w[block:]``: row ``k`` and row ``block + k`` share one pass (their columns do not overlap)."""
    torch = _torch()
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


def standard_errors(spec, jac_v: np.ndarray, jac_pi: np.ndarray) -> tuple[float, list[np.ndarray]]:
    """The value's standard error and the levels' (split per factor, one or more policies stacked)
    from Jacobians in the stacked parameters, whose covariance is block-diagonal over the models."""
    var_v, var_pi = 0.0, np.zeros(jac_pi.shape[0])
    for model, block in zip(spec.models, spec.slices, strict=True):  # Sigma block by block
        var_v += float(jac_v[block] @ model.cov @ jac_v[block])
        var_pi += ((jac_pi[:, block] @ model.cov) * jac_pi[:, block]).sum(1)
    se_pi = np.sqrt(np.clip(var_pi, 0.0, None))
    sizes = list(spec.design.sizes) * (jac_pi.shape[0] // sum(spec.design.sizes))
    return float(np.sqrt(max(var_v, 0.0))), np.split(se_pi, np.cumsum(sizes)[:-1])


def averaging_comparison(game, eq_A: list[np.ndarray], eq_B: list[np.ndarray], *, n_starts: int = 2, seed: int = 0):
    """Each party's average-case optimum against the other's randomised candidate, and the vote shares
    of :class:`~cosolve.methods.conjoint.minimax.AveragingComparison` (the best responses start from
    the equilibrium ``eq_A``/``eq_B`` too, besides ``p0`` and random starts)."""
    from cosolve.methods.conjoint.minimax import AveragingComparison

    spec = game.spec
    _, avg_A = best_response(game, 0, spec.reference(1), [eq_A], n_starts=n_starts, seed=seed)
    _, avg_B = best_response(game, 1, spec.reference(0), [eq_B], n_starts=n_starts, seed=seed + 1)
    _, br_B = best_response(game, 1, avg_A, [eq_B], n_starts=n_starts, seed=seed + 2)
    _, br_A = best_response(game, 0, avg_B, [eq_A], n_starts=n_starts, seed=seed + 3)

    def v(a, b) -> float:
        return float(game.vote_share(as_policy(a), as_policy(b)))

    return AveragingComparison(avg_A, avg_B, v(avg_A, avg_B), v(avg_A, eq_B), v(eq_A, avg_B), v(avg_A, br_B), v(br_A, avg_B))
