"""Loading a CAM checkpoint to solve with: the numpy policy from a checkpoint's ``model.npz``
(no torch), or from its ``model.pt`` through torch for checkpoints written before there were
``model.npz`` files."""

from __future__ import annotations

from typing import Any

from cosolve.methods.cam.cam_config import CAMConfig
from cosolve.methods.cam.flip_policy_numpy import NumpyFlipPolicy
from cosolve.training.checkpoint import load_numpy_policy


def load_numpy_checkpoint(path: Any) -> tuple[NumpyFlipPolicy, Any, dict[str, Any]]:
    """Policy, :class:`~cosolve.methods.cam.cam_config.CAMConfig` and meta of the CAM checkpoint ``path``
    (a ``model.pt`` or its folder): from its ``model.npz`` without torch, or else (a checkpoint
    written before there were ``model.npz`` files) from ``model.pt`` through torch."""

    def from_torch(path: Any) -> tuple[NumpyFlipPolicy, Any, dict[str, Any]]:
        from cosolve.methods.cam.cam_task import load_checkpoint

        torch_policy, config, meta = load_checkpoint(path)
        return NumpyFlipPolicy.from_torch(torch_policy), config, meta

    return load_numpy_policy(
        path, CAMConfig,
        lambda weights, c: NumpyFlipPolicy(weights, layers=c.layers, time_features=c.time_features),
        lambda c: ({"encoder.weight", "head.weight", *(f"layers.{i}.norm.weight" for i in range(c.layers))}, "encoder.weight"),
        from_torch,
    )  # fmt: skip
