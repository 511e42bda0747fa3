"""The vote share of the two-party conjoint game (issue 8): the game's inputs (:class:`GameSpec`,
:func:`build_spec`), the exact control value shared by its estimators and the exact ``enumerate``
estimator (torch, float64).

Setting (Jerzak, Chandra & Hazra 2026). Parties A and B play product policies ``pi_A``, ``pi_B``
(lists of D arrays (L_d,)) over one :class:`~cosolve.problems.conjoint.design.Design`; a party's fixed factors
are point masses. Voter group ``g`` (electorate share ``s_g``, ``sum s_g = 1``) prefers ``x`` to ``x'``
with ``P_g(x, x') = link_g(f_g(x) - f_g(x'))``, ``f_g = phi . theta_g`` its linear predictor (``alpha``,
the position effect, is unused); ``link`` is ``identity`` (``0.5 + s``) or ``logit`` (``sigmoid(s)``).
A's vote share is ``V = sum_g s_g E P_g(n_A, n_B)`` over the nominees ``n_A``, ``n_B``:

- without primaries the nominee is ``x ~ pi_P``;
- with primaries it is the winner of ``x ~ pi_P`` against ``x' ~ q_P`` (``p0`` with P's fixed factors
  applied), decided by P's primary model: ``x`` w.p. ``w_P = P_P^prim(x, x')``, else ``x'``.

Every link has the tangent ``lin(s) = 0.5 + kappa s`` at ``s = 0`` (``kappa`` 1 identity, 1/4 logit).
Replacing every link (general and primary) by its tangent gives the *control* integrand ``C``, whose
expectation is exact: ``E[C] = 0.5 + N_A(t) - N_B(t)`` with ``t = sum_g s_g kappa_g f_g`` and
``N_P(t) = E_pi t`` without primaries, else (``c`` the primary predictor, ``kappa_P`` its slope)

    N_P(t) = (E_pi t + E_q t) / 2 + kappa_P (E_pi[c t] - E_pi c E_q t - E_q c E_pi t + E_q[c t]).

The second moments ``E_pi[c t]`` of main-effect + two-way predictors under a product distribution are
exact by the ANOVA decomposition (:func:`cross_moment`). Estimators of ``V``:

- ``mc`` (:mod:`~cosolve.methods.conjoint.game.monte_carlo`): ``E[C]`` exact plus Monte Carlo for the small
  residual of the true links; exact (``R = 0``) with identity links only.
- ``enumerate``: exact for small designs, ``V = p_A^T H p_B`` over all profiles (:class:`Enumeration`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from cosolve.methods.conjoint.tensors import Policy, torch_module
from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import OutcomeModel

if TYPE_CHECKING:
    import torch

#: A padded predictor ``(a, A)`` (:class:`Padding`): main effects (D, Lmax), interactions (D, D, Lmax, Lmax) or None.
Predictor: TypeAlias = "tuple[torch.Tensor, torch.Tensor | None]"

#: Slope of each link's tangent at 0.
KAPPA = {"identity": 1.0, "logit": 0.25}


@dataclass
class GameSpec:
    """A validated game: ``shares`` (G,) of the groups, ``general`` (G,) and ``primaries`` (A, B) index
    ``models``, the distinct models (their params stacked in this order, their fits independent);
    ``fixed`` per player maps factor index -> level code."""

    design: Design
    groups: tuple[str, ...]
    shares: np.ndarray
    general: tuple[int, ...]
    primaries: tuple[int, int] | None
    fixed: tuple[dict[int, int], dict[int, int]]
    models: tuple[OutcomeModel, ...]

    @cached_property
    def slices(self) -> list[slice]:
        ends = np.cumsum([m.params.size for m in self.models])
        return [slice(int(e - m.params.size), int(e)) for m, e in zip(self.models, ends, strict=True)]

    def stacked_params(self) -> np.ndarray:
        return np.concatenate([m.params for m in self.models])

    def free(self, player: int) -> list[int]:
        return [d for d in range(self.design.n_factors) if d not in self.fixed[player]]

    def reference(self, player: int) -> list[np.ndarray]:
        """``q_P``: ``p0`` with the player's fixed factors as point masses."""
        out = []
        for d, p in enumerate(self.design.p0):
            q = np.array(p, dtype=np.float64)
            if d in self.fixed[player]:
                q = np.eye(len(q))[self.fixed[player][d]]
            out.append(q)
        return out

    @property
    def all_identity(self) -> bool:
        roles = list(self.general) + list(self.primaries or ())
        return all(self.models[i].link == "identity" for i in roles)


