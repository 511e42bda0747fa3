"""GLNS's set cover policy's forward pass in numpy (float32): what ``glns`` solves with, so that a
solve with a saved model imports no torch.

The network is :class:`cosolve.methods.glns.cover_policy.CoverPolicy` (see there for the architecture);
its weights come from the ``model.npz`` beside a checkpoint's ``model.pt``
(:func:`cosolve.training.checkpoint.read_numpy_checkpoint`) or from a torch policy in memory
(:meth:`NumpyCoverPolicy.from_torch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from cosolve.diffusion.numpy_layers import layer_norm, linear, time_features

if TYPE_CHECKING:
    from cosolve.diffusion.energies import CoverEnergy
    from cosolve.diffusion.sampler import FlipRule
    from cosolve.methods.glns.instability import Region, RuleFactory


def squash(v: np.ndarray) -> np.ndarray:
    """``sign(v) log(1 + |v|)``, elementwise."""
    return np.sign(v) * np.log1p(np.abs(v))


@dataclass
class CoverGraph:
    """A set cover region as the policy reads it: ``to_rows`` (M x N) and ``to_columns`` (N x M)
    mean-aggregation matrices (CSR float32), the 0/1 ``incidence`` (CSR float64, M x N), static
    column features (N, 3), static row features (M, 1), the incumbent (N,) 0/1 and its cover
    counts (M,), capped at 3 and divided by 3."""

    to_rows: sp.csr_array
    to_columns: sp.csr_array
    incidence: sp.csr_array
    column_static: np.ndarray
    row_static: np.ndarray
    incumbent: np.ndarray
    incumbent_cover: np.ndarray

    @classmethod
    def build(cls, matrix: sp.sparray, costs: np.ndarray, reduced: np.ndarray, incumbent: np.ndarray) -> CoverGraph:
        """``matrix`` (M x N) 0/1, ``costs`` (N,) scaled to at most 1, ``reduced`` (N,) reduced
        costs on the same scale, ``incumbent`` (N,) 0/1."""
        a = sp.csr_array(matrix, dtype=np.float64)
        a.data[:] = 1.0
        row_size = np.diff(a.indptr).astype(np.float64)
        at = sp.csr_array(a.T)
        col_size = np.diff(at.indptr).astype(np.float64)
        to_rows = sp.csr_array(sp.diags_array(1.0 / np.maximum(row_size, 1.0)) @ a, dtype=np.float32)
        to_columns = sp.csr_array(sp.diags_array(1.0 / np.maximum(col_size, 1.0)) @ at, dtype=np.float32)
        column_static = np.stack([np.asarray(costs, np.float64), squash(np.asarray(reduced, np.float64)), np.log1p(col_size)], 1)
        incumbent = np.asarray(incumbent, dtype=np.float64)
        return cls(
            to_rows=to_rows,
            to_columns=to_columns,
            incidence=a,
            column_static=column_static.astype(np.float32),
            row_static=np.log1p(row_size)[:, None].astype(np.float32),
            incumbent=incumbent,
            incumbent_cover=np.minimum(a @ incumbent, 3.0) / 3.0,
        )

    def state_cover(self, x: np.ndarray) -> np.ndarray:
        """Cover counts of states ``x`` (K, N), capped at 3 and divided by 3: (M, K) float32."""
        return (np.minimum(self.incidence @ np.asarray(x, dtype=np.float64).T, 3.0) / 3.0).astype(np.float32)


def _aggregate(matrix: sp.csr_array, h: np.ndarray) -> np.ndarray:
    """``matrix @ h`` for hidden states ``h`` (nodes, K, d): (matrix rows, K, d) float32."""
    nodes, k, d = h.shape
    return np.asarray(matrix @ h.reshape(nodes, k * d), dtype=np.float32).reshape(matrix.shape[0], k, d)


def _update(h: np.ndarray, message: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    m = np.maximum(linear(np.concatenate([h, message], axis=-1), w, f"{name}.mlp.0"), 0)
    return layer_norm(h + linear(m, w, f"{name}.mlp.2"), w[f"{name}.norm.weight"], w[f"{name}.norm.bias"])


class NumpyCoverPolicy:
    """Flip logits (N, K) of column states and gains (N, K) at time t on a :class:`CoverGraph`,
    from the weights of a :class:`~cosolve.methods.glns.cover_policy.CoverPolicy` (its state dict as
    float32 arrays)."""

    def __init__(self, weights: dict[str, np.ndarray], *, layers: int, time_features: int) -> None:
        self.weights = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}
        self.layers = int(layers)
        self.time_features = int(time_features)

    @classmethod
    def from_torch(cls, policy: Any) -> NumpyCoverPolicy:
        """The same network as the torch ``policy`` (a CoverPolicy)."""
        weights = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
        return cls(weights, layers=len(policy.row_updates), time_features=policy.time_features)

    def __call__(self, x: np.ndarray, gain: np.ndarray, cover: np.ndarray, t: float, graph: CoverGraph) -> np.ndarray:
        """``x``, ``gain``: (N, K); ``cover`` (M, K): the state's cover counts, capped at 3, over 3."""
        w = self.weights
        n, k = x.shape
        m = cover.shape[0]
        incumbent = np.broadcast_to((2 * graph.incumbent - 1).astype(np.float32)[:, None], (n, k))
        column_in = np.concatenate(
            [
                (2 * x.astype(np.float32) - 1)[..., None],
                incumbent[..., None],
                squash(gain.astype(np.float32))[..., None],
                np.broadcast_to(graph.column_static[:, None, :], (n, k, 3)),
            ],
            axis=-1,
        )
        inc_cover = np.broadcast_to(graph.incumbent_cover.astype(np.float32)[:, None, None], (m, k, 1))
        row_in = np.concatenate(
            [cover.astype(np.float32)[..., None], inc_cover, np.broadcast_to(graph.row_static[:, None, :], (m, k, 1))], axis=-1
        )
        h_col = linear(column_in, w, "column_encoder")
        if self.time_features:
            h_col = h_col + linear(time_features(t, self.time_features), w, "time")
        h_row = linear(row_in, w, "row_encoder")
        for i in range(self.layers):
            h_row = _update(h_row, _aggregate(graph.to_rows, h_col), w, f"row_updates.{i}")
            h_col = _update(h_col, _aggregate(graph.to_columns, h_row), w, f"column_updates.{i}")
        return linear(h_col, w, "head")[..., 0]


