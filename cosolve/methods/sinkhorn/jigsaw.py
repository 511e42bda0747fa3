"""Jigsaw reassembly as a latent permutation: ``P[i, a]`` puts piece ``i`` at grid position ``a``;
the loss is the expected discontinuity of the soft arrangement,
``sum_{(a, b) horizontal} p_a^T H p_b + sum_{(a, b) vertical} p_a^T V p_b`` (``p_a`` column ``a``
of ``P``, ``H`` and ``V`` the problem's edge dissimilarities, scaled by their mean). Decoded by the
Hungarian algorithm, then improved by swapping pairs of pieces while a swap lowers the
discontinuity.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from cosolve.methods.sinkhorn.latent import restarted_latent
from cosolve.methods.sinkhorn.operator import TemperatureSchedule
from cosolve.problems.jigsaw import Jigsaw


def expected_discontinuity(
    p: torch.Tensor, h: torch.Tensor, v: torch.Tensor, right: torch.Tensor, below: torch.Tensor
) -> torch.Tensor:
    """Expected discontinuity (…) of soft arrangements ``p`` (…, n, n); ``h``, ``v`` (n, n) piece
    dissimilarities; ``right``, ``below`` (k, 2) position pairs."""
    mh = p.transpose(-1, -2) @ h @ p  # (…, positions, positions)
    mv = p.transpose(-1, -2) @ v @ p
    return mh[..., right[:, 0], right[:, 1]].sum(-1) + mv[..., below[:, 0], below[:, 1]].sum(-1)


def swap_search(problem: Jigsaw, perm: np.ndarray, stop: Callable[[], bool] = lambda: False) -> np.ndarray:
    """Best-improvement pairwise swaps of piece positions until no swap lowers the discontinuity."""
    perm = np.array(perm, dtype=np.int64, copy=True)
    best = problem.discontinuity(perm)
    n = problem.n
    while not stop():
        move, gain = None, 1e-12
        for i in range(n - 1):
            for j in range(i + 1, n):
                perm[i], perm[j] = perm[j], perm[i]
                value = problem.discontinuity(perm)
                perm[i], perm[j] = perm[j], perm[i]
                if best - value > gain:
                    move, gain = (i, j), best - value
        if move is None:
            break
        i, j = move
        perm[i], perm[j] = perm[j], perm[i]
        best -= gain
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
    scale = max(float(np.mean(problem.horizontal) + np.mean(problem.vertical)) / 2.0, 1e-12)
    h = torch.tensor(problem.horizontal / scale, dtype=torch.float32)
    v = torch.tensor(problem.vertical / scale, dtype=torch.float32)
    right, below = (torch.tensor(a) for a in problem.adjacency())

    def polish(perm: np.ndarray) -> None:
        offer(swap_search(problem, perm, stop))

    return restarted_latent(
        problem.n, lambda p: expected_discontinuity(p, h, v, right, below).mean(), polish, schedule, steps=steps,
        lr=lr, samples=samples, iterations=iterations, seed=seed, stop=stop, runs=runs,
    )  # fmt: skip
