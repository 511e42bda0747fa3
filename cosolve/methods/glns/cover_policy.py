"""GLNS's flip policy: a bipartite message-passing GNN (torch-geometric) over a set cover's rows
and columns, giving a flip logit per column and chain.

Column inputs (per chain k): the state ``x_t`` and the incumbent (both as ±1), the flip gain of
the set cover energy (squashed by ``sign(g) log(1 + |g|)``), and static features: the scaled
cost, the Lagrangian reduced cost (scaled like the cost, squashed) and ``log(1 + |column|)``.
Row inputs: the number of selected columns covering the row in the state and in the incumbent
(each capped at 3, divided by 3) and ``log(1 + |row|)``. Each of L layers passes messages
columns -> rows -> columns as means over the incidence (``A / deg``), with residual MLP updates
and LayerNorm; a sinusoidal time embedding is added to the column encoding. Hidden states are
(nodes, K, hidden): all chains share one sparse product per layer.
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
from cosolve.methods.glns.cover_policy_numpy import CoverGraph

COLUMN_FEATURES = 6  # state, incumbent, squashed gain, cost, squashed reduced cost, log size
ROW_FEATURES = 3  # state cover, incumbent cover, log size


def _squash(v: torch.Tensor) -> torch.Tensor:
    return torch.sign(v) * torch.log1p(v.abs())


def _torch_csr(a: sp.csr_array) -> torch.Tensor:
    with warnings.catch_warnings():  # "sparse CSR support is in beta"
        warnings.simplefilter("ignore", UserWarning)
        return torch.sparse_csr_tensor(
            torch.from_numpy(a.indptr.astype(np.int64)),
            torch.from_numpy(a.indices.astype(np.int64)),
            torch.from_numpy(a.data.astype(np.float32)),
            size=a.shape,
            check_invariants=False,
        )


@dataclass
class CoverTensors:
    """The torch view of a set cover region's :class:`~cosolve.methods.glns.cover_policy_numpy.CoverGraph`
    (``graph``: features, incidence, incumbent and its cover counts): the ``to_rows`` (M x N) and
    ``to_columns`` (N x M) mean-aggregation matrices as torch sparse CSR, the static column (N, 3)
    and row (M, 1) features as tensors."""

    graph: CoverGraph
    to_rows: torch.Tensor
    to_columns: torch.Tensor
    column_static: torch.Tensor
    row_static: torch.Tensor

    @classmethod
    def build(cls, matrix: sp.sparray, costs: np.ndarray, reduced: np.ndarray, incumbent: np.ndarray) -> CoverTensors:
        """See :meth:`CoverGraph.build <cosolve.methods.glns.cover_policy_numpy.CoverGraph.build>`."""
        g = CoverGraph.build(matrix, costs, reduced, incumbent)
        static = torch.from_numpy(g.column_static), torch.from_numpy(g.row_static)
        return cls(g, _torch_csr(g.to_rows), _torch_csr(g.to_columns), *static)


class _Update(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h: torch.Tensor, message: torch.Tensor) -> torch.Tensor:
        return self.norm(h + self.mlp(torch.cat([h, message], dim=-1)))


class CoverPolicy(nn.Module):
    """Flip logits (N, K) from column states and gains (N, K) on a :class:`CoverTensors`.
    ``initial_flip`` is the flip probability of the untrained policy."""

    def __init__(self, *, hidden: int = 32, layers: int = 3, time_features: int = 8, initial_flip: float = 0.05) -> None:
        super().__init__()
        self.time_features = time_features
        self.column_encoder = nn.Linear(COLUMN_FEATURES, hidden)
        self.row_encoder = nn.Linear(ROW_FEATURES, hidden)
        self.time = nn.Linear(2 * time_features, hidden) if time_features else None
        self.aggregate = NormalizedAggregation()  # the matrices are row-normalised: means
        self.row_updates = nn.ModuleList(_Update(hidden) for _ in range(layers))
        self.column_updates = nn.ModuleList(_Update(hidden) for _ in range(layers))
        self.head = nn.Linear(hidden, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.constant_(self.head.bias, math.log(initial_flip / (1 - initial_flip)))

    def time_embedding(self, t: float) -> torch.Tensor:
        return time_embedding(t, self.time_features)

    def forward(self, x: torch.Tensor, gain: torch.Tensor, cover: torch.Tensor, t: float, graph: CoverTensors) -> torch.Tensor:
        """``x``, ``gain``: (N, K); ``cover`` (M, K): the state's cover counts, capped at 3, over 3."""
        n, k = x.shape
        m = cover.shape[0]
        incumbent = torch.from_numpy((2 * graph.graph.incumbent - 1).astype(np.float32))[:, None].expand(n, k)
        column_in = torch.cat(
            [
                (2 * x - 1)[..., None],
                incumbent[..., None],
                _squash(gain)[..., None],
                graph.column_static[:, None, :].expand(n, k, 3),
            ],
            dim=-1,
        )
        inc_cover = torch.from_numpy(graph.graph.incumbent_cover.astype(np.float32))[:, None, None].expand(m, k, 1)
        row_in = torch.cat([cover[..., None], inc_cover, graph.row_static[:, None, :].expand(m, k, 1)], dim=-1)
        h_col = self.column_encoder(column_in)
        if self.time is not None:
            h_col = h_col + self.time(self.time_embedding(t))
        h_row = self.row_encoder(row_in)
        d = h_col.shape[-1]
        for row_update, column_update in zip(self.row_updates, self.column_updates, strict=True):
            h_row = row_update(h_row, self.aggregate(h_col.reshape(n, k * d), graph.to_rows).reshape(m, k, d))
            h_col = column_update(h_col, self.aggregate(h_row.reshape(m, k * d), graph.to_columns).reshape(n, k, d))
        return self.head(h_col).squeeze(-1)


def cover_logits(policy: nn.Module, energy, graph: CoverTensors, x: np.ndarray, t: float) -> torch.Tensor:  # energy: CoverEnergy
    """Flip logits (N, K) of ``policy`` at states ``x`` (K, N) and time ``t``: its inputs are the
    states, their flip gains and cover counts."""
    gain = energy.flip_gain(x)
    return policy(
        torch.from_numpy(x.T.astype(np.float32)),
        torch.from_numpy(gain.T.astype(np.float32)),
        torch.from_numpy(graph.graph.state_cover(x)),
        t,
        graph,
    )
