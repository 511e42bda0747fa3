"""The Monte Carlo estimator of the conjoint game's vote share (issue 8; torch, float64).

``V = E[C] + E[R]`` (:mod:`~cosolve.methods.conjoint.game.payoff`): the control value ``E[C]`` of the
linearised links is exact; the residual ``R = F - C`` of the true integrand ``F`` (the nominee choice
integrated analytically: ``F = sum_g s_g sum_{a, b} W_A[a] W_B[b] P_g(a, b)`` over ``a in {x_A, x'_A}``,
``b in {x_B, x'_B}`` with weights ``(w, 1 - w)``) is small, ``O(s^3 / 48)`` for logit links, and is
estimated with common random numbers: M uniforms per factor and slot (entrant and opponent of each
party), drawn once from ``seed``; profiles by the inverse CDF of the policy at those uniforms.

- The *plain* value ``E[C] + mean_m R_m`` at samples of the policies is unbiased, bounded and
  deterministic given the seed, but piecewise constant in the policies (the samples jump).
- The *surrogate* centred at policies ``pi_0``, for optimisation: ``V`` is multilinear in the factors'
  policies, so ``dE[R]/dpi_P[d][l] = E[R | x_P,d = l]`` and ``d2E[R]/dpi_P[d][l] dpi_Q[e][m] =
  E[R | x_P,d = l, x_Q,e = m]`` (zero within a factor). Estimating these Rao-Blackwellised averages
  on the samples of ``pi_0`` with the coordinates substituted (``r0``, ``g``, ``H``; predictors updated
  in closed form, :meth:`MonteCarlo.singles`, :meth:`MonteCarlo.pair_correction`) gives the smooth
  ``E[C](pi) + r0 + g . (pi - pi_0) + (pi - pi_0)^T H (pi - pi_0) / 2``, exact in value, gradient and
  Hessian at ``pi_0`` up to Monte Carlo error, and differentiable in the models' parameters. Solvers
  re-centre it at their solution; a fixed point satisfies the Rao-Blackwellised first-order
  conditions. (Importance weights would make one smooth function of the policies, but a best response
  exploits them without bound; smoothed inverse CDFs stay bounded but their curvature is noise of
  order ``1 / tau``.)

The Monte Carlo error of the value is ``sd(R_m) / sqrt(M)`` (:meth:`MonteCarlo.mc_se`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cosolve.methods.conjoint.game.payoff import KAPPA, Estimator, GameSpec, Predictor, link_value
from cosolve.methods.conjoint.tensors import Policy, concrete, torch_module

if TYPE_CHECKING:
    import torch


class MonteCarlo(Estimator):
    """The ``mc`` estimator (module docstring): M = ``n_samples`` common random numbers from ``seed``.

    ``value(pi_A, pi_B)`` is the plain Monte Carlo value at the policies; ``value(..., centre=c)`` the
    smooth Rao-Blackwellised surrogate of :meth:`centre` ``c``; ``chunk`` samples at a time make the
    Hessian blocks. With a centre, ``theta`` (the delta method's) enters the surrogate's ``r0``, ``gA``,
    ``gB`` through their first-order expansion at the bound params (:meth:`first_order_jacobian`): the
    value and first derivatives in ``theta`` are exact there, and there only."""

    def __init__(self, spec: GameSpec, n_samples: int = 2000, seed: int = 0, chunk: int = 128) -> None:
        torch = torch_module()
        self.exact = spec.all_identity
        self.multilinear = self.exact
        self.use_residual = True  # False: the control value alone (the linearised game)
        self.M, self.chunk = n_samples, chunk
        D = spec.design.n_factors
        slots = 2 if spec.primaries is None else 4
        self.uniforms = np.random.default_rng(seed).random((slots, n_samples, D))
        self.opponents = []
        if spec.primaries is not None:
            for p in (0, 1):
                self.opponents.append(torch.as_tensor(self.samples(spec.reference(p), 2 + p)))
        self.coords = []
        for p in (0, 1):
            free = spec.free(p)
            kd = np.concatenate([np.full(spec.design.sizes[d], d) for d in free] + [np.zeros(0, dtype=np.int64)])
            kl = np.concatenate([np.arange(spec.design.sizes[d]) for d in free] + [np.zeros(0, dtype=np.int64)])
            self.coords.append((torch.as_tensor(kd.astype(np.int64)), torch.as_tensor(kl.astype(np.int64))))
        pairs = np.array(spec.design.pairs, dtype=np.int64).reshape(-1, 2)
        self.pair_d, self.pair_e = torch.as_tensor(pairs[:, 0]), torch.as_tensor(pairs[:, 1])
        super().__init__(spec)

    def samples(self, pi: list[np.ndarray], slot: int) -> np.ndarray:
        """Profiles (M, D) by the inverse CDF of ``pi`` (list of (L_d,)) at the slot's uniforms."""
        D = len(pi)
        return np.stack([_inverse_cdf(np.asarray(pi[d], dtype=np.float64), self.uniforms[slot, :, d]) for d in range(D)], axis=1)

    def _constants(self, theta: torch.Tensor) -> dict:
        out = super()._constants(theta)
        out["preds"] = [self.pad.predictor(t, m.interactions) for t, m in zip(out["theta"], self.spec.models, strict=True)]
        if self.opponents:
            out["opp"] = [[self.predict(pr, X) for pr in out["preds"]] for X in self.opponents]
        return out

    def predict(self, pred: Predictor, X: torch.Tensor) -> torch.Tensor:
        """``f(x)`` (N,) of the profiles ``X`` (N, D) from a padded predictor."""
        torch = torch_module()
        a, A = pred
        f = a[torch.arange(a.shape[0])[None, :], X].sum(1)
        if A is not None and self.pair_d.numel():
            f = f + A[self.pair_d[None, :], self.pair_e[None, :], X[:, self.pair_d], X[:, self.pair_e]].sum(1)
        return f

    def singles(self, pred: Predictor, X: torch.Tensor, player: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``(f (M,), S1 (M, n_P))``: the predictor at the samples ``X`` and with one free factor ``d``
        of the player set to ``l`` (coordinate ``(d, l)``): ``f - G[d, x_d] + G[d, l]``, where
        ``G[m, d, l] = a_d[l] + sum_e A_de[l, x_me]`` collects the terms that involve factor ``d``."""
        torch = torch_module()
        a, A = pred
        kd, kl = self.coords[player]
        f = self.predict(pred, X)
        if A is None:  # G[m, d, l] = a_d[l] for every sample
            return f, f[:, None] - a[kd[None, :], X[:, kd]] + a[kd, kl][None, :]
        G = a[None] + A.permute(1, 3, 0, 2)[torch.arange(a.shape[0])[None, :], X].sum(1)
        rows = torch.arange(X.shape[0])[:, None]
        return f, f[:, None] - G[rows, kd[None, :], X[:, kd]] + G[rows, kd[None, :], kl[None, :]]

    def pair_correction(
        self, pred: Predictor, X: torch.Tensor, kd: tuple[torch.Tensor, torch.Tensor], kl: tuple[torch.Tensor, torch.Tensor]
    ) -> torch.Tensor | float:
        """``(m, k)`` term that turns ``S1[i] + S1[j] - f`` into the predictor with both coordinates
        ``i = (d, l)``, ``j = (e, l')`` set, for ``k`` pairs of them given by their factors ``kd = (d, e)``
        and levels ``kl = (l, l')`` (each (k,)): ``A_de[l, l'] - A_de[l, x_e] - A_de[x_d, l'] +
        A_de[x_d, x_e]`` (0, as a scalar, for main-effect models)."""
        A = pred[1]
        if A is None:
            return 0.0
        D, L = A.shape[0], A.shape[2]
        flat = A.reshape(-1)
        di, dj, li, lj = kd[0], kd[1], kl[0], kl[1]
        block = (di * D + dj) * L  # (k,)
        xi, xj = X[:, di], X[:, dj]

        def at(i, j):
            return flat[(block + i) * L + j]

        return at(li, lj)[None] - at(li, xj) - at(xi, lj) + at(xi, xj)

    def cross_pairs(self, player: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``(left, right)`` (k,) each: the player's coordinate pairs ``i < j`` of different factors."""
        torch = torch_module()
        kd = self.coords[player][0]
        left, right = torch.triu_indices(kd.numel(), kd.numel(), 1)
        keep = kd[left] != kd[right]
        return left[keep], right[keep]

    def residual(
        self,
        fA: list[torch.Tensor],
        fB: list[torch.Tensor],
        oA: list[torch.Tensor] | None = None,
        oB: list[torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """``R = F - C`` (module docstring) from the entrants' predictor values ``fA``, ``fB`` and the
        primaries' opponents' ``oA``, ``oB`` (lists over ``spec.models`` of broadcastable tensors)."""
        spec, models = self.spec, self.spec.models
        if spec.primaries is None:
            cand_A, cand_B, WA, WB, WAl, WBl = [fA], [fB], [1.0], [1.0], [1.0], [1.0]
        else:
            cand_A, cand_B = [fA, oA], [fB, oB]
            WA, WB, WAl, WBl = [], [], [], []
            for p, (W, Wl, cand) in enumerate(((WA, WAl, cand_A), (WB, WBl, cand_B))):
                i = spec.primaries[p]
                s = cand[0][i] - cand[1][i]
                w = link_value(models[i].link, s)
                wl = 0.5 + KAPPA[models[i].link] * s
                W += [w, 1.0 - w]
                Wl += [wl, 1.0 - wl]
        # sum_ab WA_a WB_b P(a, b) summed over b first (the opponents' terms keep the narrower shape of
        # their inputs), less its linearisation sum_ab WAl_a WBl_b (0.5 + kappa s_ab) = 0.5 + kappa
        # (sum_a WAl_a f_a - sum_b WBl_b f_b) (the weights of each party sum to 1)
        R = 0.0
        for g, i in enumerate(spec.general):
            link, kap = models[i].link, KAPPA[models[i].link]
            true = sum(
                WA[a] * sum(WB[b] * link_value(link, cA[i] - cB[i]) for b, cB in enumerate(cand_B)) for a, cA in enumerate(cand_A)
            )
            lin = 0.5 + kap * (
                sum(w * c[i] for w, c in zip(WAl, cand_A, strict=True)) - sum(w * c[i] for w, c in zip(WBl, cand_B, strict=True))
            )
            R = R + spec.shares[g] * (true - lin)
        return R

    def _opp(self, const, shape_tail: int):
        if not self.opponents:
            return None, None
        return [[v.reshape((-1,) + (1,) * shape_tail) for v in const["opp"][p]] for p in (0, 1)]

    def plain(self, pi_A: Policy, pi_B: Policy, const: dict) -> torch.Tensor:
        """Per-sample residuals (M,) at samples of the policies (inverse CDF, common random numbers)."""
        torch = torch_module()
        XA = torch.as_tensor(self.samples([concrete(p) for p in pi_A], 0))
        XB = torch.as_tensor(self.samples([concrete(p) for p in pi_B], 1))
        fA = [self.predict(pr, XA) for pr in const["preds"]]
        fB = [self.predict(pr, XB) for pr in const["preds"]]
        oA, oB = self._opp(const, 0)
        return self.residual(fA, fB, oA, oB)

    def level_values(self, player: int, own: list[torch.Tensor], other: list[torch.Tensor], d: int) -> np.ndarray:
        """The plain value (L_d,) with the player's pure policy ``own`` (list of one-hot (L_e,)) moved
        to each level of factor ``d``, against ``other`` (list of (L_e,)), in one pass over the samples
        (a pure policy's samples are its profile): the control values level by level, the residuals
        of all levels against the opponent's samples at once."""
        torch = torch_module()
        size, const = self.spec.design.sizes[d], self._const
        eye = torch.eye(size, dtype=torch.float64)
        values = []
        for lv in range(size):
            mine = [eye[lv] if e == d else p for e, p in enumerate(own)]
            pi_A, pi_B = (mine, other) if player == 0 else (other, mine)
            values.append(float(self.control_value(self.pad.policy(pi_A), self.pad.policy(pi_B), const)))
        if self.exact or not self.use_residual:
            return np.array(values)
        X = np.repeat(np.array([[int(np.argmax(concrete(p))) for p in own]]), size, axis=0)
        X[:, d] = np.arange(size)
        f_own = [self.predict(pr, torch.as_tensor(X))[:, None] for pr in const["preds"]]
        f_other = self._other_predictions(player, other, const)
        fA, fB = (f_own, f_other) if player == 0 else (f_other, f_own)
        R = self.residual(fA, fB, *self._opp(const, 0))  # (L_d, M)
        return np.array(values) + R.mean(1).detach().numpy()

    def _other_predictions(self, player: int, other, const) -> list:
        """The predictors (1, M) at the opponent's samples, kept for the last opponent policy (a vertex
        ascent asks for them once per factor and sweep)."""
        torch = torch_module()
        key = (player, tuple(concrete(p).tobytes() for p in other))
        cached = getattr(self, "_other_cache", None)
        if cached is None or cached[0] is not const or cached[1] != key:
            X_other = torch.as_tensor(self.samples([concrete(p) for p in other], 1 - player))
            cached = (const, key, [self.predict(pr, X_other)[None, :] for pr in const["preds"]])
            self._other_cache = cached
        return cached[2]

    def first_order(
        self, XA: torch.Tensor, XB: torch.Tensor, const: dict, players: tuple[int, ...] = (0, 1)
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """``(r0, gA (n_A,), gB (n_B,))``: the residual's mean and its Rao-Blackwellised gradient in
        the free level probabilities, ``dE[R]/dpi_P[d][l] = E[R | x_P,d = l]`` (multilinearity); a
        player's gradient is None unless it is in ``players``."""
        preds = const["preds"]
        tA, tB = (
            [self.singles(pr, X, p) if p in players else (self.predict(pr, X), None) for pr in preds]
            for p, X in enumerate((XA, XB))
        )
        oA, oB = self._opp(const, 0)
        r0 = self.residual([t[0] for t in tA], [t[0] for t in tB], oA, oB).mean()
        oA1, oB1 = self._opp(const, 1)
        gA = gB = None
        if 0 in players:
            gA = self.residual([t[1] for t in tA], [t[0][:, None] for t in tB], oA1, oB1).mean(0)
        if 1 in players:
            gB = self.residual([t[0][:, None] for t in tA], [t[1] for t in tB], oA1, oB1).mean(0)
        return r0, gA, gB

    def gradient(self, player: int, pi_A: Policy, pi_B: Policy) -> np.ndarray:
        """The player's ``g`` (n_P,) of :meth:`first_order` at concrete policies (lists of (L_d,))."""
        torch = torch_module()
        XA, XB = (torch.as_tensor(self.samples([concrete(p) for p in pi], p)) for p, pi in enumerate((pi_A, pi_B)))
        with torch.no_grad():
            return self.first_order(XA, XB, self._const, (player,))[1 + player].numpy()

    def first_order_jacobian(self, XA: torch.Tensor, XB: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dr0 (n_params,), dgA (n_A, n_params), dgB (n_B, n_params))``: :meth:`first_order`'s
        derivatives in the stacked params at the bound ones, without a backward pass per coordinate.
        Each sample's residual depends on the params only through the predictor values it is given,
        ``f = phi(x) . theta`` of some profile ``x``, so one backward pass of the summed residuals gives
        ``dR/df`` of every sample, coordinate and slot, and ``dE[R | coordinate]/dtheta`` sums the
        profiles' features weighted by these (scatter-adds)."""
        torch = torch_module()
        spec, const = self.spec, self._const
        design = spec.design
        inter = any(m.interactions for m in spec.models)
        with torch.no_grad():
            tA = [self.singles(pr, XA, 0) for pr in const["preds"]]
            tB = [self.singles(pr, XB, 1) for pr in const["preds"]]
        opp = [list(v) for v in const["opp"]] if self.opponents else []
        profiles = [X.numpy() for X in [XA, XB, *self.opponents]]  # of each slot: entrants A, B, opponents
        phis = [design.feature_matrix(X, inter) for X in profiles]
        base = [[t[0] for t in tA], [t[0] for t in tB], *opp]
        dr0 = self._params_jacobian(self._residual_weights(base), phis, None)
        out = [dr0[0]]
        for p, t in enumerate((tA, tB)):
            slots = [[v[:, None] for v in slot] for slot in base]
            slots[p] = [s[1] for s in t]
            out.append(self._params_jacobian(self._residual_weights(slots), phis, (p, profiles[p])))
        return out[0], out[1], out[2]

    def _residual_weights(self, slots: list[list]) -> list[list]:
        """``dR/df`` (numpy, the broadcast shape of the inputs) of the residual at the predictor values
        ``slots`` (entrants A, B, then the opponents, each a list over ``spec.models``), or None where a
        model takes no part: each sample (and coordinate) is its own residual, so one backward pass."""
        torch = torch_module()
        shape = np.broadcast_shapes(
            *[tuple(v.shape) for slot in slots for v in slot]
        )  # torch.broadcast_shapes: 0.5 s at its first call
        leaves = [[v.detach().expand(shape).clone().requires_grad_(True) for v in slot] for slot in slots]
        R = self.residual(*leaves)
        flat = [v for slot in leaves for v in slot]
        grads = torch.autograd.grad(R.sum(), flat, allow_unused=True)
        k = len(self.spec.models)
        return [[None if g is None else g.numpy() for g in grads[s * k : (s + 1) * k]] for s in range(len(slots))]

    def _params_jacobian(self, weights: list[list], phis: list, coordinate) -> np.ndarray:
        """``(n, n_params)``: ``sum_m weights[m, k] phi(x_m)`` per coordinate ``k`` (mean over the samples)
        over the slots and models, placed in the stacked params (``alpha`` moves nothing); with
        ``coordinate = (slot, X)`` that slot's profiles are ``X`` with coordinate ``k = (d, l)`` set."""
        spec = self.spec
        design = spec.design
        inter = any(m.interactions for m in spec.models)
        P = design.n_features(inter)
        n = next(w for slot in weights for w in slot if w is not None).reshape(self.M, -1).shape[1]
        feats = [np.zeros((n, P)) for _ in spec.models]
        for s, slot in enumerate(weights):
            for i, w in enumerate(slot):
                if w is None:
                    continue
                w = w.reshape(self.M, -1)
                if coordinate is not None and coordinate[0] == s:
                    feats[i] += self._coordinate_features(coordinate[1], s, w, inter)
                else:
                    feats[i] += (phis[s].T @ w).T
        jac = np.zeros((n, int(spec.slices[-1].stop)))
        for m, block, f in zip(spec.models, spec.slices, feats, strict=True):
            jac[:, block.start + 1 : block.stop] = f[:, : m.params.size - 1] / self.M
        return jac

    def _coordinate_features(self, X: np.ndarray, player: int, w: np.ndarray, inter: bool) -> np.ndarray:
        """``sum_m w[m, k] phi(x_m with coordinate k set)`` (n_P, P) for the player's samples ``X`` (M, D)."""
        design = self.spec.design
        kd, kl = (c.numpy() for c in self.coords[player])
        n, P = kd.size, design.n_features(inter)
        Xk = np.repeat(X[:, None, :], n, axis=1)
        Xk[:, np.arange(n), kd] = kl
        cols = design.feature_columns(Xk.reshape(-1, X.shape[1]), inter)  # (M n, K)
        rows, blocks = np.nonzero(cols >= 0)
        k = rows % n
        return np.bincount(k * P + cols[rows, blocks], weights=w.reshape(-1)[rows], minlength=n * P).reshape(n, P)

    def second_order(self, XA: torch.Tensor, XB: torch.Tensor, const: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(HAA, HAB, HBB)``: ``E[R | two coordinates set]`` (zero within a factor; the symmetric
        blocks from their pairs ``i < j``), by chunks."""
        torch = torch_module()
        preds = const["preds"]
        nA, nB = self.coords[0][0].numel(), self.coords[1][0].numel()
        pairs = [self.cross_pairs(p) for p in (0, 1)]
        sides = []
        for p, (left, right) in enumerate(pairs):
            kd, kl = self.coords[p]
            sides.append(((kd[left], kd[right]), (kl[left], kl[right])))
        HAB = torch.zeros((nA, nB), dtype=torch.float64)
        hAA, hBB = (torch.zeros(left.numel(), dtype=torch.float64) for left, _ in pairs)
        for start in range(0, self.M, self.chunk):
            rows = slice(start, min(start + self.chunk, self.M))
            xa, xb = XA[rows], XB[rows]
            tA = [self.singles(pr, xa, 0) for pr in preds]
            tB = [self.singles(pr, xb, 1) for pr in preds]
            oA, oB = (None, None) if not self.opponents else [[v[rows, None] for v in const["opp"][p]] for p in (0, 1)]
            o3 = (None, None) if oA is None else [[v[:, :, None] for v in o] for o in (oA, oB)]
            HAB += self.residual([t[1][:, :, None] for t in tA], [t[1][:, None, :] for t in tB], *o3).sum(0)
            both = []
            for p, (t_p, x) in enumerate(((tA, xa), (tB, xb))):
                (left, right), (kd, kl) = pairs[p], sides[p]
                both.append(
                    [
                        t[1][:, left] + t[1][:, right] - t[0][:, None] + self.pair_correction(pr, x, kd, kl)
                        for t, pr in zip(t_p, preds, strict=True)
                    ]
                )
            hAA += self.residual(both[0], [t[0][:, None] for t in tB], oA, oB).sum(0)
            hBB += self.residual([t[0][:, None] for t in tA], both[1], oA, oB).sum(0)
        out = []
        for n, (left, right), h in ((nA, pairs[0], hAA), (nB, pairs[1], hBB)):
            H = torch.zeros((n, n), dtype=torch.float64)
            H[left, right] = h / self.M
            H[right, left] = h / self.M
            out.append(H)
        return out[0], HAB / self.M, out[1]

    def centre(self, pi_A: Policy, pi_B: Policy, hessian: bool = True) -> dict | None:
        """The surrogate at concrete policies: their samples, level vectors, ``r0``, ``gA``, ``gB`` and,
        with ``hessian``, the second-order blocks (module docstring)."""
        torch = torch_module()
        if self.exact or not self.use_residual:
            return None
        pi_A, pi_B = [concrete(p) for p in pi_A], [concrete(p) for p in pi_B]
        XA, XB = torch.as_tensor(self.samples(pi_A, 0)), torch.as_tensor(self.samples(pi_B, 1))
        with torch.no_grad():
            r0, gA, gB = self.first_order(XA, XB, self._const)
            H = self.second_order(XA, XB, self._const) if hessian else None
        levels = [
            torch.as_tensor(np.concatenate([pi[d] for d in self.spec.free(p)] + [np.zeros(0)]))
            for p, pi in enumerate((pi_A, pi_B))
        ]
        return {"XA": XA, "XB": XB, "levels": levels, "r0": r0, "gA": gA, "gB": gB, "H": H}

    def separates(self, centre: dict | None) -> bool:
        """The control value is ``0.5 + N_A(pi_A) - N_B(pi_B)``; the plain residual's samples carry no
        gradient and the surrogate's first-order terms are linear: only its second-order terms couple."""
        return centre is None or centre["H"] is None

    def levels(self, pi: list[torch.Tensor], player: int) -> torch.Tensor:
        torch = torch_module()
        free = self.spec.free(player)
        return torch.cat([pi[d] for d in free]) if free else torch.zeros(0, dtype=torch.float64)

    def value(
        self, pi_A: list[torch.Tensor], pi_B: list[torch.Tensor], theta: torch.Tensor | None = None, centre: dict | None = None
    ) -> torch.Tensor:
        torch = torch_module()
        const = self._const if theta is None else self._constants(theta)
        v = self.control_value(self.pad.policy(pi_A), self.pad.policy(pi_B), const)
        if self.exact or not self.use_residual:
            return v
        if centre is None:
            return v + self.plain(pi_A, pi_B, const).mean()
        r0, gA, gB = centre["r0"], centre["gA"], centre["gB"]
        if theta is not None:  # first order in the params at the bound ones (module docstring)
            if "jacobians" not in centre:
                centre["jacobians"] = [torch.as_tensor(j) for j in self.first_order_jacobian(centre["XA"], centre["XB"])]
            step = theta - self._theta
            jr, jA, jB = centre["jacobians"]
            r0, gA, gB = r0 + jr @ step, gA + jA @ step, gB + jB @ step
        dA = self.levels(pi_A, 0) - centre["levels"][0]
        dB = self.levels(pi_B, 1) - centre["levels"][1]
        v = v + r0 + gA @ dA + gB @ dB
        if centre["H"] is not None:
            HAA, HAB, HBB = centre["H"]
            v = v + 0.5 * dA @ HAA @ dA + dA @ HAB @ dB + 0.5 * dB @ HBB @ dB
        return v

    def mc_se(self, pi_A: Policy, pi_B: Policy) -> float:
        """Monte Carlo standard error ``sd(R) / sqrt(M)`` of the plain value at the policies."""
        if self.exact or not self.use_residual:
            return 0.0
        terms = self.plain(pi_A, pi_B, self._const).detach().numpy()
        return float(terms.std(ddof=1) / np.sqrt(terms.size))


def _inverse_cdf(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(p)
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), len(p) - 1)
