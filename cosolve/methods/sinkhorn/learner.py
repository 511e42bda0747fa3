"""``PermutationLearner``: train a network that outputs assignment logits through the Gumbel–Sinkhorn
relaxation, on unlabelled instances, and decode hard permutations with the Hungarian algorithm.

One training step: a minibatch of instances -> logits (B, n, n) -> the temperature of the step
(fixed, globally annealed, or entropy-adaptive around the annealed base; see
:class:`~cosolve.methods.sinkhorn.operator.TemperatureSchedule`) -> ``samples`` Gumbel–Sinkhorn
soft permutations -> the task's loss on the reordered instance, averaged over samples -> Adam.
Decoding runs the Hungarian algorithm on the noiseless logits.

A *task* (:class:`~cosolve.methods.sinkhorn.permutation_task.Task`) knows its network, how a batch of
instances becomes tensors, its loss and its metrics: sorting (:mod:`cosolve.methods.sinkhorn.sorting`)
and jigsaw (:mod:`cosolve.methods.sinkhorn.jigsaw_net`).

Two loops run that step (:func:`permutation_step`): :meth:`PermutationLearner.fit` trains in memory
on every instance it is given, for ``steps`` steps (base temperature geometric from ``start`` to
``end`` over the steps); ``Solver("gumbel-sinkhorn").fit`` and ``cosolve train`` train through
:func:`cosolve.training.loop.train` with :class:`PermutationTask` (a share held out for validation,
the best network kept, checkpoints and the resumable state in ``out``, the base temperature linear
from ``start`` to ``end`` over the budget). Both write the same checkpoint format
(:class:`PermutationConfig` and the weights), which :meth:`PermutationLearner.load` reads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from cosolve.core.problem import Problem
from cosolve.errors import UsageError
from cosolve.methods.sinkhorn.hungarian import hungarian
from cosolve.methods.sinkhorn.operator import TemperatureSchedule, gumbel_sinkhorn, log_sinkhorn
from cosolve.methods.sinkhorn.permutation_task import Task
from cosolve.methods.sinkhorn.training_config import SinkhornConfig
from cosolve.training.loop import TrainingTask
from cosolve.training.progress import Validation

TASKS = ("sorting", "jigsaw")
TEMPERATURES = ("adaptive", "fixed", "annealed")
CHECKPOINT_FORMAT = "cosolve-sinkhorn/1"


def tasks() -> dict[str, Task]:
    """The learnable tasks by problem kind (imported on demand: the task modules import torch)."""
    from cosolve.methods.sinkhorn.jigsaw_net import JIGSAW_TASK
    from cosolve.methods.sinkhorn.sorting import SORTING_TASK

    return {t.kind: t for t in (SORTING_TASK, JIGSAW_TASK)}


@dataclass
class PermutationConfig(SinkhornConfig):
    """What a permutation network's checkpoint stores, and the settings of its training through
    :func:`cosolve.training.loop.train`: the ``task`` ("sorting" or "jigsaw"), the instances'
    ``signature`` (sorting: the number of items; jigsaw: ``((rows, cols), (s, s, C))``) and the
    ``objective``, beside the shared :class:`~cosolve.methods.sinkhorn.training_config.SinkhornConfig`
    (``fixed`` temperatures: equal ends)."""

    what: ClassVar[str] = "Gumbel-Sinkhorn"
    checkpoint_format: ClassVar[str] = CHECKPOINT_FORMAT

    task: str = "sorting"
    signature: Any = 0
    objective: str = "unsupervised"

    def policy(self) -> nn.Module:
        """A freshly initialised network for the task and signature (uncalibrated)."""
        return tasks()[self.task].network(self.signature, self.hidden)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PermutationConfig:
        """The config a checkpoint stored, that of the format before included (:meth:`upgrade`)."""
        return super().from_dict(cls.upgrade(dict(data)))  # upgraded before the check of the names

    @classmethod
    def upgrade(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A checkpoint written before this config (its ``iterations`` were the Sinkhorn
        iterations; ``start``, ``end``, ``fixed`` the temperatures; ``n`` the size) as this config."""
        if "start" in data:
            start, end, fixed = data.pop("start"), data.pop("end"), data.pop("fixed", 1.0)
            data["tau_start"], data["tau_end"] = (fixed, fixed) if data.get("temperature") == "fixed" else (start, end)
            data["sinkhorn_iterations"] = data.pop("iterations", 10)
            data.pop("n", None)
        data["signature"] = _tuples(data.get("signature", 0))
        return data


