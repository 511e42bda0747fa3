"""The torch layers the flip policies share (CAM's graph policy and GLNS's set cover policy): the
sinusoidal time embedding and a message-passing step weighted by a normalised adjacency."""

from __future__ import annotations

import torch
from torch_geometric.nn import MessagePassing
from torch_geometric.utils import spmm

from cosolve.diffusion.numpy_layers import time_features


def time_embedding(t: float, features: int) -> torch.Tensor:
    """Sinusoidal features (2 * features,) of the time t in [0, 1] (:func:`time_features`)."""
    return torch.from_numpy(time_features(t, features))


class NormalizedAggregation(MessagePassing):
    """``out = A_norm @ h`` for features (N, F): a message-passing step whose messages are
    weighted by the normalised adjacency, fused into one sparse product."""

    def __init__(self) -> None:
        super().__init__(aggr="add")

    def forward(self, h: torch.Tensor, adjacency: torch.Tensor) -> torch.Tensor:
        return self.propagate(adjacency, x=h)

    def message_and_aggregate(self, adj_t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return spmm(adj_t, x, reduce="sum")
