"""Jigsaw reassembly as a latent permutation: ``P[i, a]`` puts piece ``i`` at grid position ``a``;
the loss is the expected discontinuity of the soft arrangement,
``sum_{(a, b) horizontal} p_a^T H p_b + sum_{(a, b) vertical} p_a^T V p_b`` (``p_a`` column ``a``
of ``P``, ``H`` and ``V`` the problem's edge dissimilarities, scaled by their mean). Decoded by the
Hungarian algorithm, then improved by a local search (pairwise swaps, cyclic shifts of the grid,
exchanges of grid rows or columns) while a move lowers the discontinuity.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from cosolve.core.numba_compile import njit
from cosolve.methods.sinkhorn.latent import restarted_latent
from cosolve.methods.sinkhorn.operator import TemperatureSchedule
from cosolve.problems.jigsaw import Jigsaw


def expected_discontinuity(
    p: torch.Tensor, h: torch.Tensor, v: torch.Tensor, right: torch.Tensor, below: torch.Tensor
) -> torch.Tensor:
    """Expected discontinuity (…) of soft arrangements ``p`` (…, n, n); ``h``, ``v`` (n, n) piece
    dissimilarities of one puzzle, or (B, n, n) of a batch of puzzles against ``p`` (…, B, n, n)
    (any shapes that broadcast in a matrix product); ``right``, ``below`` (k, 2) position pairs of
    the puzzles' common grid."""
    mh = p.transpose(-1, -2) @ h @ p  # (…, positions, positions)
    mv = p.transpose(-1, -2) @ v @ p
    return mh[..., right[:, 0], right[:, 1]].sum(-1) + mv[..., below[:, 0], below[:, 1]].sum(-1)


def scaled_dissimilarities(problem: Jigsaw) -> tuple[torch.Tensor, torch.Tensor]:
    """The puzzle's ``horizontal`` and ``vertical`` dissimilarities (n, n) float32, divided by their
    common mean, so that the loss has the same scale on every image."""
    scale = max(float(np.mean(problem.horizontal) + np.mean(problem.vertical)) / 2.0, 1e-12)
    tensor = lambda d: torch.tensor(d / scale, dtype=torch.float32)  # noqa: E731
    return tensor(problem.horizontal), tensor(problem.vertical)


def _block_moves(perm: np.ndarray, rows: int, cols: int) -> list[np.ndarray]:
    """Arrangements one block move away: the whole grid shifted cyclically by (dr, dc), and two
    grid rows or two grid columns exchanged (moves that pairwise swaps cannot make one at a time)."""
    r, c = np.divmod(perm, cols)
    out = []
    for dr in range(rows):
        for dc in range(cols):
            if dr or dc:
                out.append(((r + dr) % rows) * cols + (c + dc) % cols)
    for a in range(rows):
        for b in range(a + 1, rows):
            rr = np.where(r == a, b, np.where(r == b, a, r))
            out.append(rr * cols + c)
    for a in range(cols):
        for b in range(a + 1, cols):
            cc = np.where(c == a, b, np.where(c == b, a, c))
            out.append(r * cols + cc)
    return out


@njit(cache=True)
def _edges_at(piece_at: np.ndarray, h: np.ndarray, v: np.ndarray, rows: int, cols: int, pos: int) -> float:
    """Dissimilarity of the (up to four) seams of grid position ``pos``."""
    r, c = divmod(pos, cols)
    here = piece_at[pos]
    total = 0.0
    if c > 0:
        total += h[piece_at[pos - 1], here]
    if c < cols - 1:
        total += h[here, piece_at[pos + 1]]
    if r > 0:
        total += v[piece_at[pos - cols], here]
    if r < rows - 1:
        total += v[here, piece_at[pos + cols]]
    return total


@njit(cache=True)
def _seam(piece_at: np.ndarray, h: np.ndarray, v: np.ndarray, cols: int, a: int, b: int) -> float:
    """The seam between positions a < b if they touch, else 0."""
    if b == a + 1 and b % cols != 0:
        return h[piece_at[a], piece_at[b]]
    if b == a + cols:
        return v[piece_at[a], piece_at[b]]
    return 0.0


@njit(cache=True)
def best_swap_kernel(piece_at: np.ndarray, h: np.ndarray, v: np.ndarray, rows: int, cols: int) -> tuple[int, int, float]:
    """The exchange of two positions' pieces that lowers the discontinuity most: ``(a, b, gain)``,
    ``gain`` <= 0 when none lowers it. Each candidate costs O(1): only the seams of a and b change."""
    n = piece_at.size
    best_a, best_b, best_gain = -1, -1, 0.0
    for a in range(n - 1):
        for b in range(a + 1, n):
            before = _edges_at(piece_at, h, v, rows, cols, a) + _edges_at(piece_at, h, v, rows, cols, b)
            before -= _seam(piece_at, h, v, cols, a, b)
            piece_at[a], piece_at[b] = piece_at[b], piece_at[a]
            after = _edges_at(piece_at, h, v, rows, cols, a) + _edges_at(piece_at, h, v, rows, cols, b)
            after -= _seam(piece_at, h, v, cols, a, b)
            piece_at[a], piece_at[b] = piece_at[b], piece_at[a]
            if before - after > best_gain + 1e-12:
                best_a, best_b, best_gain = a, b, before - after
    return best_a, best_b, best_gain


def swap_search(problem: Jigsaw, perm: np.ndarray, stop: Callable[[], bool] = lambda: False) -> np.ndarray:
    """Local search on piece positions: best-improvement exchanges of two pieces until none lowers
    the discontinuity, then the best block move (cyclic shift of the grid, exchange of two grid rows
    or columns) if one does, and again, until neither improves."""
    rows, cols = problem.grid
    h, v = problem.horizontal, problem.vertical
    perm = np.array(perm, dtype=np.int64, copy=True)
    piece_at = np.empty(problem.n, np.int64)
    piece_at[perm] = np.arange(problem.n)
    while not stop():
        a, b, gain = best_swap_kernel(piece_at, h, v, rows, cols)
        if gain > 0.0:
            piece_at[a], piece_at[b] = piece_at[b], piece_at[a]
            continue
        perm[piece_at] = np.arange(problem.n)
        best = problem.discontinuity(perm)
        values = [(problem.discontinuity(q), q) for q in _block_moves(perm, rows, cols)]
        value, candidate = min(values, key=lambda t: t[0]) if values else (best, perm)
        if value >= best - 1e-12:
            break
        piece_at[candidate] = np.arange(problem.n)
    perm[piece_at] = np.arange(problem.n)
    return perm


def solve_jigsaw_latent(
    problem: Jigsaw,
    offer: Callable[[np.ndarray], None],
    schedule: TemperatureSchedule,
    *,
    steps: int,
    lr: float,
    samples: int,
    iterations: int,
    seed: int,
    stop: Callable[[], bool],
    runs: int = 0,
) -> int:
    """Latent runs restarted until ``stop()`` or after ``runs`` (> 0) runs; ``offer(perm)`` sees each
    decoded arrangement after the swap search. Returns the number of runs."""
    h, v = scaled_dissimilarities(problem)
    right, below = (torch.tensor(a) for a in problem.adjacency())

    def polish(perm: np.ndarray) -> None:
        offer(swap_search(problem, perm, stop))

    return restarted_latent(
        problem.n, lambda p: expected_discontinuity(p, h, v, right, below).mean(), polish, schedule, steps=steps,
        lr=lr, samples=samples, iterations=iterations, seed=seed, stop=stop, runs=runs,
    )  # fmt: skip