def build_spec(
    models: dict[str, OutcomeModel],
    shares: dict[str, float],
    primaries: dict[str, OutcomeModel] | None = None,
    fixed_A: dict[str, str] | None = None,
    fixed_B: dict[str, str] | None = None,
) -> GameSpec:
    """Check the inputs of a game (see ``solve_game``) and index its distinct models."""
    from cosolve.errors import InputError
    from cosolve.problems.conjoint.model import LINKS

    if not models:
        raise InputError("the game needs at least one voter group")
    if set(models) != set(shares):
        raise InputError(f"shares name groups {sorted(shares)} but the models name {sorted(models)}")
    groups = tuple(models)
    s = np.array([float(shares[g]) for g in groups])
    if not np.all(np.isfinite(s) & (s >= 0)) or abs(s.sum() - 1.0) > 1e-9:
        raise InputError(f"electorate shares must be finite, non-negative and sum to 1, got {dict(shares)}")
    roles = [models[g] for g in groups]
    if primaries is not None:
        if set(primaries) != {"A", "B"}:
            raise InputError(f"primaries must name the parties 'A' and 'B', got {sorted(primaries)}")
        roles += [primaries["A"], primaries["B"]]
    design = roles[0].design
    distinct: list[OutcomeModel] = []
    index = []
    for m in roles:
        if m.link not in LINKS:
            raise InputError(f"unknown link {m.link!r}; valid: {', '.join(LINKS)}")
        same = m.design is design or (
            m.design.factors == design.factors
            and m.design.levels == design.levels
            and all(np.allclose(a, b) for a, b in zip(m.design.p0, design.p0, strict=True))
        )
        if not same:
            raise InputError("every outcome model of the game must use the same design")
        if m.params.size != m.design.n_features(m.interactions) + 1:
            raise InputError(f"a model has {m.params.size} params, its design needs {m.design.n_features(m.interactions) + 1}")
        hit = [k for k, other in enumerate(distinct) if other is m]
        if not hit:
            distinct.append(m)
        index.append(hit[0] if hit else len(distinct) - 1)
    fixed = tuple(_fixed_codes(design, f, who) for f, who in ((fixed_A, "A"), (fixed_B, "B")))
    G = len(groups)
    prim = (index[G], index[G + 1]) if primaries is not None else None
    return GameSpec(design, groups, s, tuple(index[:G]), prim, fixed, tuple(distinct))


def _fixed_codes(design: Design, fixed: dict[str, str] | None, who: str) -> dict[int, int]:
    from cosolve.errors import InputError

    out = {}
    for name, level in (fixed or {}).items():
        if name not in design.factors:
            raise InputError(f"party {who}: unknown factor {name!r}")
        d = design.factors.index(name)
        if level not in design.levels[d]:
            raise InputError(f"party {who}: factor {name!r} has no level {level!r}")
        out[d] = design.levels[d].index(level)
    return out


class Padding:
    """Policies and predictors as padded tensors: ``Pi`` (D, Lmax); a predictor ``(a, A)`` with ``a``
    (D, Lmax) the main effects (0 at the baseline) and ``A`` (D, D, Lmax, Lmax) the interactions, stored
    both ways round (``A[e, d] = A[d, e]^T``, ``A[d, d] = 0``), or None for a main-effects model."""

    def __init__(self, design: Design) -> None:
        torch = torch_module()
        self.design = design
        D, self.Lmax = design.n_factors, max(design.sizes)
        L = self.Lmax
        main = [d * L + lv for d in range(D) for lv in range(1, design.sizes[d])]
        one, two = [], []
        for d, e in design.pairs:
            for lv in range(1, design.sizes[d]):
                for m in range(1, design.sizes[e]):
                    one.append(((d * D + e) * L + lv) * L + m)
                    two.append(((e * D + d) * L + m) * L + lv)
        self.main_pos = torch.tensor(main, dtype=torch.int64)
        self.pos1 = torch.tensor(one, dtype=torch.int64)
        self.pos2 = torch.tensor(two, dtype=torch.int64)

    def policy(self, pi: list[torch.Tensor]) -> torch.Tensor:
        torch = torch_module()
        return torch.stack([torch.nn.functional.pad(p, (0, self.Lmax - p.shape[0])) for p in pi])

    def predictor(self, theta: torch.Tensor, interactions: bool) -> Predictor:
        """``(a, A)`` of the predictor ``phi . theta`` (theta (P,) without alpha)."""
        torch = torch_module()
        design, D, L = self.design, self.design.n_factors, self.Lmax
        n = design.n_main
        a = torch.zeros(D * L, dtype=theta.dtype).index_add(0, self.main_pos, theta[:n]).reshape(D, L)
        if not interactions:
            return a, None
        rest = theta[n:]
        A = torch.zeros(D * D * L * L, dtype=theta.dtype).index_add(0, self.pos1, rest).index_add(0, self.pos2, rest)
        return a, A.reshape(D, D, L, L)


