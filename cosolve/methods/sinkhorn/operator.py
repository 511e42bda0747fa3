"""The Gumbel–Sinkhorn operator with an entropy-adaptive temperature (torch).

A square matrix of logits ``X`` (…, n, n) is relaxed to a doubly stochastic matrix
``S(X / T) = exp(X / T)`` normalised alternately over rows and columns (Sinkhorn 1964; Mena et
al. 2018 in the log domain). ``P[i, j]`` reads as "item ``i`` goes to position ``j``".

Entropy-adaptive temperature ("Learning Permutation from Structure Without Supervision"): from the
current soft assignment ``P`` (no gradient), every row and column gets its normalised entropy
``h = H / log n`` in [0, 1]; one above the threshold ``h*`` gets the relative boost
``b * min(1, (h - h*) / (1 - h*))`` (growing with the excess, capped at ``b``); entry ``(i, j)``
combines its row's and column's boosts (their mean by default, or their maximum) into the
temperature ``T_ij = base * (1 + boost_ij)``. Confident rows and columns thus keep the base
temperature and discretise as it anneals, uncertain ones stay softer and keep exploring.
"""

from __future__ import annotations

import math

import torch

#: The published defaults: threshold h*, maximum relative boost b, Sinkhorn iterations, Gumbel
#: samples per input, and the base temperature's annealing range.
ENTROPY_THRESHOLD = 0.7
MAX_BOOST = 0.1
SINKHORN_ITERATIONS = 10
GUMBEL_SAMPLES = 5
BASE_TEMPERATURE = (1.5, 0.5)


def log_sinkhorn(log_alpha: torch.Tensor, iterations: int = SINKHORN_ITERATIONS, tol: float | None = None) -> torch.Tensor:
    """``log S(alpha)`` for ``log_alpha`` (…, n, n): ``iterations`` rounds of row then column
    normalisation in the log domain (each round ends with exact column sums of 1). With ``tol``,
    ``iterations`` is a maximum: it stops once every row sum is within ``tol`` of 1."""
    for _ in range(iterations):
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-1, keepdim=True)
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-2, keepdim=True)
        if tol is not None and (torch.logsumexp(log_alpha, dim=-1).exp() - 1).abs().max() <= tol:
            break
    return log_alpha


def gumbel_noise(shape: tuple[int, ...], generator: torch.Generator | None = None, eps: float = 1e-20) -> torch.Tensor:
    """Standard Gumbel samples ``-log(-log U)`` of the given shape (float32)."""
    u = torch.rand(shape, generator=generator)
    return -torch.log(-torch.log(u + eps) + eps)


def normalized_entropy(p: torch.Tensor, dim: int) -> torch.Tensor:
    """Entropy of ``p`` (…, n, n) along ``dim``, divided by ``log n`` (in [0, 1] for distributions)."""
    n = p.shape[dim]
    if n < 2:
        return torch.zeros_like(p.sum(dim))
    return -(p * torch.log(p.clamp_min(1e-30))).sum(dim) / math.log(n)


def adaptive_temperature(
    p: torch.Tensor,
    base: float | torch.Tensor,
    *,
    threshold: float = ENTROPY_THRESHOLD,
    max_boost: float = MAX_BOOST,
    combine: str = "mean",
) -> torch.Tensor:
    """The per-entry temperature (…, n, n) for the soft assignment ``p`` (…, n, n), without gradient.

    Rows (entropy over their columns) and columns (over their rows) above ``threshold`` get the
    boost ``max_boost * min(1, (h - threshold) / (1 - threshold))``; ``combine`` ("mean" or "max")
    merges an entry's row and column boost; the result is ``base * (1 + boost)``, so it lies in
    ``[base, base * (1 + max_boost)]`` and equals ``base`` where both entropies are at most
    ``threshold``."""
    if not 0.0 <= threshold < 1.0:
        raise ValueError(f"entropy threshold must be in [0, 1), got {threshold}")
    p = p.detach()
    excess = lambda h: max_boost * ((h - threshold) / (1.0 - threshold)).clamp(0.0, 1.0)  # noqa: E731
    rows = excess(normalized_entropy(p, -1)).unsqueeze(-1)  # (…, n, 1)
    cols = excess(normalized_entropy(p, -2)).unsqueeze(-2)  # (…, 1, n)
    if combine == "mean":
        boost = 0.5 * (rows + cols)
    elif combine == "max":
        boost = torch.maximum(rows, cols)
    else:
        raise ValueError(f"unknown combine rule {combine!r}; valid: mean, max")
    return base * (1.0 + boost)


