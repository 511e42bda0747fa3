"""The hyperparameters of a CAM graph policy and of its training, stored in every checkpoint
(imports no torch, so methods can declare their options from it cheaply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from cosolve.training.hyperparameters import AdjointConfig


@dataclass
class CAMConfig(AdjointConfig):
    """:class:`~cosolve.training.hyperparameters.AdjointConfig` for graphs of ``problem``: ``graphs`` per
    training batch (per process), the energy's constraint ``penalty`` (None: the problem's
    default), ``validation_graphs`` drawn from a distribution (or the most a fixed set gives up)
    and ``validation_chains`` each. ``distribution`` names the distribution it was trained on
    ("" for a fixed set of instances). ``base`` = "rlsa" makes the policy residual: its logits are
    added to RLSA's regularised logits (:meth:`base_logits`), so the untrained policy samples
    like RLSA with a fixed k, and training learns corrections to it; ``base_clip`` bounds those
    logits (RLSA's are nearly +-infinity at low temperature, where the loss has no gradient)."""

    policy_class: ClassVar[str] = "cosolve.methods.cam.flip_policy:FlipPolicy"
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
    base: str = ""
    base_clip: float = 5.0

    def policy(self) -> Any:
        """A freshly initialised policy; with ``base`` its head starts at zero (it adds nothing)."""
        from cosolve.methods.cam.flip_policy import FlipPolicy

        return FlipPolicy(
            hidden=self.hidden,
            layers=self.layers,
            time_features=self.time_features,
            initial_flip=self.initial_flip,
            residual=bool(self.base),
        )

    def base_logits(self, batch: Any) -> Any:
        """``base(gain, t) -> logits`` (K, N) that the policy's output is added to on the graph
        batch ``batch`` (None without ``base``): RLSA's regularised logits with its problem's
        temperature and the middle k of its regulariser range."""
        if not self.base:
            return None
        from cosolve.diffusion.sampler import rlsa_base, rlsa_defaults

        tau, d = rlsa_defaults(self.problem)
        return rlsa_base(batch.offsets, k=(2 + d) // 2, tau=tau, clip=self.base_clip)

    @classmethod
    def upgrade(cls, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("penalty") == 0.0:  # checkpoints before "auto" was None wrote 0 for the default
            data["penalty"] = None
        return data
