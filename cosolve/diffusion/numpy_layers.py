"""The numpy layers the flip policies' forward passes share (CAM's graph policy and GLNS's set
cover policy): time features, linear layers and layer normalisation, float32, matching torch's."""

from __future__ import annotations

import math

import numpy as np

LAYER_NORM_EPS = 1e-5  # torch.nn.LayerNorm's default


def time_features(t: float, features: int) -> np.ndarray:
    """Sinusoidal features (2 * features,) float32 of the time t in [0, 1]."""
    freqs = np.exp(np.arange(features, dtype=np.float32) * np.float32(-math.log(100.0) / max(features, 1)))
    angles = np.float32(2 * math.pi * t * 10) * freqs
    return np.concatenate([np.sin(angles), np.cos(angles)]).astype(np.float32)


def linear(h: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    """``h @ W.T + b`` over the last axis of ``h`` (..., in) -> (..., out), as one 2-D product (a
    3-D ``h`` would run one small product per leading index, about three times slower)."""
    weight = w[f"{name}.weight"]
    out = h.reshape(-1, h.shape[-1]) @ weight.T
    out += w[f"{name}.bias"]
    return out.reshape(*h.shape[:-1], weight.shape[0])


def layer_norm(h: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """torch.nn.LayerNorm over the last axis of ``h`` (..., d), in place on one centred copy."""
    d = h.shape[-1]
    flat = h.reshape(-1, d)
    one_over_d = h.dtype.type(1.0 / d)
    centred = flat - flat.sum(axis=-1, keepdims=True) * one_over_d
    var = np.einsum("ij,ij->i", centred, centred)[:, None] * one_over_d
    centred *= 1.0 / np.sqrt(var + h.dtype.type(LAYER_NORM_EPS))
    centred *= weight
    centred += bias
    return centred.reshape(h.shape)
