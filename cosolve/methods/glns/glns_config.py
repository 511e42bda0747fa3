"""The hyperparameters of GLNS's set cover policy and of its training, stored in every checkpoint
(imports no torch, so the method can declare its options from it cheaply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cosolve.training.hyperparameters import AdjointConfig

#: Penalty per uncovered row of the set cover energy (costs are scaled to at most 1).
COVER_PENALTY = 1.5


@dataclass
class GLNSConfig(AdjointConfig):
    """:class:`~cosolve.training.hyperparameters.AdjointConfig` for set cover, with a smaller network and
    short rollouts from partially noised incumbents: ``instances`` per training batch, the
    ``penalty`` per uncovered row, the share of the incumbent's bits redrawn in training
    (``noise_min`` to ``noise_max``) and in validation (``validation_noise``), and
    ``validation_instances`` drawn from a distribution (or the most a fixed set gives up)."""

    policy_class: ClassVar[str] = "cosolve.methods.glns.cover_policy:CoverPolicy"
    what: ClassVar[str] = "GLNS"
    checkpoint_format: ClassVar[str] = "cosolve-glns/1"
    batch_field: ClassVar[str] = "instances"
    validation_field: ClassVar[str] = "validation_instances"

    hidden: int = 16
    layers: int = 2
    initial_flip: float = 0.05
    steps: int = 8
    chains: int = 4
    tau_start: float = 0.1
    instances: int = 4
    penalty: float = COVER_PENALTY
    noise_min: float = 0.2
    noise_max: float = 1.0
    validation_instances: int = 16
    validation_noise: float = 0.3
