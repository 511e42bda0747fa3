"""The CAM flip policy's forward pass in numpy (float32): what ``cam`` solves with, so that a solve
with a saved model imports no torch.

The network is :class:`cosolve.methods.cam.flip_policy.FlipPolicy` (see there for the architecture); its
weights come from the ``model.npz`` beside a checkpoint's ``model.pt``
(:func:`cosolve.training.checkpoint.read_numpy_checkpoint`) or from a torch policy in memory
(:meth:`NumpyFlipPolicy.from_torch`). The graph normalisation is defined here once and the torch
policy uses it too; the layers both forward passes share are in :mod:`cosolve.diffusion.numpy_layers`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from cosolve.diffusion.numpy_layers import layer_norm, linear, time_features


def normalized_coupling(coupling: sp.sparray) -> tuple[sp.csr_array, np.ndarray]:
    """The policy's view of a graph: ``|W|`` normalised as ``D^-1/2 |W| D^-1/2`` (N x N, CSR
    float64) and the static node features (N, 2) float32: log(1 + weighted degree) and
    1 / sqrt(1 + degree)."""
    a = sp.csr_array(coupling, dtype=np.float64)
    a.data = np.abs(a.data)
    degree = np.asarray(a.sum(axis=1)).ravel()
    scale = 1.0 / np.sqrt(np.maximum(degree, 1e-12))
    norm = sp.csr_array(sp.diags_array(scale) @ a @ sp.diags_array(scale))
    count = np.diff(a.indptr)
    static = np.stack([np.log1p(degree), 1.0 / np.sqrt(1.0 + count)], axis=1).astype(np.float32)
    return norm, static


@dataclass
class NumpyGraph:
    """A graph batch as the numpy policy reads it: normalised ``adjacency`` (CSR float32) and
    ``static`` node features (N, 2)."""

    adjacency: sp.csr_array
    static: np.ndarray

    @classmethod
    def from_coupling(cls, coupling: sp.sparray, *, dtype: type = np.float32) -> NumpyGraph:
        norm, static = normalized_coupling(coupling)
        return cls(sp.csr_array(norm, dtype=dtype), static)

    @cached_property
    def aggregated_static(self) -> np.ndarray:
        """``adjacency @ [static, 1]`` (N, 3) float64: what the first layer's aggregation of the
        encoder's output needs of the graph, computed once (see :meth:`NumpyFlipPolicy.__call__`)."""
        ones = np.ones((self.static.shape[0], 1))
        return np.asarray(self.adjacency @ np.hstack([self.static.astype(np.float64), ones]), dtype=np.float64)


class NumpyFlipPolicy:
    """Flip logits (N, K) of states and gains (N, K) at time t, from the weights of a
    :class:`~cosolve.methods.cam.flip_policy.FlipPolicy` (``weights``: its state dict as arrays),
    computed in ``dtype`` (float32, as torch runs it; float64 to check it against torch in double)."""

    def __init__(self, weights: dict[str, np.ndarray], *, layers: int, time_features: int, dtype: type = np.float32) -> None:
        self.dtype = np.dtype(dtype)
        self.weights = {k: np.ascontiguousarray(v, dtype=self.dtype) for k, v in weights.items()}
        self.layers = int(layers)
        self.time_features = int(time_features)

    @classmethod
    def from_torch(cls, policy: Any, *, dtype: type = np.float32) -> NumpyFlipPolicy:
        """The same network as the torch ``policy`` (a FlipPolicy)."""
        weights = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
        return cls(weights, layers=len(policy.layers), time_features=policy.time_features, dtype=dtype)

    def to_torch(self, config: Any) -> Any:
        """A torch FlipPolicy (eval mode) of ``config``'s dimensions with these weights."""
        import torch

        policy = config.policy()
        policy.load_state_dict({k: torch.from_numpy(v.astype(np.float32)) for k, v in self.weights.items()})
        return policy.eval()

    def __call__(
        self, x: np.ndarray, gain: np.ndarray, t: float, graph: NumpyGraph, base: np.ndarray | None = None
    ) -> np.ndarray:
        w, dtype = self.weights, self.dtype
        n, k = x.shape
        spin = 2 * x.astype(dtype) - 1
        gain = gain.astype(dtype)
        squashed = np.sign(gain) * np.log1p(np.abs(gain))
        # the encoder is affine in its four inputs (spin, squashed gain, two static features), so
        # h = spin w0 + squashed w1 + s + b per node and chain, with s = static @ W[:, 2:].T and b the
        # bias (plus the time term): the first layer aggregates the two (N, K) inputs and the graph's
        # precomputed adjacency @ [static, 1] instead of the (N, K, hidden) encoder output
        encoder = w["encoder.weight"]
        bias = w["encoder.bias"].copy()
        if self.time_features:
            bias += linear(time_features(t, self.time_features).astype(dtype), w, "time")
        static_term = graph.static.astype(dtype, copy=False) @ encoder[:, 2:].T + bias  # (N, hidden)
        h = spin[..., None] * encoder[:, 0] + squashed[..., None] * encoder[:, 1] + static_term[:, None, :]
        hidden = h.shape[-1]
        inputs = graph.adjacency @ np.concatenate([spin, squashed], axis=1)  # (N, 2K)
        around = graph.aggregated_static  # (N, 3): adjacency @ static and the row sums
        agg = (
            inputs[:, :k, None] * encoder[:, 0]
            + inputs[:, k:, None] * encoder[:, 1]
            + (around[:, :2] @ encoder[:, 2:].T.astype(np.float64) + around[:, 2:] * bias).astype(dtype)[:, None, :]
        ).astype(dtype, copy=False)
        for i in range(self.layers):
            p = f"layers.{i}"
            if i:
                agg = (graph.adjacency @ h.reshape(n, k * hidden)).astype(dtype, copy=False).reshape(n, k, hidden)
            first = w[f"{p}.mlp.0.weight"]
            m = h.reshape(-1, hidden) @ first[:, :hidden].T
            m += agg.reshape(-1, hidden) @ first[:, hidden:].T
            m += w[f"{p}.mlp.0.bias"]
            np.maximum(m, 0, out=m)
            h = layer_norm(h + linear(m.reshape(n, k, -1), w, f"{p}.mlp.2"), w[f"{p}.norm.weight"], w[f"{p}.norm.bias"])
        out = linear(h, w, "head")[..., 0]
        return out if base is None else out + base.astype(dtype)


def numpy_rule(policy: NumpyFlipPolicy, energy: Any, graph: NumpyGraph, base: Any = None) -> Any:
    """The flip rule ``p = sigmoid(f(G, x_t, t))`` (see :mod:`cosolve.diffusion.sampler`) of a
    numpy policy on a graph batch whose energy is ``energy`` (for the flip gains); ``base(gain,
    t)`` gives the logits (K, N) a residual policy adds to."""

    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        gain = energy.flip_gain(x)
        logits = policy(x.T, gain.T, t, graph, None if base is None else base(gain, t).T)
        return (0.5 * (1.0 + np.tanh(0.5 * logits.astype(np.float64)))).T

    return rule
