"""Combinatorial Adjoint Matching (Feng et al., ICML 2026): label-free training of a flip policy.

One training iteration, on a batch of fresh graphs from the training distribution:

1. roll out K chains for T tau-leaping steps from uniform noise with the current policy,
   without gradient, recording every state ``x_t``;
2. at the terminal state ``x_T`` (or, with ``clips = C``, at the last state of each of C equal
   segments of the path) take the energy gradient ``g = dE/dx``;
3. the discrete adjoint target of node i at snapshot t is ``a_{t,i} = (2 x_{t,i} - 1) g_i``, g from
   the end of t's segment: positive when flipping i moves it toward lower terminal energy;
4. on a random minibatch of ``snapshots`` of the T steps, minimise
   ``mean[-p_i a_{t,i} + tau * (p_i log p_i + (1 - p_i) log(1 - p_i))]`` with
   ``p = sigmoid(f_theta(G, x_t, t))``; its per-node optimum is ``p = sigmoid(a / tau)``.
   ``tau`` falls linearly from ``tau_start`` to ``tau_end`` over the training budget.

Validation samples fixed held-out graphs with the current policy, decodes, and the best
checkpoint (by mean decoded objective) is kept. With ``torchrun`` each process draws its own
graphs and gradients are averaged by DistributedDataParallel (gloo on CPU).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.checkpoint_files import load_weights, read_checkpoint, write_checkpoint
from cosolve.diffusion.inference import decode_best, policy_rule, sample
from cosolve.diffusion.policy import FlipPolicy, GraphTensors
from cosolve.diffusion.sampler import rollout, times, uniform_start
from cosolve.errors import InputError
from cosolve.generators.distributions import TRAINING_SEED, VALIDATION_SEED, sample_graph
from cosolve.problems.graphs import GRAPH_PROBLEMS

CHECKPOINT_FORMAT = "cosolve-cam/1"


@dataclass
class CAMConfig:
    """Hyperparameters of the policy and of its training (stored in every checkpoint)."""

    problem: str = "mis"
    distribution: str = "rb-small"
    hidden: int = 32
    layers: int = 3
    time_features: int = 8
    initial_flip: float = 0.1  # flip probability of the untrained policy
    steps: int = 16  # T, tau-leaping steps per rollout
    chains: int = 8  # K, chains per graph in training rollouts
    graphs: int = 8  # graphs per training batch (per process)
    snapshots: int = 4  # snapshot steps per iteration that enter the loss
    clips: int = 1  # terminal points along the path (clip-wise adjoints); 1 = the final state only
    penalty: float = 0.0  # constraint penalty of the energy (MIS/MaxClique beta, MDS B); 0 = the default
    lr: float = 1e-3
    tau_start: float = 1.0
    tau_end: float = 0.0
    grad_clip: float = 1.0
    validation_graphs: int = 32
    validation_chains: int = 8
    validate_every: float = 60.0  # seconds of training between validations

    def policy(self) -> FlipPolicy:
        return FlipPolicy(
            hidden=self.hidden, layers=self.layers, time_features=self.time_features, initial_flip=self.initial_flip
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CAMConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown CAM settings: {', '.join(sorted(unknown))}; valid: {', '.join(sorted(known))}")
        return cls(**data)


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


def cam_loss(
    policy: nn.Module, tensors: GraphTensors, batch: GraphBatch, x: np.ndarray, target: np.ndarray, t: float, tau: float
) -> torch.Tensor:
    """The CAM loss of one snapshot: ``mean[-p a + tau negentropy(p)]`` over nodes and chains;
    x and target are (K, N)."""
    gain = batch.energy.flip_gain(x)
    logits = policy(torch.from_numpy(x.T.astype(np.float32)), torch.from_numpy(gain.T.astype(np.float32)), t, tensors)
    return matching_loss(logits, torch.from_numpy(target.T.astype(np.float32)), tau)


def matching_loss(logits: torch.Tensor, target: torch.Tensor, tau: float) -> torch.Tensor:
    """``mean[-p a + tau (p log p + (1 - p) log(1 - p))]`` with ``p = sigmoid(logits)`` and targets
    ``a`` of the same shape; its per-entry optimum is ``p = sigmoid(a / tau)``."""
    p = torch.sigmoid(logits)
    negentropy = p * nn.functional.logsigmoid(logits) + (1 - p) * nn.functional.logsigmoid(-logits)
    return (-p * target + tau * negentropy).mean()


@dataclass
class Validation:
    """Mean decoded objective over the validation graphs and mean terminal energy of the chains."""

    objective: float
    energy: float


def validate(policy: FlipPolicy, graphs: list, config: CAMConfig, seed: int = 0) -> Validation:
    """Sample the validation graphs (one batch) with ``policy`` and decode them."""
    batch = GraphBatch(graphs, penalty=config.penalty or None)
    tensors = GraphTensors.from_coupling(batch.coupling)
    rng = np.random.default_rng(seed)
    out = sample(policy_rule(policy, batch, tensors), batch, config.validation_chains, config.steps, rng)
    energies = batch.graph_energies(out.final)  # (K, B)
    values = [value for _, value in decode_best(batch, out.marginal)]
    return Validation(objective=float(np.mean(values)), energy=float(energies.mean()))


@dataclass
class Progress:
    """What the trainer reports after each iteration (and each validation)."""

    iteration: int
    elapsed: float
    budget: float
    tau: float
    loss: float
    train_energy: float
    validation: Validation | None = None
    best: Validation | None = None
    history: list[dict[str, float]] = field(default_factory=list)


def _better(problem: str, a: Validation, b: Validation | None) -> bool:
    if b is None:
        return True
    if a.objective != b.objective:
        return GRAPH_PROBLEMS[problem].sense.better(a.objective, b.objective)
    return a.energy < b.energy


def _distributed() -> tuple[int, int]:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def train(
    config: CAMConfig,
    *,
    time_limit: float,
    out: str | Path | None = None,
    seed: int = 0,
    max_iterations: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    command: str = "",
    stop: Callable[[], bool] | None = None,
) -> tuple[FlipPolicy, Progress]:
    """Train a policy for ``time_limit`` seconds (or ``max_iterations``); keep the best validated
    checkpoint in ``out/model.pt`` with its model card ``out/README.md``. Returns the best policy.
    Under ``torchrun`` (torch.distributed initialised) only rank 0 validates and writes."""
    import torch.distributed as dist

    rank, world = _distributed()
    torch.manual_seed(seed)  # the same initial weights on every process
    policy = config.policy()
    model: nn.Module = policy
    if world > 1:
        model = nn.parallel.DistributedDataParallel(policy)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    rng = np.random.default_rng([seed, rank])
    validation_graphs = [
        sample_graph(config.distribution, VALIDATION_SEED + i, config.problem) for i in range(config.validation_graphs)
    ]
    start = time.perf_counter()
    best: Validation | None = None
    best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    history: list[dict[str, float]] = []
    last_validation = -math.inf
    iteration, progress = 0, None
    while True:
        elapsed = time.perf_counter() - start
        done = (
            elapsed >= time_limit or (max_iterations is not None and iteration >= max_iterations) or (stop is not None and stop())
        )
        if world > 1:  # every process stops at the same iteration: rank 0 decides
            flag = torch.tensor([1.0 if done else 0.0])
            dist.broadcast(flag, 0)
            done = bool(flag.item())
        validate_now = rank == 0 and (done or elapsed - last_validation >= config.validate_every)
        if validate_now:
            policy.eval()
            result = validate(policy, validation_graphs, config)
            policy.train()
            last_validation = time.perf_counter() - start
            if _better(config.problem, result, best):
                best = result
                best_state = {k: v.clone() for k, v in policy.state_dict().items()}
                if out is not None:
                    save_checkpoint(Path(out), policy, config, _meta(best, last_validation, iteration, seed, world, command))
            history.append(
                {"iteration": iteration, "seconds": last_validation, "objective": result.objective, "energy": result.energy}
            )
            if progress is not None:
                progress.validation, progress.best, progress.history = result, best, history
                progress.elapsed = last_validation
                if on_progress is not None:
                    on_progress(progress)
        if done:
            break
        tau = config.tau_start + (config.tau_end - config.tau_start) * min(elapsed / time_limit, 1.0)
        seeds = TRAINING_SEED + (iteration * world + rank) * config.graphs + np.arange(config.graphs)
        batch = GraphBatch(
            [sample_graph(config.distribution, int(s), config.problem) for s in seeds], penalty=config.penalty or None
        )
        loss, energy = _step(model, policy, optimizer, batch, config, tau, rng)
        iteration += 1
        progress = Progress(iteration, time.perf_counter() - start, time_limit, tau, loss, energy, None, best, history)
        if on_progress is not None:
            on_progress(progress)
    policy.load_state_dict(best_state)
    final = progress or Progress(iteration, time.perf_counter() - start, time_limit, config.tau_start, math.nan, math.nan)
    final.best, final.history = best, history
    return policy, final


def _step(
    model: nn.Module,
    policy: FlipPolicy,
    optimizer: torch.optim.Optimizer,
    batch: GraphBatch,
    config: CAMConfig,
    tau: float,
    rng: np.random.Generator,
) -> tuple[float, float]:
    tensors = GraphTensors.from_coupling(batch.coupling)
    policy.eval()
    run = rollout(policy_rule(policy, batch, tensors), uniform_start(config.chains, batch.n, rng), config.steps, rng, record=True)
    policy.train()
    targets = adjoint_targets(run.states, run.final, batch.energy.grad, config.clips)
    chosen = rng.choice(config.steps, size=min(config.snapshots, config.steps), replace=False)
    step_times = times(config.steps)
    optimizer.zero_grad()
    total = 0.0
    for s in chosen:
        loss = cam_loss(model, tensors, batch, run.states[s], targets[s], float(step_times[s]), tau) / len(chosen)
        loss.backward()
        total += loss.item()
    nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
    optimizer.step()
    return total, float(batch.graph_energies(run.final).mean())


def _meta(best: Validation, seconds: float, iteration: int, seed: int, world: int, command: str) -> dict[str, Any]:
    return {
        "validation_objective": best.objective,
        "validation_energy": best.energy,
        "trained_seconds": round(seconds, 1),
        "iterations": iteration,
        "seed": seed,
        "processes": world,
        "threads": torch.get_num_threads(),
        "command": command,
        "torch": str(torch.__version__),
    }


def save_checkpoint(folder: Path, policy: FlipPolicy, config: CAMConfig, meta: dict[str, Any]) -> None:
    """Write ``folder/model.pt`` (weights, config, meta) and the model card ``folder/README.md``,
    each atomically."""
    write_checkpoint(folder, CHECKPOINT_FORMAT, asdict(config), meta, policy.state_dict(), model_card(config, meta, policy))


def load_checkpoint(path: str | Path) -> tuple[FlipPolicy, CAMConfig, dict[str, Any]]:
    """Policy (eval mode), config and meta of a checkpoint file, or of ``path/model.pt``."""
    path, payload = read_checkpoint(path, CHECKPOINT_FORMAT, "CAM")
    config = CAMConfig.from_dict(payload["config"])
    policy = config.policy()
    load_weights(policy, payload, path)
    return policy, config, payload.get("meta", {})


def model_card(config: CAMConfig, meta: dict[str, Any], policy: FlipPolicy) -> str:
    parameters = sum(p.numel() for p in policy.parameters())
    nan = float("nan")
    settings = "\n".join(f"| {k} | {v} |" for k, v in asdict(config).items())
    return f"""# CAM checkpoint: {config.problem} on {config.distribution}

