"""Loading a GLNS checkpoint to solve with: the numpy policy from a checkpoint's ``model.npz``
(no torch), or from its ``model.pt`` through torch for checkpoints written before there were
``model.npz`` files."""

from __future__ import annotations

from typing import Any

from cosolve.methods.glns.cover_policy_numpy import NumpyCoverPolicy
from cosolve.methods.glns.glns_config import GLNSConfig
from cosolve.training.checkpoint import load_numpy_policy


def load_numpy_checkpoint(path: Any) -> tuple[NumpyCoverPolicy, Any, dict[str, Any]]:
    """Policy, :class:`~cosolve.methods.glns.glns_config.GLNSConfig` and meta of the GLNS checkpoint
    ``path`` (a ``model.pt`` or its folder): from its ``model.npz`` without torch, or else (a
    checkpoint written before there were ``model.npz`` files) from ``model.pt`` through torch."""

    def from_torch(path: Any) -> tuple[NumpyCoverPolicy, Any, dict[str, Any]]:
        from cosolve.methods.glns.glns_task import load_checkpoint

        torch_policy, config, meta = load_checkpoint(path)
        return NumpyCoverPolicy.from_torch(torch_policy), config, meta

    return load_numpy_policy(
        path, GLNSConfig,
        lambda weights, c: NumpyCoverPolicy(weights, layers=c.layers, time_features=c.time_features),
        lambda c: (
            {"column_encoder.weight", "head.weight", *(f"column_updates.{i}.norm.weight" for i in range(c.layers))},
            "column_encoder.weight",
        ),
        from_torch,
    )  # fmt: skip
