"""The hyperparameters of a CAM graph policy and of its training, stored in every checkpoint
(imports no torch, so methods can declare their options from it cheaply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from cosolve.training.config import AdjointConfig


@dataclass
class CAMConfig(AdjointConfig):
    """:class:`~cosolve.training.config.AdjointConfig` for graphs of ``problem``: ``graphs`` per
    training batch (per process), the energy's constraint ``penalty`` (None: the problem's
    default), ``validation_graphs`` drawn from a distribution (or the most a fixed set gives up)
    and ``validation_chains`` each. ``distribution`` names the distribution it was trained on
    ("" for a fixed set of instances)."""

    policy_class: ClassVar[str] = "cosolve.diffusion.policy:FlipPolicy"
    what: ClassVar[str] = "CAM"
    checkpoint_format: ClassVar[str] = "cosolve-cam/1"
    batch_field: ClassVar[str] = "graphs"
    validation_field: ClassVar[str] = "validation_graphs"

    problem: str = "mis"
    distribution: str = ""
    graphs: int = 8
    penalty: float | None = None
    validation_graphs: int = 32
    validation_chains: int = 8

    @classmethod
    def upgrade(cls, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("penalty") == 0.0:  # checkpoints before "auto" was None wrote 0 for the default
            data["penalty"] = None
        return data