def permutation_step(
    model: nn.Module,
    optimizer: Any,
    loss_fn: Callable[..., torch.Tensor],
    batch: tuple[torch.Tensor, ...],
    temperature: Callable[[torch.Tensor], float | torch.Tensor],
    *,
    samples: int,
    iterations: int,
    generator: torch.Generator,
) -> float:
    """One training step: ``batch`` (the task's tensors, one row per instance; the network's input
    first) -> logits (B, n, n) -> ``samples`` Gumbel–Sinkhorn soft permutations (S, B, n, n) of
    ``iterations`` rounds at ``temperature(logits)`` -> ``loss_fn(p, *batch)`` -> one Adam step of
    ``optimizer``. Returns the loss."""
    logits = model(batch[0])
    p = gumbel_sinkhorn(logits, temperature(logits), samples=samples, iterations=iterations, generator=generator)
    loss = loss_fn(p, *batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return float(loss.detach())


class PermutationTask(TrainingTask):
    """The :class:`~cosolve.training.loop.TrainingTask` of a permutation network (``config``, a
    :class:`PermutationConfig`): a step is :func:`permutation_step` at the base temperature
    ``tau``; validation decodes the held-out instances' logits by the Hungarian algorithm.
    ``instances``: the training instances, whose values calibrate a network that scales its input
    (sorting); None leaves it uncalibrated (the weights are loaded afterwards)."""

    config: PermutationConfig
    energy_label = "noiseless loss at the end temperature"
    #: held-out instances of the last validation (None before the first)
    held_out: int | None = None

    def __init__(self, config: PermutationConfig, instances: Sequence[Problem] | None = None) -> None:
        super().__init__(config)
        self.task = tasks()[config.task]
        self.instances = instances
        self.loss = self.task.loss(config.signature, config.objective)

    def policy(self) -> nn.Module:
        network = self.config.policy()
        if self.instances is not None and hasattr(network, "calibrate"):  # scales its input to the training data
            network.calibrate(self.task.tensors(self.instances)[0])
        return network

    def prepare(self, problem: Any) -> tuple[Problem, tuple[torch.Tensor, ...]]:
        return problem, self.task.tensors([problem])

    def collate(self, items: list[Any]) -> tuple[list[Problem], tuple[torch.Tensor, ...]]:
        problems, rows = zip(*items, strict=True)
        return list(problems), tuple(torch.cat(column) for column in zip(*rows, strict=True))

    def step(
        self, model: nn.Module, policy: nn.Module, optimizer: Any, batch: Any, tau: float, rng: np.random.Generator
    ) -> tuple[float, float]:
        """:func:`permutation_step` on the batch at base temperature ``tau``; returns its loss twice
        (the loss is the training energy)."""
        c, schedule = self.config, self.config.schedule(tau)
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        loss = permutation_step(
            model, optimizer, self.loss, batch[1], lambda logits: schedule(logits, 0, 1),
            samples=c.samples, iterations=c.sinkhorn_iterations, generator=generator,
        )  # fmt: skip
        return loss, loss

    def validate(self, policy: nn.Module, batch: Any) -> Validation:
        """Objective: the mean objective of the held-out instances (sorting: out-of-order pairs;
        jigsaw: discontinuity) at the Hungarian decoding of the network's logits; energy: the loss
        of the noiseless Sinkhorn at ``tau_end``."""
        problems, tensors = batch
        c = self.config
        with torch.no_grad():
            logits = policy(tensors[0])
            p = torch.exp(log_sinkhorn(logits / c.tau_end, c.sinkhorn_iterations)).unsqueeze(0)
            energy = float(self.loss(p, *tensors))
        perms = hungarian(logits.double().numpy())
        self.held_out = len(problems)
        objective = float(np.mean([q.evaluate(perm).objective for q, perm in zip(problems, perms, strict=True)]))
        return Validation(objective, energy)

    def card(self) -> tuple[str, str, str]:
        c = self.config
        about = (
            f"A Gumbel–Sinkhorn permutation network for {c.task} ({self.task.describe(c.signature)}), trained "
            "without labels with an entropy-adaptive temperature (`cosolve.methods.sinkhorn`). Use it with "
            '`Solver("gumbel-sinkhorn", checkpoint=PATH)` on instances of that size.'
        )
        measure = "out-of-order pairs" if c.task == "sorting" else "discontinuity"
        n = self.held_out
        count = "held-out instances" if n is None else f"{n} held-out instance{'s' * (n != 1)}"
        validation = f"mean {measure} of the Hungarian decoding of the network's logits, on {count}"
        return f"Gumbel–Sinkhorn checkpoint: {c.task}", about, validation


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

    Fitted state: ``network_``, ``config_`` (its :class:`PermutationConfig`, what a checkpoint
    stores), ``meta_`` (its checkpoint's training facts), ``task_``, ``signature_``, ``log_``
    (loss and base temperature per logged step of :meth:`fit`), ``train_time_`` (seconds) and
    ``steps_done_``. :meth:`fit` trains in memory on all the instances it is given, without
    validation or resume; ``Solver("gumbel-sinkhorn").fit`` trains the same network through the
    training loop (module doc).
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

    def training_config(self, instances: Sequence[Problem], **settings: Any) -> PermutationConfig:
        """The learner's hyperparameters for ``instances`` (checked: the parameters, the instances'
        kind and their common size) as a :class:`PermutationConfig` (``iterations``: ``steps``; the
        base temperature from ``start`` to ``end``, or ``fixed`` throughout); ``settings`` set its
        other fields (e.g. ``validate_every``)."""
        _, signature = self._check_instances(list(instances))
        fixed = self.temperature == "fixed"
        return PermutationConfig(
            task=self.task, signature=_tuples(signature), hidden=self.hidden, temperature=self.temperature,
            samples=self.samples, sinkhorn_iterations=self.iterations, threshold=self.threshold,
            max_boost=self.max_boost, objective=self.objective, batch_size=self.batch_size, lr=self.lr,
            tau_start=self.fixed if fixed else self.start, tau_end=self.fixed if fixed else self.end,
            iterations=self.steps, **settings,
        )  # fmt: skip

    def fit(self, instances: Sequence[Problem]) -> PermutationLearner:
        """Train on ``instances`` (unlabelled: only their data is used) and return self."""
        instances = list(instances)
        config = self.training_config(instances)
        task, signature = tasks()[self.task], config.signature
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
            loss = permutation_step(
                network, optimizer, loss_fn, tuple(t[rows] for t in data),
                lambda logits, step=step: schedule(logits, step, self.steps),
                samples=self.samples, iterations=self.iterations, generator=generator,
            )  # fmt: skip
            running, count = running + loss, count + 1
            if (step + 1) % self.log_every == 0 or step + 1 == self.steps:
                log.steps.append(step + 1)
                log.seconds.append(time.perf_counter() - started)
                log.loss.append(running / count)
                log.temperature.append(schedule.base(step, self.steps))
                if self.progress:
                    line = f"step {step + 1}/{self.steps}  loss {running / count:.5f}  T {log.temperature[-1]:.3f}"
                    print(f"{line}  {log.seconds[-1]:.1f} s", flush=True)
                running, count = 0.0, 0
        seconds = time.perf_counter() - started
        meta = {"iterations": log.steps[-1] if log.steps else 0, "trained_seconds": round(seconds, 1), "seed": self.seed,
                "torch": str(torch.__version__), "data": f"{len(instances)} {self.task} instances"}  # fmt: skip
        self._adopt(config, network, meta)
        self.log_, self.train_time_ = log, seconds
        return self

    def _adopt(self, config: PermutationConfig, network: nn.Module, meta: dict[str, Any]) -> None:
        """Take ``network`` (trained with ``config``; ``meta``: its checkpoint's facts) as the fitted one."""
        self.config_ = config
        self.network_ = network.eval()
        self.task_ = tasks()[config.task]
        self.signature_ = config.signature
        self.meta_ = meta
        self.log_ = TrainingLog()
        self.train_time_ = meta.get("trained_seconds", 0.0)
        self.steps_done_ = meta.get("iterations", 0)

    @classmethod
    def fitted(cls, config: PermutationConfig, network: nn.Module, meta: dict[str, Any]) -> PermutationLearner:
        """A fitted learner of ``network``, trained elsewhere with ``config`` (by
        :func:`cosolve.training.loop.train` with :class:`PermutationTask`, or read from a
        checkpoint); ``meta``: what its checkpoint records. ``log_`` is empty; ``train_time_`` and
        ``steps_done_`` are the seconds and steps until this network."""
        fixed = config.temperature == "fixed"
        learner = cls(
            task=config.task, temperature=config.temperature, batch_size=config.batch_size, lr=config.lr,
            samples=config.samples, iterations=config.sinkhorn_iterations, start=config.tau_start, end=config.tau_end,
            fixed=config.tau_start if fixed else 1.0, threshold=config.threshold, max_boost=config.max_boost,
            objective=config.objective, hidden=config.hidden, seed=meta.get("seed", 0),
        )  # fmt: skip
        learner._adopt(config, network, meta)
        return learner

    # ------------------------------------------------------------------ checkpoints

    def save(self, folder: str | Path, meta: dict[str, Any] | None = None) -> None:
        """Write the fitted network to ``folder/model.pt`` with its model card; ``meta`` adds
        training facts to those of the fit (e.g. the command)."""
        from cosolve.training.loop import save_model

        self._fitted()
        save_model(Path(folder), PermutationTask(self.config_), self.network_, {**self.meta_, **(meta or {})})

    @classmethod
    def load(cls, path: str | Path) -> PermutationLearner:
        """A fitted learner from a checkpoint written by :meth:`save` or by training through the
        loop (a file or its folder)."""
        from cosolve.training.checkpoint import load_weights, read_checkpoint

        path, payload = read_checkpoint(path, CHECKPOINT_FORMAT, "Gumbel-Sinkhorn")
        config = PermutationConfig.from_dict(payload["config"])
        network = config.policy()
        load_weights(network, payload, path)
        return cls.fitted(config, network, payload.get("meta", {}))

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
    """A signature as plain tuples of ints (lists read back from a checkpoint, numpy integers)."""
    if isinstance(value, (list, tuple)):
        return tuple(_tuples(v) for v in value)
    return int(value) if isinstance(value, (int, np.integer)) else value


def untrained_score(instances: Sequence[Problem], *, hidden: int = 32, seed: int = 0) -> float:
    """The headline metric of a freshly initialised network (the reference a trained one must
    beat): sorting Kendall tau, jigsaw the proportion of pieces in place."""
    instances = list(instances)
    task = instances[0].kind if instances else "sorting"
    learner = PermutationLearner(task=task, steps=0, hidden=hidden, seed=seed).fit(instances)
    return learner.score(instances)[learner.task_.headline]