def numpy_cover_rule(policy: NumpyCoverPolicy, energy: Any, graph: CoverGraph) -> Any:
    """The flip rule ``p = sigmoid(f(x_t, t))`` (see :mod:`cosolve.diffusion.sampler`) of the numpy
    policy on a region whose set cover energy is ``energy`` (for the flip gains)."""

    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        gain = energy.flip_gain(x)
        logits = policy(x.T, gain.T, graph.state_cover(x), t, graph)
        return (0.5 * (1.0 + np.tanh(0.5 * logits.astype(np.float64)))).T

    return rule


def learned_rule(policy: Any) -> RuleFactory:
    """The trained set cover policy as the flip rule, run in numpy
    (:class:`~cosolve.methods.glns.cover_policy_numpy.NumpyCoverPolicy`; a torch
    :class:`~cosolve.methods.glns.cover_policy.CoverPolicy` is converted first)."""
    if not isinstance(policy, NumpyCoverPolicy):
        policy = NumpyCoverPolicy.from_torch(policy)

    def make(region: Region, energy: CoverEnergy, steps: int, rng: np.random.Generator) -> FlipRule:
        graph = CoverGraph.build(region.matrix, region.costs, region.reduced, region.start)
        return numpy_cover_rule(policy, energy, graph)

    return make
