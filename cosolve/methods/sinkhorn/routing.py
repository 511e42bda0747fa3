"""TSP as a latent permutation: the tour is the permutation (``P[i, k]``: city ``i`` at position
``k``), optimised per instance by Gumbel–Sinkhorn on the expected tour length of the soft
permutation, ``sum_k p_k^T D p_{k+1}`` (``p_k`` column ``k`` of ``P``, positions cyclic), and decoded
by the Hungarian algorithm, then 2-opt.

City 0 is pinned to position 0 (a tour has n rotations; pinning removes them from the relaxation).
The relaxation's distances are Euclidean on coordinates scaled to the unit square for plane
metrics (EUC_2D, CEIL_2D, ATT), else the problem's distance matrix scaled to at most 1; the reported
objective is the problem's own (TSPLIB distances). Anytime: the logits restart from fresh noise after each run of
``steps``, every decoded and polished tour is offered, until the deadline.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from cosolve.heuristics.tsp import candidate_lists, two_opt
from cosolve.methods.sinkhorn.latent import restarted_latent
from cosolve.methods.sinkhorn.operator import TemperatureSchedule
from cosolve.problems.tsp import TSP

PIN = 1e4  # logit penalty that keeps every city but 0 off position 0 (and city 0 off the others)


def scaled_distances(coords: np.ndarray) -> torch.Tensor:
    """Euclidean distances (n, n) of ``coords`` scaled to the unit square, float32."""
    c = np.asarray(coords, dtype=np.float64)
    c = (c - c.min(axis=0)) / max(float(np.ptp(c, axis=0).max()), 1e-12)
    return torch.tensor(np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(-1)), dtype=torch.float32)


def expected_tour_length(p: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """``sum_k p_k^T D p_{k+1}`` per soft permutation: ``p`` (…, n, n), ``d`` (n, n) -> (…)."""
    nxt = torch.roll(p, shifts=-1, dims=-1)
    return (p * (d @ nxt)).sum((-2, -1))


def pin_mask(n: int) -> torch.Tensor:
    """Additive logits (n, n): 0 where allowed, ``-PIN`` on row 0 and column 0 except (0, 0)."""
    mask = torch.zeros(n, n)
    mask[0, 1:] = -PIN
    mask[1:, 0] = -PIN
    return mask


def tour_of(perm: np.ndarray) -> np.ndarray:
    """The visiting order (n,) of a permutation ``perm[i]`` = position of city ``i``."""
    return np.argsort(perm, kind="stable").astype(np.int64)


def solve_tsp_latent(
    problem: TSP,
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
    """Latent runs of ``steps`` each, restarted until ``stop()`` or after ``runs`` (> 0) runs;
    ``offer(tour)`` sees each decoded tour (the noiseless logits' and every Gumbel sample's
    matching) after 2-opt. Returns the number of runs."""
    if problem.planar:
        d = scaled_distances(problem.coords)
    else:
        matrix = problem.distances
        d = torch.tensor(matrix / max(float(matrix.max()), 1e-12), dtype=torch.float32)
    points, metric = problem.points, problem.metric_code
    neighbors = candidate_lists(points, metric=metric)

    def polish(perm: np.ndarray) -> None:
        tour, _ = two_opt(points, tour_of(perm), metric=metric, neighbors=neighbors, stop=stop)
        offer(tour)

    return restarted_latent(
        problem.n, lambda p: expected_tour_length(p, d).mean(), polish, schedule, steps=steps, lr=lr,
        samples=samples, iterations=iterations, seed=seed, stop=stop, runs=runs, offset=pin_mask(problem.n),
    )  # fmt: skip