A discrete-diffusion flip policy (message-passing GNN, {parameters} parameters) trained without
labels by Combinatorial Adjoint Matching (Feng et al., ICML 2026) in cosolve
(`cosolve.diffusion.cam`). Use it with `cosolve solve GRAPH --problem {config.problem} --method cam
--set checkpoint=PATH`, or `Solver("cam", checkpoint=PATH)`.

- problem: **{config.problem}**; training distribution: **{config.distribution}** (`cosolve generate --help`),
  graphs drawn with seeds from {TRAINING_SEED} (training) and {VALIDATION_SEED} (validation), disjoint from the
  test seeds (below {VALIDATION_SEED}) that `cosolve generate` and the benchmark suites use
- validation ({config.validation_graphs} graphs, {config.validation_chains} chains, {config.steps} steps, best decoded chain):
  mean objective **{meta.get("validation_objective", nan):.4f}**, mean terminal energy {meta.get("validation_energy", nan):.4f}
- training: {meta.get("trained_seconds")} s wall-clock until this checkpoint, {meta.get("iterations")} iterations,
  {meta.get("processes", 1)} process(es) x {meta.get("threads")} thread(s), seed {meta.get("seed")}, torch {meta.get("torch")}
- command: `{meta.get("command") or "(Python API)"}`

## Hyperparameters

| setting | value |
|---|---|
{settings}

Intended use: graphs like the training distribution. On other graphs it still returns feasible
solutions (decoding guarantees feasibility) but quality is not measured.
"""
