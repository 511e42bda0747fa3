"""Combinatorial Adjoint Matching (Feng et al., ICML 2026): the one label-free trainer of the
flip policies of ``cam`` (graphs) and ``glns`` (set cover).

A method supplies an :class:`AdjointTask` (its policy network, how instances become a batch, where
chains start, the energy); :func:`train` runs the loop, the same for every task:

1. **rollout**: K chains run T tau-leaping steps with the current policy, without gradient, from
   the task's start states (uniform noise at time 1 for CAM; the incumbent with part of its bits
   redrawn, at a time below 1, for GLNS), recording every state ``x_t``;
2. **adjoint targets**: at the terminal state ``x_T`` (or, with ``clips = C``, at the last state of
   each of C equal segments of the path) take the energy gradient ``g = dE/dx``; the target of
   node i at snapshot t is ``a_{t,i} = (2 x_{t,i} - 1) g_i``, positive when flipping i moves it
   toward lower terminal energy; with ``compare`` > 0, plus ``compare`` times the comparative
   target of :func:`comparative_targets` (the chains ranked by the task's ``chain_scores``);
3. **regression**: on a random minibatch of ``snapshots`` of the T steps, minimise
   ``mean[-p a + tau (p log p + (1 - p) log(1 - p))]`` with ``p = sigmoid(f_theta(x_t, t))``, whose
   per-node optimum is ``p = sigmoid(a / tau)``; ``tau`` falls linearly from ``tau_start`` to
   ``tau_end`` over the budget (time or iterations);
4. **validation** every ``validate_every`` seconds (and at the start and the end) on held-out
   instances; the best model is kept, written as a **checkpoint** with its model card, and the
   resumable training state beside it.

Under ``torchrun`` (torch.distributed initialised) each process draws its own instances, gradients
are averaged by DistributedDataParallel (gloo on CPU) and only rank 0 validates and writes.
Every iteration draws its random numbers from a generator seeded by (seed, rank, iteration), so a
resumed run continues exactly where the saved one would have.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.core.method import FitContext
from cosolve.core.result import Sense
from cosolve.diffusion.inference import logit_rule
from cosolve.diffusion.sampler import FlipRule, rollout, times
from cosolve.errors import UsageError
from cosolve.training.checkpoint import load_state, model_card, save_state, write_checkpoint
from cosolve.training.config import AdjointConfig
from cosolve.training.data import TrainingData
from cosolve.training.progress import Progress, Validation


def adjoint_targets(
    states: list[np.ndarray], final: np.ndarray, gradient: Callable[[np.ndarray], np.ndarray], clips: int
) -> np.ndarray:
    """Targets ``a`` (T, K, N) for the recorded states (T of them, each (K, N)), the final state
    (K, N) and the energy gradient. Step t belongs to segment ``c = floor(t C / T)``; its
    terminal point is the state after the segment's last step (``final`` for the last one)."""
    steps = len(states)
    clips = max(1, min(int(clips), steps))
    ends = [((c + 1) * steps) // clips for c in range(clips)]  # index of the terminal state
    targets = np.empty((steps, *final.shape))
    for c in range(clips):
        first = (c * steps) // clips
        terminal = final if ends[c] == steps else states[ends[c]]
        g = gradient(terminal)
        for t in range(first, ends[c]):
            targets[t] = (2.0 * states[t] - 1.0) * g
    return targets


def comparative_targets(states: list[np.ndarray], final: np.ndarray, advantage: np.ndarray) -> np.ndarray:
    """Targets (T, K, N) that favour the paths of the better chains: ``advantage`` (K, N) (each
    node's chain's standardised advantage over the other chains on its instance) times +1 where
    flipping node i at step t moves it toward its final value, -1 where it moves it away. Added to
    the adjoint targets with weight ``compare``, they push the policy toward what the better
    chains did and away from what the worse ones did, which the terminal gradient alone cannot
    (every maximal independent set is a local minimum of the energy)."""
    return np.stack([advantage * np.where(x != final, 1.0, -1.0) for x in states])


def chain_advantages(scores: np.ndarray) -> np.ndarray:
    """Standardised advantages (K, B) of chain scores (K, B) (higher is better) within each
    instance b: ``(s - mean) / (std + 1e-9)`` over the K chains; 0 where every chain scored alike."""
    centred = scores - scores.mean(axis=0, keepdims=True)
    return centred / (scores.std(axis=0, keepdims=True) + 1e-9)


def matching_loss(logits: torch.Tensor, target: torch.Tensor, tau: float) -> torch.Tensor:
    """``mean[-p a + tau (p log p + (1 - p) log(1 - p))]`` with ``p = sigmoid(logits)`` and targets
    ``a`` of the same shape; its per-entry optimum is ``p = sigmoid(a / tau)``."""
    p = torch.sigmoid(logits)
    negentropy = p * nn.functional.logsigmoid(logits) + (1 - p) * nn.functional.logsigmoid(-logits)
    return (-p * target + tau * negentropy).mean()


class AdjointTask(ABC):
    """What a method trained by adjoint matching supplies to :func:`train`.

    ``config`` is the method's :class:`~cosolve.training.config.AdjointConfig` (stored in every
    checkpoint, with its format tag and the fields of the batch and validation sizes); the loop
    reads its shared settings. ``sense`` orders validation objectives (ties go to lower energy).
    """

    sense: Sense = Sense.MINIMIZE

    def __init__(self, config: AdjointConfig) -> None:
        self.config = config

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
        """A freshly initialised policy network."""
        return self.config.policy()

    def prepare(self, problem: Any) -> Any:
        """What the task keeps of one instance (done once per instance of a fixed set)."""
        return problem

    @abstractmethod
    def collate(self, items: list[Any]) -> Any:
        """Prepared instances as one batch (a disjoint union)."""

    @abstractmethod
    def start(self, batch: Any, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Start states (K, N) int8 of a training rollout and its start time in (0, 1]."""

    @abstractmethod
    def logits(self, model: nn.Module, batch: Any, x: np.ndarray, t: float) -> torch.Tensor:
        """Flip logits (N, K) of ``model`` at states ``x`` (K, N) and time ``t``."""

    @abstractmethod
    def gradient(self, batch: Any, x: np.ndarray) -> np.ndarray:
        """The energy gradient ``dE/dx`` (K, N) at states ``x``."""

    @abstractmethod
    def energy(self, batch: Any, x: np.ndarray) -> float:
        """The mean energy of states ``x`` (K, N), reported as the training energy."""

    def chain_scores(self, batch: Any, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores (K, B) of each chain's final state on each instance of the batch, higher
        better, and the instance of each node (N,): what ``compare`` > 0 ranks chains by."""
        raise UsageError(f"{type(self).__name__} cannot compare chains; train with compare=0")

    @abstractmethod
    def validate(self, policy: nn.Module, batch: Any) -> Validation:
        """The policy's score on the held-out batch (seeded: the same policy scores the same)."""

    @abstractmethod
    def card(self) -> tuple[str, str, str]:
        """The model card's title, its paragraph about the model, and what validation measures."""

    def rule(self, policy: nn.Module, batch: Any) -> FlipRule:
        """The flip rule ``p = sigmoid(logits)`` of ``policy`` (no gradient)."""
        return logit_rule(lambda x, t: self.logits(policy, batch, x, t))


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


def _step(
    task: AdjointTask, model: nn.Module, policy: nn.Module, optimizer: Any, batch: Any, tau: float, rng: Any
) -> tuple[float, float]:
    """One iteration: rollout, adjoint targets, regression on a few snapshots. Returns the loss
    and the mean terminal energy."""
    c = task.config
    start, start_time = task.start(batch, rng)
    policy.eval()
    run = rollout(task.rule(policy, batch), start, c.steps, rng, record=True, start_time=start_time)
    policy.train()
    targets = adjoint_targets(run.states, run.final, lambda x: task.gradient(batch, x), c.clips)
    if c.compare:
        scores, owner = task.chain_scores(batch, run.final)
        targets += c.compare * comparative_targets(run.states, run.final, chain_advantages(scores)[:, owner])
    chosen = rng.choice(c.steps, size=min(c.snapshots, c.steps), replace=False)
    step_times = times(c.steps, start_time)
    optimizer.zero_grad()
    total = 0.0
    for s in chosen:
        logits = task.logits(model, batch, run.states[s], float(step_times[s]))
        loss = matching_loss(logits, torch.from_numpy(targets[s].T.astype(np.float32)), tau) / len(chosen)
        loss.backward()
        total += loss.item()
    nn.utils.clip_grad_norm_(model.parameters(), c.grad_clip)
    optimizer.step()
    return total, task.energy(batch, run.final)


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

    def state(self, task: AdjointTask, data: TrainingData, policy: nn.Module, optimizer: Any, elapsed: float) -> dict:
        return {
            "format": task.checkpoint_format, "config": asdict(task.config), "data": data.describe(),
            "iteration": self.iteration, "elapsed": elapsed, "last_validation": self.last_validation,
            "best": None if self.best is None else asdict(self.best), "best_iteration": self.best_iteration,
            "best_seconds": self.best_seconds,
            "best_state": self.best_state, "history": self.history,
            "policy": policy.state_dict(), "optimizer": optimizer.state_dict(),
        }  # fmt: skip

    def restore(self, saved: dict, task: AdjointTask, data: TrainingData, policy: nn.Module, optimizer: Any, where: Any) -> None:
        if saved.get("format") != task.checkpoint_format:
            raise UsageError(f"{where}: the saved run trained another kind of model; start without resume")
        config = asdict(task.config)
        before = asdict(type(task.config).from_dict(saved["config"]))  # settings added since: their defaults
        changed = sorted(k for k in config if before.get(k) != config[k])
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


def _meta(task: AdjointTask, data: TrainingData, run: _Run, ctx: FitContext, world: int) -> dict[str, Any]:
    """What the best model's checkpoint records."""
    assert run.best is not None
    return {
        "validation_objective": run.best.objective, "validation_energy": run.best.energy, "validation": task.card()[2],
        "trained_seconds": round(run.best_seconds, 1), "iterations": run.best_iteration, "seed": ctx.seed, "processes": world,
        "threads": torch.get_num_threads(), "command": ctx.command, "torch": str(torch.__version__), "data": data.describe(),
    }  # fmt: skip


def save_model(folder: Any, task: AdjointTask, policy: nn.Module, meta: dict[str, Any]) -> None:
    """Write ``folder/model.pt`` and its model card for ``policy`` trained by ``task``."""
    title, about, _ = task.card()
    parameters = sum(p.numel() for p in policy.parameters())
    config = asdict(task.config)
    card = model_card(title, about, config, meta, parameters)
    write_checkpoint(folder, task.checkpoint_format, config, meta, policy.state_dict(), card)


def _note(run: _Run, elapsed: float, validate_every: float) -> str:
    if run.iteration == 0:
        return "no training step fitted in the budget: the model is the untrained one"
    if run.best_iteration == 0:
        shorter = (
            " (the run was shorter than validate_every, so it was validated only at its start and end)"
            if (elapsed < validate_every)
            else ""
        )
        return (
            f"no validation after {run.iteration} iterations ({elapsed:.0f} s) beat the untrained model, so the untrained "
            f"weights are kept{shorter}; train longer or change the settings"
        )
    return ""


def train(task: AdjointTask, data: TrainingData, ctx: FitContext) -> tuple[nn.Module, Progress, dict[str, Any]]:
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
    torch.manual_seed(ctx.seed)  # the same initial weights on every process
    policy = task.policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=c.lr)
    held_out = data.validation(task.validation_size, c.validation_share, ctx.seed)
    run = _Run(policy)
    if ctx.resume:
        run.restore(load_state(ctx.out), task, data, policy, optimizer, ctx.out)
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
    while True:
        elapsed = clock()
        done = (budget is not None and elapsed >= budget) or (c.iterations and run.iteration >= c.iterations)
        done = bool(done or (ctx.stop is not None and ctx.stop()))
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
        batch = task.collate([prepare(p) for p in data.draw(run.iteration, rank, world, task.batch_size, rng)])
        loss, energy = _step(task, model, policy, optimizer, batch, tau, rng)
        run.iteration += 1
        progress = Progress(run.iteration, clock(), budget, tau, loss, energy, None, run.best, run.best_iteration, run.history)
        if ctx.on_progress is not None:
            ctx.on_progress(progress)
    policy.load_state_dict(run.best_state)
    policy.eval()
    progress.iteration, progress.elapsed, progress.finished = run.iteration, clock(), True
    progress.note = _note(run, progress.elapsed, c.validate_every) if rank == 0 else ""
    if ctx.on_progress is not None and rank == 0:
        ctx.on_progress(progress)
    return policy, progress, _meta(task, data, run, ctx, world) if run.best is not None else {}
