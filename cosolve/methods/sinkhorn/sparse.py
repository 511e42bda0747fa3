"""Gumbel–Sinkhorn on a sparse pattern of allowed entries (torch).

A soft permutation restricted to the entries ``(rows[e], cols[e])`` of a :class:`SparsePattern`
(E entries of an n x n matrix, every row and column with at least one) is stored as a vector
(…, E). Sinkhorn's row and column normalisations become log-sum-exps over the entries of each
row and column (segment reductions), so a step costs O(E) instead of O(n^2). The entropy-adaptive
temperature of :mod:`cosolve.methods.sinkhorn.operator` carries over: a row's (column's)
normalised entropy is over its own entries, divided by the log of their number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from cosolve.methods.sinkhorn.operator import TemperatureSchedule, gumbel_noise


@dataclass(frozen=True)
class SparsePattern:
    """The allowed entries of an n x n matrix: ``rows`` and ``cols`` (E,) int64, sorted by row then
    column, no repeats; ``reverse`` (E,) the index of entry (col, row) (-1 when it is not allowed)."""

    n: int
    rows: torch.Tensor
    cols: torch.Tensor
    reverse: torch.Tensor

    @staticmethod
    def symmetric(neighbors: np.ndarray) -> SparsePattern:
        """The pattern of the edges (i, ``neighbors[i, t]``) in both directions: every row and
        column then has at least ``neighbors.shape[1]`` entries, and every entry a reverse."""
        neighbors = np.asarray(neighbors, dtype=np.int64)
        n, k = neighbors.shape
        i = np.repeat(np.arange(n, dtype=np.int64), k)
        j = neighbors.ravel()
        keys = np.unique(np.concatenate([i * n + j, j * n + i]))
        keys = keys[keys // n != keys % n]
        rows, cols = keys // n, keys % n
        reverse = np.searchsorted(keys, cols * n + rows)
        return SparsePattern(n, torch.from_numpy(rows), torch.from_numpy(cols), torch.from_numpy(reverse))

    def index_of(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The entry index of each (rows, cols) pair (they must be allowed)."""
        keys = self.rows.numpy() * self.n + self.cols.numpy()
        return np.searchsorted(keys, np.asarray(rows, dtype=np.int64) * self.n + np.asarray(cols, dtype=np.int64))


def segment_logsumexp(x: torch.Tensor, index: torch.Tensor, n: int) -> torch.Tensor:
    """``out[…, s] = log sum_{e: index[e] = s} exp(x[…, e])`` for ``x`` (…, E) -> (…, n)."""
    idx = index.expand_as(x)
    top = torch.full((*x.shape[:-1], n), -torch.inf, dtype=x.dtype).scatter_reduce(-1, idx, x.detach(), "amax", include_self=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    total = torch.zeros_like(top).scatter_add(-1, idx, torch.exp(x - top.gather(-1, idx)))
    return torch.log(total) + top


def sparse_log_sinkhorn(x: torch.Tensor, pattern: SparsePattern, iterations: int) -> torch.Tensor:
    """``log S(exp x)`` on the pattern: ``iterations`` rounds of row then column normalisation."""
    for _ in range(iterations):
        x = x - segment_logsumexp(x, pattern.rows, pattern.n).gather(-1, pattern.rows.expand_as(x))
        x = x - segment_logsumexp(x, pattern.cols, pattern.n).gather(-1, pattern.cols.expand_as(x))
    return x


def _segment_mean(x: torch.Tensor, index: torch.Tensor, n: int) -> torch.Tensor:
    idx = index.expand_as(x)
    total = torch.zeros((*x.shape[:-1], n), dtype=x.dtype).scatter_add(-1, idx, x)
    count = torch.zeros(n, dtype=x.dtype).scatter_add(0, index, torch.ones_like(index, dtype=x.dtype))
    return (total / count.clamp_min(1)).gather(-1, idx)


def sparse_double_centre(x: torch.Tensor, pattern: SparsePattern) -> torch.Tensor:
    """``x`` (…, E) less its row and column means plus its overall mean (over the allowed entries),
    as :func:`cosolve.methods.sinkhorn.operator.double_centre` does for full matrices."""
    return x - _segment_mean(x, pattern.rows, pattern.n) - _segment_mean(x, pattern.cols, pattern.n) + x.mean(-1, keepdim=True)


def _normalized_entropy(p: torch.Tensor, index: torch.Tensor, n: int) -> torch.Tensor:
    idx = index.expand_as(p)
    h = torch.zeros((*p.shape[:-1], n), dtype=p.dtype).scatter_add(-1, idx, -p * torch.log(p.clamp_min(1e-30)))
    count = torch.zeros(n, dtype=p.dtype).scatter_add(0, index, torch.ones_like(index, dtype=p.dtype))
    return (h / torch.log(count.clamp_min(2))).gather(-1, idx)


def sparse_temperature(
    schedule: TemperatureSchedule, logits: torch.Tensor, pattern: SparsePattern, step: int, total: int
) -> float | torch.Tensor:
    """The temperature of ``schedule`` at ``step`` of ``total`` for ``logits`` (E,): the base
    (fixed, annealed), or (adaptive) per entry ``base * (1 + boost)`` with the mean of its row's
    and column's boosts, as :func:`cosolve.methods.sinkhorn.operator.adaptive_temperature`."""
    base = schedule.base(step, total)
    if schedule.variant != "adaptive":
        return base
    with torch.no_grad():
        p = torch.exp(sparse_log_sinkhorn(logits.detach() / base, pattern, schedule.iterations))
        excess = lambda h: schedule.max_boost * ((h - schedule.threshold) / (1.0 - schedule.threshold)).clamp(0.0, 1.0)  # noqa: E731
        rows = excess(_normalized_entropy(p, pattern.rows, pattern.n))
        cols = excess(_normalized_entropy(p, pattern.cols, pattern.n))
        boost = torch.maximum(rows, cols) if schedule.combine == "max" else 0.5 * (rows + cols)
    return base * (1.0 + boost)


def sparse_gumbel_sinkhorn(
    logits: torch.Tensor,
    temperature: float | torch.Tensor,
    pattern: SparsePattern,
    *,
    samples: int,
    iterations: int,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Soft permutations (samples, E) on the pattern: ``S((logits + G) / temperature)``, ``G``
    standard Gumbel noise per sample; an entry-wise temperature acts on the doubly centred noisy
    logits (see :func:`cosolve.methods.sinkhorn.operator.double_centre`)."""
    noisy = logits.unsqueeze(0) + gumbel_noise((samples, logits.shape[-1]), generator).to(logits.dtype)
    if isinstance(temperature, torch.Tensor):
        noisy = sparse_double_centre(noisy, pattern)
    return torch.exp(sparse_log_sinkhorn(noisy / temperature, pattern, iterations))
