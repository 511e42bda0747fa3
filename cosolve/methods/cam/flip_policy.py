"""The CAM flip policy: a message-passing GNN (torch-geometric) giving flip logits per node and chain.

Input per node i and chain k: the state ``x_t`` (as ±1), the flip gain of i in that chain (a
function of the graph and ``x_t``, squashed by ``sign(g) log(1 + |g|)``) and two static
features of the node (log weighted degree and ``1 / sqrt(1 + degree)``); plus an optional
sinusoidal embedding of the time t. L layers each aggregate neighbours with symmetric degree
normalisation ``w_ij / sqrt(d_i d_j)`` and update ``h <- LayerNorm(h + MLP([h, agg]))``; a linear
head gives the logit. All chains share one sparse product per layer: hidden states are
(N, K, hidden) and aggregate as an (N, K * hidden) matrix.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn

from cosolve.diffusion.gnn_layers import NormalizedAggregation, time_embedding
from cosolve.methods.cam.flip_policy_numpy import normalized_coupling

NODE_FEATURES = 4  # state, squashed gain, log weighted degree, 1 / sqrt(1 + degree)


@dataclass
class GraphTensors:
    """What the policy needs of a graph batch: ``adjacency`` the normalised coupling matrix
    (torch sparse CSR, N x N) and ``static`` node features (N, 2)."""

    adjacency: torch.Tensor
    static: torch.Tensor

    @classmethod
    def from_coupling(cls, coupling: sp.sparray) -> GraphTensors:
        norm, static = normalized_coupling(coupling)
        with warnings.catch_warnings():  # "sparse CSR support is in beta"
            warnings.simplefilter("ignore", UserWarning)
            adjacency = torch.sparse_csr_tensor(
                torch.from_numpy(norm.indptr.astype(np.int64)),
                torch.from_numpy(norm.indices.astype(np.int64)),
                torch.from_numpy(norm.data.astype(np.float32)),
                size=norm.shape,
                check_invariants=False,
            )
        return cls(adjacency=adjacency, static=torch.from_numpy(static))

    def to(self, device: torch.device | str) -> GraphTensors:
        """These tensors on ``device``."""
        return GraphTensors(adjacency=self.adjacency.to(device), static=self.static.to(device))


class _Layer(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.aggregate = NormalizedAggregation()
        self.mlp = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h: torch.Tensor, adjacency: torch.Tensor) -> torch.Tensor:
        n, k, d = h.shape
        agg = self.aggregate(h.reshape(n, k * d), adjacency).reshape(n, k, d)
        return self.norm(h + self.mlp(torch.cat([h, agg], dim=-1)))


class FlipPolicy(nn.Module):
    """Flip logits ``f_theta(G, x_t, t)``: (N, K) from states and gains (N, K), plus ``base``
    logits (N, K) when given (a ``residual`` policy, whose head starts at zero). ``initial_flip``
    sets the flip probability of the untrained policy (0.5: the usual random initialisation)."""

    def __init__(
        self, *, hidden: int = 32, layers: int = 3, time_features: int = 8, initial_flip: float = 0.5, residual: bool = False
    ) -> None:
        super().__init__()
        self.hidden, self.time_features = hidden, time_features
        self.encoder = nn.Linear(NODE_FEATURES, hidden)
        self.time = nn.Linear(2 * time_features, hidden) if time_features else None
        self.layers = nn.ModuleList(_Layer(hidden) for _ in range(layers))
        self.head = nn.Linear(hidden, 1)
        if residual:  # added to a base rule's logits: start by adding nothing
            nn.init.zeros_(self.head.weight)
            nn.init.zeros_(self.head.bias)
        elif initial_flip != 0.5:  # start near a flip probability of initial_flip everywhere
            nn.init.zeros_(self.head.weight)
            nn.init.constant_(self.head.bias, math.log(initial_flip / (1 - initial_flip)))

    def time_embedding(self, t: float) -> torch.Tensor:
        return time_embedding(t, self.time_features)

    def forward(
        self, x: torch.Tensor, gain: torch.Tensor, t: float, graph: GraphTensors, base: torch.Tensor | None = None
    ) -> torch.Tensor:
        n, k = x.shape
        squashed = torch.sign(gain) * torch.log1p(gain.abs())
        static = graph.static[:, None, :].expand(n, k, graph.static.shape[1])
        h = self.encoder(torch.cat([(2 * x - 1)[..., None], squashed[..., None], static], dim=-1))
        if self.time is not None:
            h = h + self.time(self.time_embedding(t).to(h))
        for layer in self.layers:
            h = layer(h, graph.adjacency)
        out = self.head(h).squeeze(-1)
        return out if base is None else out + base
