"""Hyperparameters stored in checkpoints: what the training loop reads (:class:`TrainingConfig`),
what every adjoint-matching policy shares (:class:`AdjointConfig`, the base of the ``cam`` and
``glns`` configs) and the training options that set them (:func:`adjoint_options`). Imports no torch."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from cosolve.core.options import Option
from cosolve.errors import InputError


@dataclass
class TrainingConfig:
    """The settings :func:`cosolve.training.loop.train` reads: Adam's ``lr``, the annealed setting
    ``tau`` from ``tau_start`` to ``tau_end`` over the budget (what it weighs is the task's),
    ``validation_share`` of a fixed set held out, ``validate_every`` seconds, ``iterations`` (0 for
    no limit), the torch ``device`` the network trains on ("cpu", or "cuda" for tasks that
    support it; a resumed run may move). Subclasses name their ``policy_class`` (``"module:Class"``), the
    ``checkpoint_format`` tag, the fields of their batch size (``batch_field``) and validation
    size (``validation_field``), add their own fields (all with defaults) and may change defaults."""

    policy_class: ClassVar[str]
    #: names the model in messages and model cards ("CAM")
    what: ClassVar[str]
    checkpoint_format: ClassVar[str]
    #: the fields of the instances per training batch (per process) and of the held-out
    #: instances (drawn from a distribution, or the most a fixed set gives up)
    batch_field: ClassVar[str]
    validation_field: ClassVar[str]
    #: config fields set by a training option of another name (the model card shows the option's)
    option_names: ClassVar[dict[str, str]] = {}

    lr: float = 1e-3
    tau_start: float = 1.0
    tau_end: float = 0.0
    validation_share: float = 0.2
    validate_every: float = 60.0
    iterations: int = 0
    device: str = "cpu"

    def policy(self) -> Any:
        """A freshly initialised network (torch) of these dimensions."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        """The config a checkpoint stored (one written before a setting existed gets its default)."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown {cls.what} settings: {', '.join(sorted(unknown))}; valid: {', '.join(sorted(known))}")
        return cls(**cls.upgrade(dict(data)))

    @classmethod
    def upgrade(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Settings stored by an older cosolve, as this one reads them."""
        return data


@dataclass
class AdjointConfig(TrainingConfig):
    """:class:`TrainingConfig` of an adjoint-matching flip policy: the network (``hidden`` units,
    ``layers``, ``time_features``, ``initial_flip``: the flip probability of the untrained policy)
    and the rollouts (``steps`` T and ``chains`` K per rollout, ``snapshots`` in the loss,
    ``clips``, ``grad_clip``, ``compare``: the weight of the targets that compare chains; 0:
    adjoint targets only); ``tau`` is the entropy weight."""

    hidden: int = 32
    layers: int = 3
    time_features: int = 8
    initial_flip: float = 0.1
    steps: int = 16
    chains: int = 8
    snapshots: int = 4
    clips: int = 1
    grad_clip: float = 1.0
    compare: float = 0.0

    #: the rollout's ``steps`` and ``chains`` are set by ``train_steps`` and ``train_chains`` (a
    #: solve's options took the plain names)
    option_names: ClassVar[dict[str, str]] = {"steps": "train_steps", "chains": "train_chains"}

    def policy(self) -> Any:
        """A freshly initialised policy network (torch) of these dimensions."""
        module, _, name = self.policy_class.partition(":")
        network = getattr(importlib.import_module(module), name)
        return network(hidden=self.hidden, layers=self.layers, time_features=self.time_features, initial_flip=self.initial_flip)


def adjoint_options(defaults: AdjointConfig, *, network: str, instance: str) -> dict[str, Option]:
    """The training options of the shared settings, with their defaults from ``defaults``;
    ``network`` and ``instance`` name the model and the unit of data in the help texts. The
    rollout's ``steps`` and ``chains`` are ``train_steps`` and ``train_chains`` (a solve's
    options took the plain names)."""
    d = defaults
    return {
        "hidden": Option(int, d.hidden, f"hidden units of the {network}", minimum=1),
        "layers": Option(int, d.layers, "message-passing layers", minimum=1),
        "time_features": Option(int, d.time_features, "sinusoidal time features (0: no time input)", minimum=0),
        "initial_flip": Option(float, d.initial_flip, "flip probability of the untrained policy", minimum=1e-6, below=1.0),
        "train_steps": Option(int, d.steps, "T, tau-leaping steps per training rollout", minimum=1),
        "train_chains": Option(int, d.chains, f"K, chains per {instance} in training rollouts", minimum=1),
        "snapshots": Option(int, d.snapshots, "steps per rollout that enter the loss", minimum=1),
        "clips": Option(int, d.clips, "terminal points along the path (clip-wise adjoints; 1: the final state)", minimum=1),
        "lr": Option(float, d.lr, "Adam learning rate", minimum=1e-12),
        "tau_start": Option(float, d.tau_start, "entropy weight at the start (annealed linearly)", minimum=0),
        "tau_end": Option(float, d.tau_end, "entropy weight at the end of the budget", minimum=0),
        "grad_clip": Option(float, d.grad_clip, "gradient norm clip", minimum=1e-12),
        "compare": Option(
            float, d.compare, f"weight of targets favouring the better chains on each {instance} (0: none)", minimum=0
        ),
        "validation_share": Option(
            float, d.validation_share, f"share of a fixed set of {instance}s held out for validation", minimum=0, below=1.0
        ),
        "validate_every": Option(float, d.validate_every, "seconds of training between validations", minimum=0),
        "iterations": Option(int, d.iterations, "stop after this many iterations (0: at the time limit)", minimum=0),
    }
