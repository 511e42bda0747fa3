"""CAM's graph policies for :mod:`cosolve.training.adjoint`: hyperparameters (:class:`CAMConfig`,
stored in every checkpoint), the training task on graph problems (:class:`CAMTask`) and checkpoints.

Training rollouts start from uniform noise at time 1 on a batch of graphs (a disjoint union),
the energy is the problem's penalised QUBO (:mod:`cosolve.diffusion.energies`), and validation
samples the held-out graphs with the current policy, decodes every chain to a feasible solution
and scores the mean over graphs of the best chain's objective.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.core.result import Sense
from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.decode import decode
from cosolve.diffusion.inference import decode_best, graph_logits, policy_rule, sample
from cosolve.diffusion.sampler import uniform_start
from cosolve.methods.cam.cam_config import CAMConfig
from cosolve.methods.cam.flip_policy import FlipPolicy, GraphTensors
from cosolve.problems.graphs import GRAPH_PROBLEMS
from cosolve.training.adjoint import AdjointTask
from cosolve.training.checkpoint import load_policy
from cosolve.training.progress import Validation


@dataclass
class CAMBatch:
    """Graphs of one kind as one batch, with the tensors the policy reads."""

    graphs: GraphBatch
    tensors: GraphTensors
    base: Any = None  # base(gain, t) -> logits (K, N) of a residual policy


class CAMTask(AdjointTask):
    """Adjoint matching of a graph flip policy on graphs of ``config.problem``."""

    devices = ("cpu", "cuda")

    def __init__(self, config: CAMConfig) -> None:
        super().__init__(config)
        self.sense = GRAPH_PROBLEMS[config.problem].sense

    def collate(self, items: list[Any]) -> CAMBatch:
        graphs = GraphBatch(items, penalty=self.config.penalty)
        tensors = GraphTensors.from_coupling(graphs.coupling).to(self.device)
        return CAMBatch(graphs, tensors, self.config.base_logits(graphs))

    def start(self, batch: CAMBatch, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        return uniform_start(self.config.chains, batch.graphs.n, rng), 1.0

    def logits(self, model: nn.Module, batch: CAMBatch, x: np.ndarray, t: float) -> torch.Tensor:
        return graph_logits(model, batch.graphs, batch.tensors, x, t, batch.base)

    def gradient(self, batch: CAMBatch, x: np.ndarray) -> np.ndarray:
        return batch.graphs.energy.grad(x)

    def energy(self, batch: CAMBatch, x: np.ndarray) -> float:
        return float(batch.graphs.graph_energies(x).mean())

    def chain_scores(self, batch: CAMBatch, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each chain's final state decoded to a feasible solution and scored by its objective
        (negated for minimisation) per graph: (K, B); the graph of each node (N,)."""
        graphs = batch.graphs
        scores = np.empty((final.shape[0], len(graphs)))
        sign = 1.0 if self.sense is Sense.MAXIMIZE else -1.0
        for b, (problem, part) in enumerate(zip(graphs.problems, graphs.split(final), strict=True)):
            solutions = decode(problem, part.astype(np.float64), part)
            scores[:, b] = [sign * problem.evaluate(x).objective for x in solutions]
        owner = np.repeat(np.arange(len(graphs)), np.diff(graphs.offsets))
        return scores, owner

    def validate(self, policy: nn.Module, batch: CAMBatch) -> Validation:
        """Sample the held-out graphs (one batch) with ``policy`` and decode them."""
        c = self.config
        rng = np.random.default_rng(0)
        rule = policy_rule(policy, batch.graphs, batch.tensors, batch.base)
        out = sample(rule, batch.graphs, c.validation_chains, c.steps, rng)
        values = [value for _, value in decode_best(batch.graphs, out.marginal, out.final)]
        return Validation(objective=float(np.mean(values)), energy=float(batch.graphs.graph_energies(out.final).mean()))

    def card(self) -> tuple[str, str, str]:
        c = self.config
        on = f" on {c.distribution}" if c.distribution else ""
        about = (
            "A discrete-diffusion flip policy (message-passing GNN) trained without labels by Combinatorial Adjoint "
            f"Matching (Feng et al., ICML 2026) in cosolve (`cosolve.methods.cam.cam_task`). Use it with `cosolve solve GRAPH "
            f'--problem {c.problem} --method cam --set checkpoint=PATH`, or `Solver("cam", checkpoint=PATH)`. Intended '
            "for graphs like its training graphs; on others it still returns feasible solutions (decoding guarantees "
            "feasibility) but their quality is not measured."
        )
        validation = f"{c.validation_chains} chains, {c.steps} steps, best decoded chain per graph; mean objective"
        return f"CAM checkpoint: {c.problem}{on}", about, validation


def load_checkpoint(path: str | Path) -> tuple[FlipPolicy, CAMConfig, dict[str, Any]]:
    """Policy (eval mode), config and meta of a CAM checkpoint file, or of ``path/model.pt``."""
    return load_policy(path, CAMConfig)
