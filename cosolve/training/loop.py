"""The training loop of every learned method that trains through ``Method.fit`` on instances:
a :class:`TrainingTask` supplies its network, its batches, one training step and its validation;
:func:`train` runs the rest, the same for every task:

- iterations of ``task.step`` on batches drawn from the training data, with a setting ``tau``
  annealed linearly from ``tau_start`` to ``tau_end`` over the budget (time or iterations);
- **validation** every ``validate_every`` seconds (and at the start and the end) on held-out
  instances; the best model is kept, written as a **checkpoint** with its model card, and the
  resumable training state (weights, optimiser, clock, best model) beside it;
- progress reports (:class:`~cosolve.training.progress.Progress`) after each iteration.

Under ``torchrun`` (torch.distributed initialised) each process draws its own instances, gradients
are averaged by DistributedDataParallel (gloo on CPU) and only rank 0 validates and writes.
Every iteration draws its random numbers from a generator seeded by (seed, rank, iteration), so a
resumed run continues exactly where the saved one would have.

Tasks: adjoint matching (:mod:`cosolve.training.adjoint`: ``cam``, ``glns``) and the
Gumbel–Sinkhorn TSP edge network (:mod:`cosolve.methods.sinkhorn.tour_net`).
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import asdict
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.core.method import FitContext
from cosolve.core.result import Sense
from cosolve.errors import UsageError
from cosolve.training.checkpoint import load_state, model_card, save_state, write_checkpoint
from cosolve.training.hyperparameters import TrainingConfig
from cosolve.training.progress import Progress, Validation
from cosolve.training.training_data import TrainingData


class TrainingTask(ABC):
    """What a learned method supplies to :func:`train`.

    ``config`` is the method's :class:`~cosolve.training.hyperparameters.TrainingConfig` (stored in every
    checkpoint, with its format tag and the fields of the batch and validation sizes); the loop
    reads its shared settings. ``sense`` orders validation objectives (ties go to lower energy);
    ``energy_label`` says what a validation's energy is (model cards).
    """

    sense: Sense = Sense.MINIMIZE
    energy_label: str = "mean terminal energy"
    #: torch device types the task can train on; the loop sets ``device`` before the first batch
    devices: tuple[str, ...] = ("cpu",)

    def __init__(self, config: TrainingConfig) -> None:
        self.config = config
        self.device = torch.device("cpu")

    @property
    def checkpoint_format(self) -> str:
        return self.config.checkpoint_format

    @property
    def batch_size(self) -> int:
        """Instances per training batch (per process)."""
        return getattr(self.config, self.config.batch_field)

    @property
    def validation_size(self) -> int:
        """Held-out instances: drawn from a distribution, or the most a fixed set gives up."""
        return getattr(self.config, self.config.validation_field)

    def policy(self) -> nn.Module:
        """A freshly initialised network."""
        return self.config.policy()

    def prepare(self, problem: Any) -> Any:
        """What the task keeps of one instance (done once per instance of a fixed set)."""
        return problem

    @abstractmethod
    def collate(self, items: list[Any]) -> Any:
        """Prepared instances as one batch."""

    @abstractmethod
    def step(
        self, model: nn.Module, policy: nn.Module, optimizer: Any, batch: Any, tau: float, rng: np.random.Generator
    ) -> tuple[float, float]:
        """One training iteration on ``batch`` (``model`` is ``policy``, or its distributed wrapper
        to differentiate through; ``tau`` the annealed setting of the step, from ``tau_start`` to
        ``tau_end``; every random draw from ``rng``). Returns the loss and the training energy."""

    @abstractmethod
    def validate(self, policy: nn.Module, batch: Any) -> Validation:
        """The policy's score on the held-out batch (seeded: the same policy scores the same)."""

    @abstractmethod
    def card(self) -> tuple[str, str, str]:
        """The model card's title, its paragraph about the model, and what validation measures."""


def _distributed() -> tuple[int, int]:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _better(sense: Sense, a: Validation, b: Validation | None) -> bool:
    if b is None:
        return True
    if a.objective != b.objective:
        return sense.better(a.objective, b.objective)
    return a.energy < b.energy


#: settings a resumed run may change: when to stop (``tau`` then anneals over the new limit, as it
#: does over a new time budget), how often to validate and where to train
_RESUMABLE_CHANGES = frozenset({"iterations", "validate_every", "device"})


