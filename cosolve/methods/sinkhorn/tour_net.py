"""A network trained across TSP instances that gives the Gumbel–Sinkhorn TSP its starting logits.

The per-instance solve (:mod:`cosolve.methods.sinkhorn.latent_tour`) optimises free logits on the
candidate edges of one instance from noise. Here an MLP maps each candidate edge's scale-free
features (:func:`edge_features`) to its logit, and ``Solver("gumbel-sinkhorn").fit(...)`` on TSP
instances (a folder, a list, or a distribution such as ``tsp-uniform``) trains it with the same
label-free loss as the latent, :func:`~cosolve.methods.sinkhorn.latent_tour.successor_loss` (expected
tour length plus the two-city-cycle mass), per city, through sparse Gumbel–Sinkhorn with the
entropy-adaptive temperature whose base falls linearly from ``start`` to ``end`` over the training
budget (the loop's ``tau``: :mod:`cosolve.training.loop`, which also validates, keeps the best
network, writes checkpoints and resumes).

Validation: on held-out instances, the network's heat decoded by the greedy edge construction and
brought to a 2-opt + Or-opt optimum, as a ratio to the greedy edge tour by length brought to the
same optimum (below 1: the network decodes better tours than the edge lengths alone).

A solve with a fitted network starts the latent from the network's logits and decodes them before
the first Sinkhorn step.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from cosolve.heuristics.tsp.tour_construction import pair_distances_kernel
from cosolve.methods.sinkhorn.latent_tour import CandidateGraph, greedy_edge_search, heat, successor_loss
from cosolve.methods.sinkhorn.sparse import sparse_gumbel_sinkhorn, sparse_log_sinkhorn, sparse_temperature
from cosolve.methods.sinkhorn.training_config import SinkhornConfig
from cosolve.training.loop import TrainingTask
from cosolve.training.progress import Validation

#: the features of a candidate edge i -> j (columns of :func:`edge_features`)
EDGE_FEATURES = (
    "log(d_ij / d_i1)",  # d_i1: i's distance to its nearest city
    "log(d_ij / d_j1)",
    "log(d_ij / d_iK)",  # d_iK: i's distance to its K-th nearest city
    "log(d_ij / d_jK)",
    "rank of j among i's candidates / K (1 when j is not one)",
    "rank of i among j's candidates / K",
    "d_ij / mean candidate length",
)


def edge_features(graph: CandidateGraph) -> np.ndarray:
    """Features (E, 7) float32 of the graph's candidate edges (:data:`EDGE_FEATURES`): ratios of
    lengths and ranks, so they do not change with the instance's scale or size."""
    n, k = graph.lists.shape
    rows = graph.pattern.rows.numpy()
    cities = np.arange(n, dtype=np.int64)
    nearest = pair_distances_kernel(graph.points, graph.metric, cities, graph.lists[:, 0].copy())
    kth = pair_distances_kernel(graph.points, graph.metric, cities, graph.lists[:, -1].copy())
    d = graph.edge_lengths
    tiny = 1e-9 * max(float(d.mean()), 1e-12)  # duplicate cities: zero lengths
    cols = graph.pattern.cols.numpy()
    rank = np.full(len(rows), float(k))
    rank[graph.index.ravel()] = np.tile(np.arange(k, dtype=np.float64), n)
    ratio = lambda base: np.log((d + tiny) / (base + tiny))  # noqa: E731
    features = np.stack(
        [
            ratio(nearest[rows]), ratio(nearest[cols]), ratio(kth[rows]), ratio(kth[cols]),
            rank / k, rank[graph.pattern.reverse.numpy()] / k, d / max(float(d.mean()), 1e-12),
        ],
        axis=1,
    )  # fmt: skip
    return features.astype(np.float32)


class TourEdgeNet(nn.Module):
    """An MLP (7 -> ``hidden`` x ``layers`` -> 1, ReLU) from edge features (E, 7) to logits (E,)."""

    def __init__(self, *, hidden: int = 32, layers: int = 2) -> None:
        super().__init__()
        sizes = [len(EDGE_FEATURES)] + [hidden] * layers
        blocks: list[nn.Module] = []
        for a, b in itertools.pairwise(sizes):
            blocks += [nn.Linear(a, b), nn.ReLU()]
        self.body = nn.Sequential(*blocks, nn.Linear(sizes[-1], 1))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.body(features).squeeze(-1)


@dataclass
class TourNetConfig(SinkhornConfig):
    """:class:`~cosolve.methods.sinkhorn.training_config.SinkhornConfig` of the edge network (and
    its ``layers``), the candidate graph (``neighbors`` per city; a solve with the network uses the
    same) and the loss's ``cycle_penalty``."""

    policy_class: ClassVar[str] = "cosolve.methods.sinkhorn.tour_net:TourEdgeNet"
    what: ClassVar[str] = "Gumbel-Sinkhorn TSP"
    checkpoint_format: ClassVar[str] = "cosolve-sinkhorn-tsp/1"

    layers: int = 2
    neighbors: int = 10
    cycle_penalty: float = 1.0
    batch_size: int = 8
    validation_size: int = 16
    lr: float = 3e-3

    def policy(self) -> TourEdgeNet:
        return TourEdgeNet(hidden=self.hidden, layers=self.layers)