def gumbel_sinkhorn(
    logits: torch.Tensor,
    temperature: float | torch.Tensor,
    *,
    samples: int = GUMBEL_SAMPLES,
    iterations: int = SINKHORN_ITERATIONS,
    tol: float | None = None,
    noise: float = 1.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Soft permutations (samples, …, n, n): ``S((logits + noise * G) / temperature)`` for
    ``samples`` independent Gumbel draws ``G``; ``temperature`` is a scalar or a tensor that
    broadcasts against ``logits`` (a per-entry matrix from :func:`adaptive_temperature`);
    ``iterations`` and ``tol`` as in :func:`log_sinkhorn`."""
    g = gumbel_noise((samples, *logits.shape), generator).to(logits.dtype) * noise if noise > 0 else 0.0
    noisy = logits.unsqueeze(0) + g
    if isinstance(temperature, torch.Tensor) and temperature.dim() >= 2:
        noisy = double_centre(noisy)
    return torch.exp(log_sinkhorn(noisy / temperature, iterations, tol))


def double_centre(x: torch.Tensor) -> torch.Tensor:
    """``x`` (…, n, n) minus its row and column means plus its overall mean. Sinkhorn ignores row
    and column constants, but an entry-wise temperature would turn them into a bias: a row's
    common offset ``c`` divided by column-dependent temperatures favours the cooler columns by
    ``c (1 / T_ij - 1 / T_ik)``, whatever the row's own preferences. Removing them first makes the
    adaptive temperature act on the assignment information alone (and leaves scalar temperatures'
    results unchanged)."""
    return x - x.mean(-1, keepdim=True) - x.mean(-2, keepdim=True) + x.mean((-2, -1), keepdim=True)


class TemperatureSchedule:
    """The temperature of training step ``t`` of ``total``, for the three variants compared:

    - ``fixed``: ``T = fixed`` throughout;
    - ``annealed``: one global ``T`` from ``start`` to ``end``, geometric in ``t / total``;
    - ``adaptive``: that annealed base, boosted entry-wise by :func:`adaptive_temperature` from the
      current soft assignment ``S(logits / base)`` (no noise, no gradient).
    """

    VARIANTS = ("adaptive", "fixed", "annealed")

    def __init__(
        self,
        variant: str = "adaptive",
        *,
        start: float = BASE_TEMPERATURE[0],
        end: float = BASE_TEMPERATURE[1],
        fixed: float = 1.0,
        threshold: float = ENTROPY_THRESHOLD,
        max_boost: float = MAX_BOOST,
        combine: str = "mean",
        iterations: int = SINKHORN_ITERATIONS,
    ) -> None:
        if variant not in self.VARIANTS:
            raise ValueError(f"unknown temperature {variant!r}; valid: {', '.join(self.VARIANTS)}")
        if min(start, end, fixed) <= 0:
            raise ValueError("temperatures must be positive")
        self.variant, self.start, self.end, self.fixed = variant, start, end, fixed
        self.threshold, self.max_boost, self.combine, self.iterations = threshold, max_boost, combine, iterations

    def base(self, step: int, total: int) -> float:
        """The global (base) temperature at ``step`` of ``total``."""
        if self.variant == "fixed":
            return self.fixed
        frac = min(max(step / max(total - 1, 1), 0.0), 1.0)
        return self.start * (self.end / self.start) ** frac

    def __call__(self, logits: torch.Tensor, step: int, total: int) -> float | torch.Tensor:
        """The temperature (a float, or a (…, n, n) tensor for ``adaptive``) for ``logits``."""
        base = self.base(step, total)
        if self.variant != "adaptive":
            return base
        with torch.no_grad():
            p = torch.exp(log_sinkhorn(logits.detach() / base, self.iterations))
        return adaptive_temperature(p, base, threshold=self.threshold, max_boost=self.max_boost, combine=self.combine)