class _Run:
    """The state of one training run that a resumed run continues from."""

    def __init__(self, policy: nn.Module) -> None:
        self.iteration = 0
        self.offset = 0.0  # seconds of training before this process started (a resumed run)
        self.last_validation = -math.inf
        self.best: Validation | None = None
        self.best_iteration = 0
        self.best_seconds = 0.0
        self.best_state = {k: v.clone() for k, v in policy.state_dict().items()}
        self.history: list[dict[str, float]] = []
        self.device_spans: list[tuple[str, float]] = []  # (device, seconds) trained before this process, in order

    def devices(self, seconds: float, device: str) -> str:
        """Where the first ``seconds`` of training ran: "cpu", or for a run resumed elsewhere
        "cuda (NVIDIA H200) 430 s, then cpu 1981 s"."""
        spans = _extended(self.device_spans, device, seconds - self.offset)
        if len(spans) <= 1:
            return spans[0][0] if spans else device
        return ", then ".join(f"{name} {s:.0f} s" for name, s in spans)

    def state(self, task: TrainingTask, data: TrainingData, policy: nn.Module, optimizer: Any, elapsed: float) -> dict:
        return {
            "format": task.checkpoint_format, "config": asdict(task.config), "data": data.describe(),
            "iteration": self.iteration, "elapsed": elapsed, "last_validation": self.last_validation,
            "best": None if self.best is None else asdict(self.best), "best_iteration": self.best_iteration,
            "best_seconds": self.best_seconds,
            "best_state": self.best_state, "history": self.history,
            "device_spans": [list(span) for span in self.device_spans], "device": _device_name(task.device),
            "policy": policy.state_dict(), "optimizer": optimizer.state_dict(),
        }  # fmt: skip

    def restore(self, saved: dict, task: TrainingTask, data: TrainingData, policy: nn.Module, optimizer: Any, where: Any) -> None:
        if saved.get("format") != task.checkpoint_format:
            raise UsageError(f"{where}: the saved run trained another kind of model; start without resume")
        config = asdict(task.config)
        before = asdict(type(task.config).from_dict(saved["config"]))  # settings added since: their defaults
        changed = sorted(k for k in config if before.get(k) != config[k] and k not in _RESUMABLE_CHANGES)
        if changed:
            was = ", ".join(f"{k}={before.get(k)!r}" for k in changed)
            raise UsageError(f"{where}: the saved run used other settings ({was}); resume with them or start anew")
        if saved["data"] != data.describe():
            raise UsageError(f"{where}: the saved run trained on {saved['data']}; resume on the same data or start anew")
        policy.load_state_dict(saved["policy"])
        optimizer.load_state_dict(saved["optimizer"])
        self.iteration, self.offset = saved["iteration"], saved["elapsed"]
        self.last_validation = saved["last_validation"]
        self.best = None if saved["best"] is None else Validation(**saved["best"])
        self.best_iteration, self.best_seconds = saved["best_iteration"], saved["best_seconds"]
        self.best_state, self.history = saved["best_state"], saved["history"]
        spans = [(str(name), float(seconds)) for name, seconds in saved.get("device_spans", [])]
        where = saved.get("device", saved["config"].get("device", "cpu"))  # before spans: the config's, by name
        self.device_spans = _extended(spans, where, self.offset - sum(seconds for _, seconds in spans))


def _extended(spans: list[tuple[str, float]], device: str, seconds: float) -> list[tuple[str, float]]:
    """``spans`` (device, seconds) with ``seconds`` more on ``device`` (merged into the last span
    when it is the same device; nothing added when ``seconds`` is not positive)."""
    if seconds <= 0:
        return list(spans)
    if spans and spans[-1][0] == device:
        return [*spans[:-1], (device, spans[-1][1] + seconds)]
    return [*spans, (device, seconds)]


def _meta(task: TrainingTask, data: TrainingData, run: _Run, ctx: FitContext, world: int) -> dict[str, Any]:
    """What the best model's checkpoint records."""
    assert run.best is not None
    return {
        "validation_objective": run.best.objective, "validation_energy": run.best.energy, "validation": task.card()[2],
        "energy_label": task.energy_label,
        "trained_seconds": round(run.best_seconds, 1), "iterations": run.best_iteration, "seed": ctx.seed, "processes": world,
        "threads": torch.get_num_threads(), "device": run.devices(run.best_seconds, _device_name(task.device)),
        "command": ctx.command, "torch": str(torch.__version__), "data": data.describe(),
        # the first validation is the untrained model's (on the first save, the best so far is that one)
        "untrained_objective": run.history[0]["objective"] if run.history else run.best.objective,
    }  # fmt: skip


