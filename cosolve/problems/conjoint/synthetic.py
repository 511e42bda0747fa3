"""Synthetic forced-choice conjoint experiments with a known truth.

A truth is ``theta`` (P,) over the features with two-way interactions
(:meth:`~cosolve.problems.conjoint.design.Design.features`). Each respondent answers paired tasks; both
profiles ``A`` (position 0) and ``B`` (position 1) are drawn independently from ``p0``, and with
``delta = (phi(A) - phi(B)) . theta``:

- ``link = "identity"``: ``P(A chosen) = 0.5 + delta``. Averaging over an opponent drawn from
  ``p0``, a profile ``x`` (in either position) is chosen with probability
  ``0.5 + (phi(x) - E_p0[phi]) . theta``, so the stacked linear probability model
  ``E[Y | x] = alpha + phi(x) . theta`` holds exactly with ``alpha = 0.5 - E_p0[phi] . theta``
  (:attr:`SyntheticTruth.alpha`);
- ``link = "logit"``: ``P(A chosen) = sigmoid(delta)`` (no edge for the first-listed profile: the
  pair logit's true intercept is 0).

With ``respondent_noise`` each respondent's main effects are ``theta`` plus their own perturbation,
uniform on ``[-respondent_noise, respondent_noise]`` per coefficient (mean zero, interactions shared),
so answers are correlated within respondents and clustered standard errors matter; the population
identity above still holds because the perturbation enters linearly with mean zero. It is bounded, so
``|delta| <= truth.max_contrast() + 2 * D * respondent_noise`` (D factors): keep that at most 0.5 for
the identity link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cosolve.errors import UsageError
from cosolve.problems.conjoint.data import ConjointData
from cosolve.problems.conjoint.design import Design
from cosolve.problems.conjoint.model import LINKS


@dataclass(frozen=True)
class SyntheticTruth:
    """A known outcome model: ``theta`` (P,) over ``design``'s features with interactions."""

    design: Design
    theta: np.ndarray

    def __post_init__(self) -> None:
        p = self.design.n_features(True)
        if np.shape(self.theta) != (p,):
            raise ValueError(f"theta must have one entry per feature with interactions ({p}), has shape {np.shape(self.theta)}")

    @property
    def alpha(self) -> float:
        """The stacked-LPM intercept ``0.5 - E_p0[phi] . theta`` of the identity link (module docstring)."""
        return float(0.5 - self.design.expected_features(list(self.design.p0), True) @ self.theta)

    def params(self, link: str, interactions: bool = True) -> np.ndarray:
        """The parameters ``(alpha, theta)`` a fit with ``link`` should recover (logit: alpha = 0);
        ``interactions=False`` keeps the main effects (exact when the interactions are zero)."""
        theta = self.theta if interactions else self.theta[: self.design.n_main]
        return np.concatenate([[self.alpha if link == "identity" else 0.0], theta])

    def tables(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """``theta`` as lookup tables: main ``(L_d,)`` per factor and interaction ``(L_d, L_e)`` per
        pair of factors, zero at the baselines, so that ``phi(x) . theta = sum_d main[d][x_d] +
        sum_(d,e) inter[(d,e)][x_d, x_e]``."""
        d = self.design
        main = [np.concatenate([[0.0], self.theta[d.main_offsets[f] : d.main_offsets[f + 1]]]) for f in range(d.n_factors)]
        inter = []
        for k, (f, g) in enumerate(d.pairs):
            block = self.theta[d.pair_offsets[k] : d.pair_offsets[k + 1]].reshape(d.sizes[f] - 1, d.sizes[g] - 1)
            inter.append(np.pad(block, ((1, 0), (1, 0))))
        return main, inter

    def max_contrast(self) -> float:
        """An upper bound on ``|(phi(A) - phi(B)) . theta|`` over all profiles: the sum of the ranges
        of the lookup tables."""
        main, inter = self.tables()
        return float(sum(np.ptp(t) for t in main) + sum(np.ptp(t) for t in inter))


def random_truth(
    n_factors: int = 4,
    levels_per_factor: int | Sequence[int] = 3,
    *,
    seed: int = 0,
    main_scale: float = 0.08,
    interaction_scale: float = 0.03,
    sparsity: float = 0.5,
    p0: str = "uniform",
    max_contrast: float | None = 0.4,
) -> SyntheticTruth:
    """A random truth on factors ``F0..`` with levels ``L0..`` (``levels_per_factor``: one count for
    all, or one per factor).

    Main effects are N(0, main_scale^2); each interaction is zero with probability ``sparsity``,
    else N(0, interaction_scale^2). ``p0``: ``"uniform"`` or ``"random"`` (Dirichlet(5) weights,
    floored at 0.05 and renormalised). ``max_contrast``: when the bound :meth:`SyntheticTruth.max_contrast`
    exceeds it, ``theta`` is scaled down to meet it, so the identity link's choice probabilities
    ``0.5 +- max_contrast`` stay inside [0, 1] whatever the profiles (None: no scaling, e.g. for the
    logit link).
    """
    if n_factors < 1:
        raise UsageError(f"n_factors must be at least 1, got {n_factors}")
    sizes = [int(levels_per_factor)] * n_factors if np.isscalar(levels_per_factor) else [int(s) for s in levels_per_factor]
    if len(sizes) != n_factors or min(sizes) < 2:
        raise UsageError(f"levels_per_factor must give {n_factors} counts of at least 2, got {levels_per_factor}")
    if not 0 <= sparsity <= 1:
        raise UsageError(f"sparsity must be in [0, 1], got {sparsity}")
    rng = np.random.default_rng(seed)
    factors = [f"F{d}" for d in range(n_factors)]
    levels = [[f"L{j}" for j in range(s)] for s in sizes]
    if p0 == "uniform":
        probs = tuple(np.full(s, 1.0 / s) for s in sizes)
    elif p0 == "random":
        probs = tuple(_floored(rng.dirichlet(np.full(s, 5.0)), 0.05) for s in sizes)
    else:
        raise UsageError(f"unknown p0 {p0!r} (expected uniform or random)")
    design = Design(tuple(factors), tuple(tuple(lv) for lv in levels), probs)
    main = rng.normal(0.0, main_scale, design.n_main)
    n_inter = design.n_features(True) - design.n_main
    inter = rng.normal(0.0, interaction_scale, n_inter) * (rng.random(n_inter) >= sparsity)
    truth = SyntheticTruth(design, np.concatenate([main, inter]))
    if max_contrast is not None:
        bound = truth.max_contrast()
        if bound > max_contrast:
            truth = SyntheticTruth(design, truth.theta * (max_contrast / bound))
    return truth


def _floored(p: np.ndarray, floor: float) -> np.ndarray:
    p = np.maximum(p, floor)
    return p / p.sum()


def simulate(
    truth: SyntheticTruth,
    n_respondents: int,
    tasks_per_respondent: int = 5,
    *,
    seed: int = 0,
    link: str = "identity",
    respondent_noise: float = 0.0,
    clip_tol: float = 1e-3,
) -> ConjointData:
    """Forced-choice answers of ``n_respondents`` to ``tasks_per_respondent`` paired tasks each
    (module docstring), as :class:`ConjointData` of ``2 * n_respondents * tasks_per_respondent``
    rows: pair ``k`` is rows ``2k`` (position 0) and ``2k + 1``; ``y`` 1 for the chosen profile.
    Covariates: ``task`` (the task number within the respondent, from 0) and ``prob`` (the
    probability that the row's profile was chosen; the two of a pair sum to 1).

    Identity link: probabilities outside [0, 1] are clipped, and UsageError is raised when one
    leaves it by more than ``clip_tol`` (lower the scales or ``respondent_noise``); none does when
    ``truth.max_contrast() + 2 * D * respondent_noise <= 0.5`` (module docstring).
    """
    if link not in LINKS:
        raise UsageError(f"unknown link {link!r} (expected one of: {', '.join(LINKS)})")
    if n_respondents < 1 or tasks_per_respondent < 1:
        raise UsageError(f"n_respondents and tasks_per_respondent must be positive, got {n_respondents}, {tasks_per_respondent}")
    if respondent_noise < 0:
        raise UsageError(f"respondent_noise must be non-negative, got {respondent_noise}")
    design = truth.design
    rng = np.random.default_rng(seed)
    m = n_respondents * tasks_per_respondent
    n = 2 * m
    X = np.empty((n, design.n_factors), dtype=np.int64)
    for d, p in enumerate(design.p0):
        cdf = np.cumsum(p)
        X[:, d] = np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right"), len(p) - 1)
    respondent_of_pair = np.repeat(np.arange(n_respondents, dtype=np.int64), tasks_per_respondent)
    main, inter = truth.tables()
    A, B = X[0::2], X[1::2]
    delta = np.zeros(m)
    for d, t in enumerate(main):
        delta += t[A[:, d]] - t[B[:, d]]
    for (d, e), t in zip(design.pairs, inter, strict=True):
        delta += t[A[:, d], A[:, e]] - t[B[:, d], B[:, e]]
    if respondent_noise > 0:
        noise = rng.uniform(-respondent_noise, respondent_noise, (n_respondents, design.n_main))
        offsets = design.main_offsets
        for d in range(design.n_factors):
            block = np.pad(noise[:, offsets[d] : offsets[d + 1]], ((0, 0), (1, 0)))  # (R, L_d), baseline 0
            delta += block[respondent_of_pair, A[:, d]] - block[respondent_of_pair, B[:, d]]
    if link == "identity":
        prob_a = 0.5 + delta
        excess = float(np.max(np.maximum(prob_a - 1.0, -prob_a)))
        if excess > clip_tol:
            raise UsageError(
                f"choice probabilities leave [0, 1] by up to {excess:.3g} (> clip_tol {clip_tol:g}): "
                "lower the effect scales or respondent_noise"
            )
        prob_a = np.clip(prob_a, 0.0, 1.0)
    else:
        prob_a = 1.0 / (1.0 + np.exp(-delta))
    chose_a = (rng.random(m) < prob_a).astype(np.float64)
    y = np.empty(n)
    y[0::2], y[1::2] = chose_a, 1.0 - chose_a
    prob = np.empty(n)
    prob[0::2], prob[1::2] = prob_a, 1.0 - prob_a
    pair = np.repeat(np.arange(m, dtype=np.int64), 2)
    profile = np.tile(np.array([0, 1], dtype=np.int64), m)
    task = np.repeat(np.tile(np.arange(tasks_per_respondent, dtype=np.int64), n_respondents), 2)
    source = f"synthetic(link={link}, respondents={n_respondents}, tasks={tasks_per_respondent}, seed={seed})"
    return ConjointData(design, X, y, respondent_of_pair[pair], pair, profile, {"task": task, "prob": prob}, source)
