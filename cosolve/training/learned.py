"""The base of methods whose flip policy is trained by adjoint matching (``cam``, ``glns``):
``fit`` through :func:`cosolve.training.adjoint.train`, ``save``, and the model they solve with
(fitted here, or loaded from a checkpoint). Imports no torch until a model is trained or loaded."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from cosolve.core.method import FitContext, Method
from cosolve.errors import UsageError
from cosolve.training.hyperparameters import AdjointConfig
from cosolve.training.training_data import TrainingData

#: Training options whose names differ from their config field (the solve options took the name).
RENAMED = {option: field for field, option in AdjointConfig.option_names.items()}


@dataclass
class TrainedModel:
    """A policy with its hyperparameters and checkpoint metadata; ``source`` is the checkpoint
    file it was loaded from (None when it was fitted in this process)."""

    policy: Any
    config: Any
    meta: dict[str, Any]
    source: Path | None = None


class AdjointMethod(Method):
    """A method with a policy trained by adjoint matching.

    Subclasses set ``task`` (``"module:Class"`` of their :class:`~cosolve.training.adjoint.AdjointTask`)
    and ``config_type`` (its hyperparameter dataclass), declare ``fit_options`` named as the
    config's fields (but :data:`RENAMED`), and may add config fields that depend on the data
    (:meth:`data_fields`). The model in use is ``model_``; the last fit's progress ``training_``.
    """

    task: ClassVar[str]
    config_type: ClassVar[type]

    def data_fields(self, data: TrainingData) -> dict[str, Any]:
        """Config fields set by the training data rather than by options."""
        return {}

    def training_config(self, data: TrainingData) -> Any:
        """The hyperparameters of a fit on ``data``: the fit options, under their config names."""
        settings = {RENAMED.get(key, key): self.config[key] for key in self.fit_options}
        return self.config_type(**self.data_fields(data), **settings)

    def make_task(self, config: Any) -> Any:
        module, _, name = self.task.partition(":")
        return getattr(importlib.import_module(module), name)(config)

    def fit(self, data: TrainingData, ctx: FitContext) -> AdjointMethod:
        from cosolve.training.loop import train

        if data.kind not in self.problems:
            raise UsageError(f"method {self.name} trains on {', '.join(sorted(self.problems))} instances, not {data.kind}")
        config = self.training_config(data)
        policy, progress, meta = train(self.make_task(config), data, ctx)
        self.model_ = TrainedModel(policy, config, meta)
        self.training_ = progress
        self.__dict__.pop("_prepared_kinds", None)  # warm up again with the new model
        return self

    def save(self, folder: str | Path) -> None:
        from cosolve.training.loop import save_model

        model = getattr(self, "model_", None)
        if model is None:
            raise UsageError(f"method {self.name} has no model yet: fit it, or solve once to load its checkpoint")
        policy = model.policy
        if hasattr(policy, "to_torch"):  # a network run in numpy for inference
            policy = policy.to_torch(model.config)
        save_model(Path(folder), self.make_task(model.config), policy, model.meta)

    def model_for(self, option: str, shipped: str | None, missing: str, load: Any) -> TrainedModel:
        """The model to solve with: the fitted one, else the checkpoint that the ``checkpoint``
        option names or the ``shipped`` one (``missing``: the error when none is), loaded by
        ``load(path) -> (policy, config, meta)`` unless it is already the one in use."""
        from cosolve.training.checkpoint import resolve_checkpoint

        model = getattr(self, "model_", None)
        if model is not None and model.source is None:
            return model
        path = resolve_checkpoint(option, shipped, missing)
        if model is None or model.source != path:
            policy, config, meta = load(path)
            self.model_ = TrainedModel(policy, config, meta, path)
        return self.model_
