"""``PermutationLearner``: train a network that outputs assignment logits through the Gumbel–Sinkhorn
relaxation, on unlabelled instances, and decode hard permutations with the Hungarian algorithm.

One training step: a minibatch of instances -> logits (B, n, n) -> the temperature of the step
(fixed, globally annealed, or entropy-adaptive around the annealed base; see
:class:`~cosolve.methods.sinkhorn.operator.TemperatureSchedule`) -> ``samples`` Gumbel–Sinkhorn
soft permutations -> the task's loss on the reordered instance, averaged over samples -> Adam.
Decoding runs the Hungarian algorithm on the noiseless logits.

A *task* (:class:`~cosolve.methods.sinkhorn.task.Task`) knows its network, how a batch of
instances becomes tensors, its loss and its metrics: sorting (:mod:`cosolve.methods.sinkhorn.sorting`)
and jigsaw (:mod:`cosolve.methods.sinkhorn.jigsaw_net`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cosolve.errors import UsageError
from cosolve.methods.sinkhorn.decode import hungarian
from cosolve.methods.sinkhorn.operator import TemperatureSchedule, gumbel_sinkhorn
from cosolve.methods.sinkhorn.task import Task, tasks
from cosolve.problems.base import Problem

TASKS = ("sorting", "jigsaw")
TEMPERATURES = ("adaptive", "fixed", "annealed")
CHECKPOINT_FORMAT = "cosolve-sinkhorn/1"
#: what a checkpoint keeps of the learner's parameters (the rest shaped training only)
_KEPT = ("task", "hidden", "temperature", "samples", "iterations", "start", "end", "fixed", "threshold", "max_boost")


@dataclass
class TrainingLog:
    """Per logged step: the step, seconds since the start, the mean training loss since the last
    log and the base temperature."""

    steps: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    temperature: list[float] = field(default_factory=list)


class PermutationLearner:
    """Learn permutations without labels by Gumbel–Sinkhorn with a fixed, annealed or
    entropy-adaptive temperature (scikit-learn style: ``fit`` returns self, learned state ends in ``_``).

    ``task``: "sorting" or "jigsaw"; ``temperature``: "adaptive" (default), "fixed" or "annealed"; ``steps`` of
    Adam (``lr``) on minibatches of ``batch_size`` instances, each with ``samples`` Gumbel draws and
    ``iterations`` Sinkhorn rounds; base temperature annealed ``start`` -> ``end`` (``fixed`` for the
    fixed variant); adaptive boost above the normalised entropy ``threshold``, at most ``max_boost``;
    ``objective``: "unsupervised" (the task's label-free loss) or "supervised" (the reference; sorting only);
    ``hidden`` units of the network; ``time_limit`` seconds stops training early; ``progress``
    prints a line every ``log_every`` steps.
    """

    def __init__(
        self,
        *,
        task: str = "sorting",
        temperature: str = "adaptive",
        steps: int = 1000,
        batch_size: int = 32,
        lr: float = 1e-2,
        samples: int = 5,
        iterations: int = 10,
        start: float = 1.5,
        end: float = 0.5,
        fixed: float = 1.0,
        threshold: float = 0.7,
        max_boost: float = 0.1,
        objective: str = "unsupervised",
        hidden: int = 32,
        seed: int = 0,
        time_limit: float | None = None,
        progress: bool = False,
        log_every: int = 100,
    ) -> None:
        self.task = task
        self.temperature = temperature
        self.steps = steps
        self.batch_size = batch_size
        self.lr = lr
        self.samples = samples
        self.iterations = iterations
        self.start = start
        self.end = end
        self.fixed = fixed
        self.threshold = threshold
        self.max_boost = max_boost
        self.objective = objective
        self.hidden = hidden
        self.seed = seed
        self.time_limit = time_limit
        self.progress = progress
        self.log_every = log_every

    # ------------------------------------------------------------------ set-up

    def _schedule(self) -> TemperatureSchedule:
        return TemperatureSchedule(
            self.temperature, start=self.start, end=self.end, fixed=self.fixed,
            threshold=self.threshold, max_boost=self.max_boost, iterations=self.iterations,
        )  # fmt: skip

    def _check_params(self) -> None:
        """UsageError naming the first parameter out of its range (checked by ``fit``, as in scikit-learn)."""
        if self.temperature not in TEMPERATURES:
            raise UsageError(f"temperature={self.temperature!r}; valid: {', '.join(TEMPERATURES)}")
        for name, least in (("steps", 0), ("batch_size", 1), ("samples", 1), ("iterations", 1), ("hidden", 1), ("log_every", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise UsageError(f"{name}={value!r}: must be an integer of at least {least}")
        for name in ("lr", "start", "end", "fixed"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise UsageError(f"{name}={value!r}: must be a positive finite number")
        if not (isinstance(self.threshold, (int, float)) and 0 <= self.threshold < 1):
            raise UsageError(f"threshold={self.threshold!r}: must lie in [0, 1)")
        if not (isinstance(self.max_boost, (int, float)) and 0 <= self.max_boost < math.inf):
            raise UsageError(f"max_boost={self.max_boost!r}: must be a finite number of at least 0")

    def _check_instances(self, instances: Sequence[Problem]) -> tuple[Task, Any]:
        """The task and the instances' common signature (size; jigsaw: grid and piece shape)."""
        self._check_params()
        if self.task not in TASKS:
            raise UsageError(f"unknown task {self.task!r}; valid: {', '.join(TASKS)}")
        task = tasks()[self.task]
        if self.objective not in task.objectives:
            raise UsageError(f"unknown objective {self.objective!r} for {self.task}; valid: {', '.join(task.objectives)}")
        if not instances:
            raise UsageError("fit needs at least one instance")
        kinds = {p.kind for p in instances}
        if kinds != {self.task}:
            raise UsageError(f"a {self.task} learner cannot train on {', '.join(sorted(kinds - {self.task}))} instances")
        signatures = {task.signature(p) for p in instances}
        if len(signatures) != 1:
            what = "size" if self.task == "sorting" else "grid and piece shape"
            raise UsageError(
                f"all training instances must have one {what}, got {'; '.join(sorted(map(task.describe, signatures)))}"
            )
        return task, signatures.pop()

    # ------------------------------------------------------------------ training

    def fit(self, instances: Sequence[Problem]) -> PermutationLearner:
        """Train on ``instances`` (unlabelled: only their data is used) and return self."""
        instances = list(instances)
        task, signature = self._check_instances(instances)
        schedule, loss_fn = self._schedule(), task.loss(signature, self.objective)
        torch.manual_seed(self.seed)
        generator = torch.Generator().manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        network = task.network(signature, self.hidden)
        data = task.tensors(instances)
        if hasattr(network, "calibrate"):  # a network that scales its input to the training data
            network.calibrate(data[0])
        optimizer = torch.optim.Adam(network.parameters(), lr=self.lr)
        log, running, count = TrainingLog(), 0.0, 0
        started = time.perf_counter()
        for step in range(self.steps):
            if self.time_limit is not None and time.perf_counter() - started > self.time_limit:
                break
            rows = rng.integers(0, len(instances), self.batch_size)
            batch = tuple(t[rows] for t in data)
            logits = network(batch[0])
            p = gumbel_sinkhorn(
                logits, schedule(logits, step, self.steps), samples=self.samples,
                iterations=self.iterations, generator=generator,
            )  # fmt: skip
            loss = loss_fn(p, *batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running, count = running + float(loss.detach()), count + 1
            if (step + 1) % self.log_every == 0 or step + 1 == self.steps:
                log.steps.append(step + 1)
                log.seconds.append(time.perf_counter() - started)
                log.loss.append(running / count)
                log.temperature.append(schedule.base(step, self.steps))
                if self.progress:
                    line = f"step {step + 1}/{self.steps}  loss {running / count:.5f}  T {log.temperature[-1]:.3f}"
                    print(f"{line}  {log.seconds[-1]:.1f} s", flush=True)
                running, count = 0.0, 0
        self.network_ = network.eval()
        self.task_ = task
        self.signature_ = signature
        self.n_ = instances[0].n
        self.log_ = log
        self.train_time_ = time.perf_counter() - started
        self.steps_done_ = log.steps[-1] if log.steps else 0
        return self

    # ------------------------------------------------------------------ checkpoints

    def save(self, folder: str | Path, meta: dict[str, Any]) -> None:
        """Write the fitted network to ``folder/model.pt`` with its model card (``meta``: training
        facts for the card, e.g. the command)."""
        from cosolve.training.checkpoint import model_card, write_checkpoint

        self._fitted()
        config = {**{k: getattr(self, k) for k in _KEPT}, "signature": self.signature_, "n": self.n_}
        meta = {"iterations": self.steps_done_, "trained_seconds": round(self.train_time_, 1), "seed": self.seed,
                "torch": str(torch.__version__), **meta}  # fmt: skip
        parameters = sum(p.numel() for p in self.network_.parameters())
        about = (
            f"A Gumbel–Sinkhorn permutation network for {self.task} ({self.task_.describe(self.signature_)}), trained "
            "without labels with an entropy-adaptive temperature (`cosolve.methods.sinkhorn`). Use it with "
            '`Solver("gumbel-sinkhorn", checkpoint=PATH)` on instances of that size.'
        )
        card = model_card(f"Gumbel–Sinkhorn checkpoint: {self.task}", about, config, meta, parameters)
        write_checkpoint(Path(folder), CHECKPOINT_FORMAT, config, meta, self.network_.state_dict(), card)

    @classmethod
    def load(cls, path: str | Path) -> PermutationLearner:
        """A fitted learner from a checkpoint written by :meth:`save` (a file or its folder)."""
        from cosolve.training.checkpoint import load_weights, read_checkpoint

        path, payload = read_checkpoint(path, CHECKPOINT_FORMAT, "Gumbel-Sinkhorn")
        config, meta = payload["config"], payload.get("meta", {})
        learner = cls(**{k: config[k] for k in _KEPT}, seed=meta.get("seed", 0))
        learner.task_ = tasks()[learner.task]
        learner.signature_ = _tuples(config["signature"])
        learner.network_ = learner.task_.network(learner.signature_, learner.hidden)
        load_weights(learner.network_, payload, path)
        learner.n_, learner.log_ = config["n"], TrainingLog()
        learner.train_time_, learner.steps_done_ = meta.get("trained_seconds", 0.0), meta.get("iterations", 0)
        return learner

    # ------------------------------------------------------------------ inference

    def _fitted(self) -> None:
        if not hasattr(self, "network_"):
            raise UsageError("this PermutationLearner is not fitted yet: call fit(instances) first")

    def check(self, instances: Sequence[Problem]) -> list[Problem]:
        """``instances`` as a list, or a UsageError unless the fitted network can take them all
        (the fitted kind and size; jigsaw: the fitted grid and piece shape)."""
        instances = list(instances)
        self._fitted()
        if not instances:
            raise UsageError("predict needs at least one instance")
        task = self.task_
        kinds = {p.kind for p in instances}
        if kinds != {task.kind}:
            others = ", ".join(sorted(kinds - {task.kind}))
            raise UsageError(f"this learner was fitted on {task.kind} instances; got {others} instances")
        others = {task.signature(p) for p in instances} - {self.signature_}
        if others:
            fitted, got = task.describe(self.signature_), "; ".join(sorted(map(task.describe, others)))
            raise UsageError(f"this learner was fitted on {task.kind} instances with {fitted}; got other sizes ({got})")
        return instances

    def logits(self, instances: Sequence[Problem]) -> np.ndarray:
        """The network's assignment logits (B, n, n) for ``instances``: row ``i`` item (piece) ``i``,
        column ``j`` position ``j``."""
        instances = self.check(instances)
        with torch.no_grad():
            return self.network_(self.task_.tensors(instances)[0]).double().numpy()

    def predict(self, instances: Sequence[Problem]) -> np.ndarray:
        """Hard permutations (B, n) int64 by the Hungarian algorithm on the logits: ``perm[i]`` the
        position of item ``i`` (jigsaw: the grid position of piece ``i``, as ``Jigsaw.truth``)."""
        return hungarian(self.logits(instances))

    def score(self, instances: Sequence[Problem]) -> dict[str, Any]:
        """The task's metrics against the true permutations, and ``count``: sorting Kendall tau, the
        proportion of wrong positions and of sequences with any error; jigsaw the proportion of
        pieces in place (``pieces_in_place``) and of perfect reconstructions (``perfect``)."""
        instances = self.check(instances)
        truths = [self.task_.truth(p) for p in instances]
        if any(t is None for t in truths):
            raise UsageError(f"score needs the true arrangement of every instance; {sum(t is None for t in truths)} have none")
        return {**self.task_.score(self.predict(instances), np.stack(truths)), "count": len(instances)}


def _tuples(value: Any) -> Any:
    """Lists read back from a checkpoint as the tuples a signature is made of."""
    return tuple(_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def untrained_score(instances: Sequence[Problem], *, hidden: int = 32, seed: int = 0) -> float:
    """The headline metric of a freshly initialised network (the reference a trained one must
    beat): sorting Kendall tau, jigsaw the proportion of pieces in place."""
    instances = list(instances)
    task = instances[0].kind if instances else "sorting"
    learner = PermutationLearner(task=task, steps=0, hidden=hidden, seed=seed).fit(instances)
    return learner.score(instances)[learner.task_.headline]