@dataclass
class PreparedTour:
    """An instance as training sees it: its candidate graph and edge features (E, 7)."""

    graph: CandidateGraph
    features: torch.Tensor
    reference: float | None = None  # the greedy edge tour's local optimum (validation only)


def network_logits(policy: nn.Module, graph: CandidateGraph) -> torch.Tensor:
    """The network's logits (E,) for ``graph`` (no gradient)."""
    with torch.no_grad():
        return policy(torch.from_numpy(edge_features(graph)))


def decoded_length(graph: CandidateGraph, scores: np.ndarray | None) -> float:
    """The length of the greedy edge tour by ``scores`` (n, K) (None: by length) brought to a
    2-opt + Or-opt local optimum."""
    search = greedy_edge_search(graph, scores)
    search.descend()
    return search.length


class TourNetTask(TrainingTask):
    """The :class:`~cosolve.training.loop.TrainingTask` of :class:`TourEdgeNet` (module doc)."""

    config: TourNetConfig
    energy_label = "noiseless per-city loss at the end temperature"
    #: held-out instances of the last validation (None before the first): a fixed set gives up
    #: fewer than ``validation_size`` when it is small
    held_out: int | None = None

    def prepare(self, problem: Any) -> PreparedTour:
        graph = CandidateGraph.of(problem, self.config.neighbors)
        return PreparedTour(graph, torch.from_numpy(edge_features(graph)))

    def collate(self, items: list[Any]) -> list[PreparedTour]:
        return items

    def _loss(self, model: nn.Module, item: PreparedTour, base: float, generator: torch.Generator) -> tuple[torch.Tensor, float]:
        """The successor loss per city of one instance, and its expected length per city."""
        c, graph = self.config, item.graph
        logits = model(item.features)
        temperature = sparse_temperature(c.schedule(base), logits, graph.pattern, 0, 1)
        p = sparse_gumbel_sinkhorn(
            logits, temperature, graph.pattern, samples=c.samples, iterations=c.sinkhorn_iterations, generator=generator
        )
        n = graph.lists.shape[0]
        expected = float(successor_loss(p.detach(), graph.lengths, graph.pattern, 0.0)) / n
        return successor_loss(p, graph.lengths, graph.pattern, c.cycle_penalty) / n, expected

    def step(
        self, model: nn.Module, policy: nn.Module, optimizer: Any, batch: list[PreparedTour], tau: float, rng: np.random.Generator
    ) -> tuple[float, float]:
        """Adam on the mean per-city successor loss of the batch at base temperature ``tau``;
        returns it and the mean expected length per city (in mean candidate lengths)."""
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        optimizer.zero_grad()
        total, expected = 0.0, 0.0
        for item in batch:
            loss, length = self._loss(model, item, tau, generator)
            (loss / len(batch)).backward()
            total, expected = total + float(loss.detach()) / len(batch), expected + length / len(batch)
        optimizer.step()
        return total, expected

    def validate(self, policy: nn.Module, batch: list[PreparedTour]) -> Validation:
        """Objective: the mean ratio of the network's decoded local optimum to the greedy edge
        tour's (module doc); energy: the mean per-city loss of the noiseless Sinkhorn at ``tau_end``."""
        ratios, losses = [], []
        for item in batch:
            graph = item.graph
            if item.reference is None:
                item.reference = decoded_length(graph, None)
            with torch.no_grad():
                logits = policy(item.features)
                p = torch.exp(sparse_log_sinkhorn(logits / self.config.tau_end, graph.pattern, self.config.sinkhorn_iterations))
                n = graph.lists.shape[0]
                losses.append(float(successor_loss(p.unsqueeze(0), graph.lengths, graph.pattern, self.config.cycle_penalty)) / n)
            ratios.append(decoded_length(graph, heat(logits, graph.pattern, graph.index)) / max(item.reference, 1e-12))
        self.held_out = len(batch)
        return Validation(float(np.mean(ratios)), float(np.mean(losses)))

    def card(self) -> tuple[str, str, str]:
        about = (
            "An edge network for the Gumbel–Sinkhorn TSP (`cosolve.methods.sinkhorn.tour_net`): an MLP from "
            "each candidate edge's scale-free features to its logit, trained across instances without labels on "
            'the expected tour length through sparse Gumbel–Sinkhorn. Use it with `Solver("gumbel-sinkhorn", '
            "checkpoint=PATH)` on TSP instances of any size: the per-instance latent starts from its logits."
        )
        n = self.held_out
        count = "held-out instances" if n is None else f"{n} held-out instance{'s' * (n != 1)}"
        validation = (
            f"mean tour length from the network's heat over the greedy edge tour's, both at a 2-opt + Or-opt optimum, on {count}"
        )
        return "Gumbel–Sinkhorn TSP edge network", about, validation


def load_tour_net(path: Any) -> tuple[TourEdgeNet, TourNetConfig, dict[str, Any]]:
    """The network (eval mode), config and metadata of a TSP edge network checkpoint (a
    ``model.pt`` or its folder)."""
    from cosolve.training.checkpoint import load_policy

    return load_policy(path, TourNetConfig)