def save_model(folder: Any, task: TrainingTask, policy: nn.Module, meta: dict[str, Any]) -> None:
    """Write ``folder/model.pt`` and its model card for ``policy`` trained by ``task``."""
    title, about, _ = task.card()
    parameters = sum(p.numel() for p in policy.parameters())
    config = asdict(task.config)
    shown = {task.config.option_names.get(key, key): value for key, value in config.items()}  # as the user sets them
    card = model_card(title, about, shown, meta, parameters)
    write_checkpoint(folder, task.checkpoint_format, config, meta, policy.state_dict(), card)


def _training_device(task: TrainingTask, world: int) -> torch.device:
    """The device of ``task.config.device``, checked against the task, torch and the run."""
    name = task.config.device
    device = torch.device(name)
    if device.type not in task.devices:
        raise UsageError(f"{task.config.what} trains on {' or '.join(task.devices)}, not device={name}")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise UsageError(f"device={name}: this torch ({torch.__version__}) sees no CUDA GPU; train with device=cpu")
        if world > 1:
            raise UsageError("device=cuda trains in one process; start it without torchrun")
    return device


def _device_name(device: torch.device) -> str:
    """Where training ran, for model cards ("cpu", "cuda (NVIDIA H200)")."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type


def _note(
    run: _Run, elapsed: float, validate_every: float, interrupted: bool = False, budget: float | None = None, step: float = 0.0
) -> str:
    """What the user should know about how the run ended (empty when nothing)."""
    notes = []
    if interrupted:
        notes.append(f"interrupted at {elapsed:.0f} s: continue it with --resume (resume=True)")
    if budget is not None and elapsed > budget * 1.05 + 0.5:
        notes.append(
            f"the run ended {elapsed - budget:.0f} s past its {budget:g} s budget: a training step took about {step:.1f} s "
            "on these instances and cannot be interrupted; smaller instances or batches take less"
        )
    if run.iteration == 0:
        notes.append("no training step fitted in the budget: the model is the untrained one")
    elif run.best_iteration == 0:
        shorter = (
            " (the run was shorter than validate_every, so it was validated only at its start and end)"
            if (elapsed < validate_every and not interrupted)
            else ""
        )
        notes.append(
            f"no validation after {run.iteration} iterations ({elapsed:.0f} s) beat the untrained model, so the untrained "
            f"weights are kept{shorter}; train longer or change the settings"
        )
    return "; ".join(notes)


def _check_budget_left(run: _Run, ctx: FitContext, iterations: int) -> None:
    """A resumed run whose time or iteration limit is already spent would train nothing and only
    rewrite its checkpoint: refuse it, saying how far the saved run got."""
    trained = f"the saved run in {ctx.out} has trained {run.offset:.0f} s ({run.iteration} iterations)"
    if ctx.time_limit is not None and run.offset >= ctx.time_limit:
        raise UsageError(
            f"{trained}, at or past the time limit of {ctx.time_limit:g} s; resume with a longer one (--time, train_time)"
        )
    if iterations and run.iteration >= iterations:
        raise UsageError(f"{trained}, at or past its iteration limit of {iterations}; resume with a higher limit")


def train(task: TrainingTask, data: TrainingData, ctx: FitContext) -> tuple[nn.Module, Progress, dict[str, Any]]:
    """Train ``task``'s policy on ``data`` under ``ctx`` (budget, seed, output folder, resume,
    progress callback) and return the best validated policy (eval mode), the final progress and
    the best model's metadata (what its checkpoint records).
    Stops at ``ctx.time_limit`` seconds, at ``config.iterations`` iterations (0: no limit), or
    when ``ctx.stop()`` turns true."""
    import torch.distributed as dist

    c = task.config
    if ctx.time_limit is None and not c.iterations:
        raise UsageError("training needs a time limit (train_time, --time) or an iteration limit (iterations)")
    if ctx.resume and ctx.out is None:
        raise UsageError("resume needs the folder of the saved run (out, --out)")
    ctx.threads_ready()
    rank, world = _distributed()
    task.device = _training_device(task, world)
    torch.manual_seed(ctx.seed)  # the same initial weights on every process
    policy = task.policy().to(task.device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=c.lr)
    held_out = data.validation(task.validation_size, c.validation_share, ctx.seed)
    run = _Run(policy)
    if ctx.resume:
        run.restore(load_state(ctx.out), task, data, policy, optimizer, ctx.out)
        _check_budget_left(run, ctx, c.iterations)
    model: nn.Module = nn.parallel.DistributedDataParallel(policy) if world > 1 else policy
    validation_batch = task.collate([task.prepare(p) for p in held_out]) if rank == 0 else None
    prepared: dict[int, Any] = {}  # a fixed set's instances, prepared once

    def prepare(problem: Any) -> Any:
        if data.fresh:
            return task.prepare(problem)
        if id(problem) not in prepared:
            prepared[id(problem)] = task.prepare(problem)
        return prepared[id(problem)]

    started = time.perf_counter()
    clock = lambda: run.offset + time.perf_counter() - started  # noqa: E731
    budget = ctx.time_limit
    progress = Progress(
        run.iteration, clock(), budget, c.tau_start, math.nan, math.nan, None, run.best, run.best_iteration, run.history
    )
    step_seconds = 0.0  # a step's recent length (running mean): the next one starts only if one that long fits
    interrupted = False
    while True:
        elapsed = clock()
        done = (budget is not None and elapsed + step_seconds >= budget) or (c.iterations and run.iteration >= c.iterations)
        interrupted = interrupted or (ctx.stop is not None and ctx.stop())
        done = bool(done or interrupted)
        if world > 1:  # every process stops at the same iteration: rank 0 decides
            flag = torch.tensor([1.0 if done else 0.0])
            dist.broadcast(flag, 0)
            done = bool(flag.item())
        if rank == 0 and (done or elapsed - run.last_validation >= c.validate_every):
            policy.eval()
            result = task.validate(policy, validation_batch)
            policy.train()
            run.last_validation = clock()
            if _better(task.sense, result, run.best):
                run.best, run.best_iteration, run.best_seconds = result, run.iteration, run.last_validation
                run.best_state = {k: v.clone() for k, v in policy.state_dict().items()}
                if ctx.out is not None:
                    save_model(ctx.out, task, policy, _meta(task, data, run, ctx, world))
            run.history.append(
                {
                    "iteration": run.iteration,
                    "seconds": run.last_validation,
                    "objective": result.objective,
                    "energy": result.energy,
                }
            )
            if ctx.out is not None:
                save_state(ctx.out, run.state(task, data, policy, optimizer, clock()))
            progress.validation, progress.best, progress.best_iteration = result, run.best, run.best_iteration
            progress.history, progress.elapsed = run.history, run.last_validation
            if ctx.on_progress is not None and not done:
                ctx.on_progress(progress)
        if done:
            break
        fraction = max(elapsed / budget if budget else 0.0, run.iteration / c.iterations if c.iterations else 0.0)
        tau = c.tau_start + (c.tau_end - c.tau_start) * min(fraction, 1.0)
        rng = np.random.default_rng([ctx.seed, rank, run.iteration])
        stepped = time.perf_counter()
        batch = task.collate([prepare(p) for p in data.draw(run.iteration, rank, world, task.batch_size, rng)])
        loss, energy = task.step(model, policy, optimizer, batch, tau, rng)
        last = time.perf_counter() - stepped
        step_seconds = last if not step_seconds else 0.5 * (step_seconds + last)
        run.iteration += 1
        progress = Progress(run.iteration, clock(), budget, tau, loss, energy, None, run.best, run.best_iteration, run.history)
        if ctx.on_progress is not None:
            ctx.on_progress(progress)
    policy.load_state_dict(run.best_state)
    policy.to("cpu").eval()  # solving runs on the CPU
    progress.iteration, progress.elapsed, progress.finished = run.iteration, clock(), True
    progress.note = _note(run, progress.elapsed, c.validate_every, interrupted, budget, step_seconds) if rank == 0 else ""
    progress.interrupted = interrupted
    if ctx.on_progress is not None and rank == 0:
        ctx.on_progress(progress)
    return policy, progress, _meta(task, data, run, ctx, world) if run.best is not None else {}
