"""GLNS's set cover policy for :mod:`cosolve.training.adjoint`: hyperparameters (:class:`GLNSConfig`,
stored in every checkpoint), the training task (:class:`GLNSTask`) and checkpoints.

The policy learns what GLNS asks of it: to denoise a partially noised incumbent toward a cheaper
cover. Each instance is prepared once (:class:`Prepared`): an incumbent (greedy + swap local
search) and Lagrangian reduced costs; costs and reduced costs are divided by the largest cost. A
training rollout starts at the incumbent with a share ``noise ~ U(noise_min, noise_max)`` of its
bits redrawn and runs T steps from time ``noise`` to 0, on the set cover energy
``sum c_j x_j + B * #uncovered rows``. Validation runs the policy from the incumbent with noise
``validation_noise`` on the held-out instances, completes each chain's final state to a cover
(greedy, redundancy removal) and scores the mean over instances of ``best chain's cost /
incumbent cost`` (lower is better).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn

from cosolve.diffusion.energies import CoverEnergy
from cosolve.diffusion.sampler import rollout
from cosolve.methods.glns.cover_policy import CoverPolicy, CoverTensors, cover_logits
from cosolve.methods.glns.glns_config import GLNSConfig
from cosolve.methods.glns.instability import partial_noise
from cosolve.problems.setcover import SetCover
from cosolve.training.adjoint import AdjointTask
from cosolve.training.checkpoint import load_policy
from cosolve.training.progress import Validation


@dataclass
class Prepared:
    """An instance with its incumbent, scaled costs and reduced costs (as GLNS sees a region)."""

    problem: SetCover
    incumbent: np.ndarray
    costs: np.ndarray
    reduced: np.ndarray

    @classmethod
    def of(cls, problem: SetCover) -> Prepared:
        from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
        from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
        from cosolve.heuristics.setcover.swap_search import swap_local_search

        costs, csr, csc = problem.costs, problem.matrix, problem.csc
        x = swap_local_search(costs, csr, csc, greedy_set_cover(costs, csr, csc))
        lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=300)
        scale = max(float(costs.max()), 1e-12)
        return cls(problem, x, costs / scale, lag.reduced / scale)


@dataclass
class CoverBatch:
    """Prepared instances as one block-diagonal set cover: energy, policy tensors and offsets."""

    parts: list[Prepared]
    energy: CoverEnergy
    tensors: CoverTensors
    offsets: np.ndarray

    @classmethod
    def of(cls, parts: list[Prepared], penalty: float) -> CoverBatch:
        matrix = sp.csr_array(sp.block_diag([p.problem.matrix for p in parts], "csr"), dtype=np.float64)
        costs = np.concatenate([p.costs for p in parts])
        reduced = np.concatenate([p.reduced for p in parts])
        incumbent = np.concatenate([p.incumbent for p in parts])
        offsets = np.r_[0, np.cumsum([p.problem.n_cols for p in parts])]
        return cls(
            parts, CoverEnergy(matrix, costs, penalty=penalty), CoverTensors.build(matrix, costs, reduced, incumbent), offsets
        )

    @property
    def incumbent(self) -> np.ndarray:
        return self.tensors.graph.incumbent.astype(np.int8)


def complete_cover(problem: SetCover, x: np.ndarray) -> np.ndarray:
    """A minimal cover from the 0/1 state ``x`` (n,): greedy completion, then redundancy removal."""
    from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant

    y = chvatal_greedy(problem.costs, problem.matrix, problem.csc, start=x)
    return remove_redundant(problem.costs, problem.csc, y)


class GLNSTask(AdjointTask):
    """Adjoint matching of the set cover flip policy, from partially noised incumbents."""

    def prepare(self, problem: Any) -> Prepared:
        return Prepared.of(problem)

    def collate(self, items: list[Any]) -> CoverBatch:
        return CoverBatch.of(items, self.config.penalty)

    def start(self, batch: CoverBatch, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        noise = float(rng.uniform(self.config.noise_min, self.config.noise_max))
        return partial_noise(batch.incumbent, self.config.chains, noise, rng), noise

    def logits(self, model: nn.Module, batch: CoverBatch, x: np.ndarray, t: float) -> torch.Tensor:
        return cover_logits(model, batch.energy, batch.tensors, x, t)

    def gradient(self, batch: CoverBatch, x: np.ndarray) -> np.ndarray:
        return batch.energy.grad(x)

    def energy(self, batch: CoverBatch, x: np.ndarray) -> float:
        return float(batch.energy.energy(x).mean())

    def validate(self, policy: nn.Module, batch: CoverBatch) -> Validation:
        """Mean over the batch's instances of the best completed chain's cost over the incumbent's."""
        c = self.config
        rng = np.random.default_rng(0)
        start = partial_noise(batch.incumbent, c.chains, c.validation_noise, rng)
        out = rollout(self.rule(policy, batch), start, c.steps, rng, start_time=c.validation_noise)
        ratios = []
        for b, part in enumerate(batch.parts):
            lo, hi = batch.offsets[b], batch.offsets[b + 1]
            base = float(part.problem.costs @ part.incumbent)
            best = min(float(part.problem.costs @ complete_cover(part.problem, out.final[k, lo:hi])) for k in range(c.chains))
            ratios.append(best / base)
        return Validation(objective=float(np.mean(ratios)), energy=float(batch.energy.energy(out.final).mean()))

    def card(self) -> tuple[str, str, str]:
        c = self.config
        about = (
            "A bipartite (rows x columns) message-passing GNN trained without labels by Combinatorial Adjoint Matching on "
            "the set cover energy, used by the `glns` method to find where a denoising trajectory around the incumbent is "
            "unstable (`cosolve.methods.glns`). Use it with `cosolve solve INSTANCE --method glns --set checkpoint=PATH`."
        )
        validation = (
            f"{c.chains} chains, {c.steps} steps from the incumbent with {c.validation_noise:g} of its bits redrawn; best "
            "completed chain's cost over the incumbent's, mean (below 1: the sampler finds cheaper covers)"
        )
        return "GLNS checkpoint: set cover flip policy", about, validation


def load_checkpoint(path: str | Path) -> tuple[CoverPolicy, GLNSConfig, dict[str, Any]]:
    """Policy (eval mode), config and meta of a GLNS checkpoint file, or of ``path/model.pt``."""
    return load_policy(path, GLNSConfig)
