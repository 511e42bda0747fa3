"""The jigsaw task: a small CNN maps each piece alone to its row of assignment logits (Mena et al.
2018), trained without labels on the expected discontinuity of the soft arrangement (or, as the
supervised reference, on the log weight of each piece at its true position).

Shapes: pieces (B, n, C, s, s) float32 in [0, 1] (``Jigsaw.pieces`` is (n, s, s, C)); logits
(B, n, n) with row ``i`` for piece ``i`` and column ``a`` for grid position ``a`` (row-major), as
the package's jigsaw solutions ``perm[i]`` = position of piece ``i``; soft arrangements
(S, B, n, n); each puzzle's dissimilarities ``h``, ``v`` (B, n, n), scaled by their mean as the
per-instance solver does (:func:`~cosolve.methods.sinkhorn.jigsaw.scaled_dissimilarities`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import nn

from cosolve.errors import UsageError
from cosolve.methods.sinkhorn.jigsaw import expected_discontinuity, scaled_dissimilarities
from cosolve.methods.sinkhorn.permutation_metrics import in_place, perfect
from cosolve.methods.sinkhorn.permutation_task import Task
from cosolve.problems.jigsaw import Jigsaw, cut, grid_adjacency

#: what a batch of puzzles shares: the grid (rows, cols) and the piece shape (s, s, C)
Signature = tuple[tuple[int, int], tuple[int, ...]]


class JigsawNet(nn.Module):
    """One shared CNN applied to every piece separately: ``C -> 8`` and ``8 -> 16`` 3x3 convolutions
    (ReLU; the second with stride 2), average pooled to 2 x 2, then ``64 -> hidden (ReLU) -> n``:
    the piece's row of logits over the ``n`` grid positions. Any piece size s >= 2."""

    def __init__(self, n: int, channels: int = 1, hidden: int = 32) -> None:
        super().__init__()
        self.n, self.channels = n, channels
        self.features = nn.Sequential(
            nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1, stride=2), nn.ReLU(),
            nn.AdaptiveAvgPool2d(2), nn.Flatten(),
        )  # fmt: skip
        self.head = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, n))

    def forward(self, pieces: torch.Tensor) -> torch.Tensor:
        """``pieces`` (B, n, C, s, s) -> logits (B, n, n)."""
        if pieces.dim() != 5 or pieces.shape[1] != self.n or pieces.shape[2] != self.channels:
            raise ValueError(f"this network takes (B, {self.n}, {self.channels}, s, s) pieces, got {tuple(pieces.shape)}")
        b, n = pieces.shape[:2]
        return self.head(self.features(pieces.flatten(0, 1))).view(b, n, self.n)


def puzzle_tensors(puzzles: Sequence[Jigsaw]) -> tuple[torch.Tensor, ...]:
    """Puzzles of one grid and piece shape -> pieces (B, n, C, s, s), ``h`` and ``v`` (B, n, n),
    float32, and each puzzle's true positions (B, n) int64 (-1 where a puzzle has no ``truth``)."""
    pieces = torch.tensor(np.stack([p.pieces for p in puzzles]), dtype=torch.float32).permute(0, 1, 4, 2, 3)
    h, v = zip(*(scaled_dissimilarities(p) for p in puzzles), strict=True)
    n = pieces.shape[1]
    truth = np.stack([p.truth if p.truth is not None else np.full(n, -1) for p in puzzles]).astype(np.int64)
    return pieces.contiguous(), torch.stack(h), torch.stack(v), torch.from_numpy(truth)


def discontinuity_loss(grid: tuple[int, int]) -> Callable[..., torch.Tensor]:
    """The unsupervised loss for puzzles on ``grid``: ``loss(p, pieces, h, v, truth)``, the expected
    discontinuity of the soft arrangements ``p`` (S, B, n, n), averaged over samples and puzzles
    (``truth`` unused)."""
    right, below = (torch.from_numpy(a) for a in grid_adjacency(*grid))

    def loss(p: torch.Tensor, pieces: torch.Tensor, h: torch.Tensor, v: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
        return expected_discontinuity(p, h, v, right, below).mean()

    return loss


def placement_loss(p: torch.Tensor, pieces: torch.Tensor, h: torch.Tensor, v: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """The supervised reference: minus the mean log weight of each piece at its true position,
    ``-mean log P[i, truth_i]`` over samples, puzzles and pieces. Needs every puzzle's ``truth``."""
    if bool((truth < 0).any()):
        raise UsageError("objective=supervised needs puzzles that hold their true arrangement (truth)")
    weights = p.gather(-1, truth.unsqueeze(-1).expand(*p.shape[:-1], 1))
    return -torch.log(weights.clamp_min(1e-12)).mean()


def jigsaw_score(pred: np.ndarray, true: np.ndarray) -> dict[str, float]:
    """The proportion of pieces in place and of puzzles reassembled perfectly."""
    return {"pieces_in_place": in_place(pred, true), "perfect": perfect(pred, true)}


def _describe(signature: Signature) -> str:
    (rows, cols), (s, _, c) = signature
    return f"a {rows} x {cols} grid of {s} x {s} pieces with {c} channel(s)"


JIGSAW_TASK = Task(
    kind="jigsaw",
    signature=lambda p: (p.grid, p.pieces.shape[1:]),
    describe=_describe,
    network=lambda sig, hidden: JigsawNet(sig[0][0] * sig[0][1], sig[1][2], hidden),
    tensors=puzzle_tensors,
    loss=lambda sig, objective: discontinuity_loss(sig[0]) if objective == "unsupervised" else placement_loss,
    objectives=("unsupervised", "supervised"),
    truth=lambda p: p.truth,
    score=jigsaw_score,
    headline="pieces_in_place",
)


def smooth_image(size: int, *, channels: int = 1, gradient: float = 0.7, seed: int = 0) -> np.ndarray:
    """A synthetic image (size, size[, channels]) in [0.1, 0.9]: the ramp ``(2x + y) / 3`` (dark top
    left, bright bottom right; the four quarters differ in brightness), weighted by ``gradient``,
    plus a random low-frequency pattern (three cosines of at most 1.5 cycles across the image)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size] / max(size - 1, 1)
    ramp = (2 * x + y) / 3
    layers = []
    for _ in range(channels):
        wave = sum(
            np.cos(2 * np.pi * (rng.uniform(-1.5, 1.5) * x + rng.uniform(-1.5, 1.5) * y) + rng.uniform(0, 2 * np.pi))
            for _ in range(3)
        )
        wave = (wave + 3) / 6  # in [0, 1]
        layers.append(0.1 + 0.8 * (gradient * ramp + (1 - gradient) * wave))
    image = np.stack(layers, axis=-1)
    return image[..., 0] if channels == 1 else image


def synthetic_puzzles(
    count: int, *, k: int = 2, size: int = 16, channels: int = 1, gradient: float = 0.7, seed: int = 0
) -> list[Jigsaw]:
    """``count`` shuffled k x k puzzles cut from :func:`smooth_image` images (no image files needed);
    the brightness ramp is a cue to each piece's position that a network can learn."""
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, 2**31, size=(count, 2))
    return [
        cut(
            smooth_image(size, channels=channels, gradient=gradient, seed=int(a)),
            k,
            seed=int(b),
            name=f"smooth{k}x{k}_s{seed}_{i}",
        )
        for i, (a, b) in enumerate(seeds)
    ]
