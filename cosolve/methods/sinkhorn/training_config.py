"""The training settings both Gumbel–Sinkhorn networks share (the permutation network of
:mod:`cosolve.methods.sinkhorn.learner`, the TSP edge network of
:mod:`cosolve.methods.sinkhorn.tour_net`), stored in their checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cosolve.methods.sinkhorn.operator import TemperatureSchedule
from cosolve.training.hyperparameters import TrainingConfig


@dataclass
class SinkhornConfig(TrainingConfig):
    """:class:`~cosolve.training.hyperparameters.TrainingConfig` of a network trained through Gumbel–Sinkhorn:
    ``hidden`` units, the relaxation (``samples`` Gumbel draws, ``sinkhorn_iterations``, the
    ``temperature`` variant with its adaptive ``threshold`` and ``max_boost``), ``batch_size``
    instances per step and at most ``validation_size`` held out; ``tau`` is the base temperature,
    ``iterations`` the training steps (0: until the time limit)."""

    batch_field: ClassVar[str] = "batch_size"
    validation_field: ClassVar[str] = "validation_size"
    #: the options that set these fields (``cosolve train --set``), as the model card shows them
    option_names: ClassVar[dict[str, str]] = {
        "iterations": "steps", "sinkhorn_iterations": "iterations", "tau_start": "start", "tau_end": "end"
    }  # fmt: skip

    hidden: int = 32
    samples: int = 5
    sinkhorn_iterations: int = 10
    temperature: str = "adaptive"
    threshold: float = 0.7
    max_boost: float = 0.1
    batch_size: int = 32
    validation_size: int = 64
    lr: float = 1e-2
    tau_start: float = 1.5
    tau_end: float = 0.5
    validate_every: float = 30.0

    def schedule(self, base: float) -> TemperatureSchedule:
        """The temperature at base ``base`` (adaptive: boosted per entry around it)."""
        return TemperatureSchedule(
            self.temperature, start=base, end=base, fixed=base, threshold=self.threshold,
            max_boost=self.max_boost, iterations=self.sinkhorn_iterations,
        )  # fmt: skip
