"""What a method trains on: a fixed set of instances (files, a folder, Problems), split once into
training and validation instances, or a named distribution that draws fresh ones by seed."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from cosolve.core.problem import Problem
from cosolve.errors import InputError, UnknownFormatError, UsageError
from cosolve.io.detect import instance_files, load_instance


class TrainingData(ABC):
    """Instances of one problem ``kind`` to train on; ``fresh`` when every draw is a new instance."""

    kind: str
    #: the distribution's name ("" for a fixed set), recorded in the model's hyperparameters
    name: str = ""
    fresh: bool = False

    @abstractmethod
    def validation(self, count: int, share: float, seed: int) -> list[Problem]:
        """The held-out instances: ``count`` fresh ones from a distribution, or a ``share`` (at most
        ``count``) of a fixed set, the same for the same ``seed``. Call once, before :meth:`draw`."""

    @abstractmethod
    def draw(self, iteration: int, rank: int, world: int, size: int, rng: np.random.Generator) -> list[Problem]:
        """``size`` training instances for ``iteration`` of process ``rank`` of ``world``."""

    @abstractmethod
    def describe(self) -> str:
        """One line for the model card: what the model was trained on."""


class FixedInstances(TrainingData):
    """A fixed list of instances of one kind (at least two: one is held out)."""

    def __init__(self, instances: list[Problem], source: str = "") -> None:
        kinds = sorted({p.kind for p in instances})
        if not instances:
            raise UsageError("fit needs instances to train on; got none")
        if len(kinds) > 1:
            raise UsageError(f"fit needs instances of one problem kind, got {', '.join(kinds)}")
        self.instances = instances
        self.kind = kinds[0]
        self.source = source
        self._train: list[int] | None = None

    def validation(self, count: int, share: float, seed: int) -> list[Problem]:
        n = len(self.instances)
        if n < 2:
            raise UsageError(f"fit needs at least 2 instances (a share is held out for validation), got {n}")
        held = int(min(count, max(1, round(share * n)), n - 1))
        order = np.random.default_rng([seed, 0xDA7A]).permutation(n)
        self._train = sorted(order[held:].tolist())
        return [self.instances[i] for i in sorted(order[:held].tolist())]

    def draw(self, iteration: int, rank: int, world: int, size: int, rng: np.random.Generator) -> list[Problem]:
        train = self._train if self._train is not None else list(range(len(self.instances)))
        picked = rng.choice(len(train), size=min(size, len(train)), replace=False)
        return [self.instances[train[i]] for i in sorted(picked.tolist())]

    def describe(self) -> str:
        where = f" from {self.source}" if self.source else ""
        if self._train is None:  # trained on all of them
            return f"{len(self.instances)} {self.kind} instances{where}"
        held = len(self.instances) - len(self._train)
        return f"{len(self.instances)} {self.kind} instances{where} ({held} held out for validation)"


class DistributionData(TrainingData):
    """Fresh instances of a named distribution (:mod:`cosolve.generators.distributions`): training
    seeds from ``TRAINING_SEED``, validation seeds from ``VALIDATION_SEED``, test seeds below."""

    fresh = True

    def __init__(self, distribution: Any) -> None:
        self.distribution = distribution
        self.kind = distribution.problem
        self.name = distribution.name

    def validation(self, count: int, share: float, seed: int) -> list[Problem]:
        from cosolve.generators.distributions import VALIDATION_SEED

        return [self.distribution.sample(VALIDATION_SEED + i) for i in range(count)]

    def draw(self, iteration: int, rank: int, world: int, size: int, rng: np.random.Generator) -> list[Problem]:
        from cosolve.generators.distributions import TRAINING_SEED

        first = TRAINING_SEED + (iteration * world + rank) * size
        return [self.distribution.sample(first + i) for i in range(size)]

    def describe(self) -> str:
        from cosolve.generators.distributions import TRAINING_SEED, VALIDATION_SEED

        return (
            f"distribution {self.distribution.name} as {self.kind} (`cosolve generate --help`), fresh instances with seeds from "
            f"{TRAINING_SEED} (training) and {VALIDATION_SEED} (validation), disjoint from the test seeds below {VALIDATION_SEED}"
        )


def _folder_instance(path: Path, problem: str | None) -> Problem:
    """One file of a training folder; a file of no known format is named as one to move out
    (training has no ``--format``: every file of the folder is read as an instance)."""
    try:
        return load_instance(path, problem=problem)
    except UnknownFormatError:
        raise InputError(
            "not an instance file of a known format; a training folder holds only instances (and a README.md): move it out",
            where=str(path),
        ) from None


def training_data(source: Any, *, problem: str | None = None) -> TrainingData:
    """``source`` as training data: a :class:`TrainingData`, a
    :class:`~cosolve.generators.distributions.Distribution`, a folder of instance files, or an
    iterable of Problems and instance files. ``problem`` is the kind to read files as (graph
    files need it) and to draw from a graph distribution."""
    from cosolve.generators.distributions import Distribution

    if isinstance(source, TrainingData):
        return source
    if isinstance(source, Distribution):
        try:
            return DistributionData(source.bound(problem))
        except InputError as e:
            raise UsageError(str(e)) from None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            files = instance_files(path)
            if not files:
                raise InputError("no instance files in this folder", where=str(path))
            return FixedInstances([_folder_instance(f, problem) for f in files], source=str(path))
        return FixedInstances([load_instance(path, problem=problem)], source=str(path))
    if isinstance(source, Problem) or not isinstance(source, Iterable):
        raise UsageError(f"fit takes a list of instances, a folder or a distribution, not {type(source).__name__}")
    return FixedInstances([load_instance(item, problem=problem) for item in source])