def combine(preds: list[Predictor], weights: list[float]) -> Predictor:
    """``sum_k weights[k] * preds[k]`` of padded predictors."""
    a = sum(w * p[0] for p, w in zip(preds, weights, strict=True))
    inter = [w * p[1] for p, w in zip(preds, weights, strict=True) if p[1] is not None]
    return a, (sum(inter) if inter else None)


def _anova(Pi: torch.Tensor, pred: Predictor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Mean, first-order components (D, Lmax) and second-order components (D, D, Lmax, Lmax) or None
    of the predictor under the product distribution ``Pi``."""
    torch = torch_module()
    a, A = pred
    if A is None:
        mean, u, S = (Pi * a).sum(), a, None
    else:
        B = torch.einsum("delm,em->del", A, Pi)  # E[A_de(l, x_e)]
        mu = (Pi[:, None, :] * B).sum(-1)  # E[A_de]
        mean = (Pi * a).sum() + 0.5 * mu.sum()
        u = a + B.sum(1)
        S = A - B[..., :, None] - B.transpose(0, 1)[..., None, :] + mu[..., None, None]
    first = u - (Pi * u).sum(1, keepdim=True)
    return mean, first, S


def mean_value(Pi: torch.Tensor, pred: Predictor) -> torch.Tensor:
    """``E[f]`` under the product distribution ``Pi`` (D, Lmax)."""
    return _anova(Pi, pred)[0]


def cross_moment(Pi: torch.Tensor, pred1: Predictor, pred2: Predictor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(E f1, E f2, E[f1 f2])`` under ``Pi``: ANOVA components of different orders or factor sets are
    orthogonal under a product distribution, so ``Cov = sum_d E[u1_d u2_d] + sum_{d<e} E[S1_de S2_de]``."""
    torch = torch_module()
    m1, u1, S1 = _anova(Pi, pred1)
    m2, u2, S2 = _anova(Pi, pred2)
    cov = (Pi * u1 * u2).sum()
    if S1 is not None and S2 is not None:
        cov = cov + 0.5 * torch.einsum("dl,em,delm->", Pi, Pi, S1 * S2)
    return m1, m2, m1 * m2 + cov


def link_value(link: str, s: torch.Tensor) -> torch.Tensor:
    torch = torch_module()
    return 0.5 + s if link == "identity" else torch.sigmoid(s)


class Estimator:
    """Shared parts: per-model padded predictors, the exact control value, binding the parameters.

    ``value(pi_A, pi_B, theta=None, centre=None)``: ``V`` for policies (lists of D tensors); ``theta`` (stacked params
    of ``spec.models``) as a tensor differentiates through it, None uses the bound values (:meth:`bind`)."""

    #: ``value`` is multilinear in the factors' policies (exact estimators)
    multilinear = True

    def __init__(self, spec: GameSpec) -> None:
        torch = torch_module()
        self.spec = spec
        self.pad = Padding(spec.design)
        self.ref = [self.pad.policy([torch.as_tensor(q) for q in spec.reference(p)]) for p in (0, 1)]
        self.bind(spec.stacked_params())

    def bind(self, params: np.ndarray) -> None:
        torch = torch_module()
        self._theta = torch.as_tensor(np.asarray(params, dtype=np.float64))
        self._const = self._constants(self._theta)

    def centre(self, pi_A: Policy, pi_B: Policy, hessian: bool = True) -> dict | None:
        """A local surrogate of ``value`` at concrete policies (None: ``value`` is smooth as it is)."""
        return None

    def separates(self, centre: dict | None) -> bool:
        """Whether ``value`` (with this centre) is, as torch differentiates it, a sum of a function of
        ``pi_A`` and one of ``pi_B`` (its Hessian block-diagonal over the players)."""
        return False

    def thetas(self, theta: torch.Tensor) -> list[torch.Tensor]:
        return [theta[s][1:] for s in self.spec.slices]

    def _constants(self, theta: torch.Tensor) -> dict:
        spec = self.spec
        th = self.thetas(theta)
        preds = [self.pad.predictor(t, m.interactions) for t, m in zip(th, spec.models, strict=True)]
        kap = [spec.shares[g] * KAPPA[spec.models[i].link] for g, i in enumerate(spec.general)]
        out = {"t": combine([preds[i] for i in spec.general], kap), "theta": th}
        if spec.primaries is not None:
            out["c"] = [preds[i] for i in spec.primaries]
            out["ref"] = [cross_moment(self.ref[p], out["c"][p], out["t"]) for p in (0, 1)]
        return out

    def control_value(self, PiA: torch.Tensor, PiB: torch.Tensor, const: dict) -> torch.Tensor:
        """``E[C]`` (module docstring) for padded policies."""
        spec, t = self.spec, const["t"]
        if spec.primaries is None:
            return 0.5 + mean_value(PiA, t) - mean_value(PiB, t)
        N = []
        for p, Pi in enumerate((PiA, PiB)):
            kp = KAPPA[spec.models[spec.primaries[p]].link]
            c_pi, t_pi, ct_pi = cross_moment(Pi, const["c"][p], t)
            c_q, t_q, ct_q = const["ref"][p]
            N.append(0.5 * (t_pi + t_q) + kp * (ct_pi - c_pi * t_q - c_q * t_pi + ct_q))
        return 0.5 + N[0] - N[1]


def profiles(spec: GameSpec, player: int) -> np.ndarray:
    """All profiles (n, D) of a player: every level of its free factors, the fixed ones held."""
    design, fixed = spec.design, spec.fixed[player]
    choices = [[fixed[d]] if d in fixed else range(design.sizes[d]) for d in range(design.n_factors)]
    return np.array(list(product(*choices)), dtype=np.int64).reshape(-1, design.n_factors)


class Enumeration(Estimator):
    """The exact ``enumerate`` estimator: ``V = p_A^T H p_B`` over all profiles of each player, where
    ``H`` (nA, nB) is the pure-profile vote share (:meth:`payoff`) and ``p_P`` the profile probabilities."""

    def __init__(self, spec: GameSpec) -> None:
        torch = torch_module()
        self.X = [torch.as_tensor(profiles(spec, p)) for p in (0, 1)]
        inter = any(m.interactions for m in spec.models)
        self.feats = [torch.as_tensor(spec.design.features(X.numpy(), inter)) for X in self.X]
        super().__init__(spec)

    def _constants(self, theta: torch.Tensor) -> dict:
        return {"H": self.payoff(theta)}

    def payoff(self, theta: torch.Tensor) -> torch.Tensor:
        """``H[x, y]``: A's vote share with entrants (or nominees) ``x`` and ``y``, the primaries'
        opponents integrated out: ``a b^T * P + a (P M_B^T) + (M_A P) b^T + M_A P M_B^T`` with
        ``a(x) = E_q w(x, x')`` and ``M(x, x') = q(x') (1 - w(x, x'))``."""
        spec, models = self.spec, self.spec.models
        th = self.thetas(theta)

        def f(i, p):
            return self.feats[p][:, : th[i].shape[0]] @ th[i]

        P = 0.0
        for g, i in enumerate(spec.general):
            P = P + spec.shares[g] * link_value(models[i].link, f(i, 0)[:, None] - f(i, 1)[None, :])
        if spec.primaries is None:
            return P
        ab, Ms = [], []
        for p in (0, 1):
            i = spec.primaries[p]
            c = f(i, p)
            w = link_value(models[i].link, c[:, None] - c[None, :])
            q = self._profile_probs(self.ref[p], p)
            ab.append(w @ q)
            Ms.append(q[None, :] * (1.0 - w))
        a, b = ab
        MA, MB = Ms
        PM = P @ MB.T
        return a[:, None] * b[None, :] * P + a[:, None] * PM + (MA @ P) * b[None, :] + MA @ PM

    def _profile_probs(self, Pi, player: int):
        torch = torch_module()
        rows = torch.arange(Pi.shape[0])
        return Pi[rows, self.X[player]].prod(1)

    def value(
        self, pi_A: list[torch.Tensor], pi_B: list[torch.Tensor], theta: torch.Tensor | None = None, centre: dict | None = None
    ) -> torch.Tensor:
        H = self._const["H"] if theta is None else self.payoff(theta)
        pA = self._profile_probs(self.pad.policy(pi_A), 0)
        pB = self._profile_probs(self.pad.policy(pi_B), 1)
        return pA @ H @ pB

    def mc_se(self, pi_A: Policy, pi_B: Policy) -> float:
        return 0.0
