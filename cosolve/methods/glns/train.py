"""Label-free training of GLNS's set cover flip policy by Combinatorial Adjoint Matching.

The training distribution (:func:`training_instance`) is Balas–Ho style random set cover with
50..200 rows, 5..10 columns per row, density 2..5% and three cost regimes (unicost, 1..10,
1..100). Each instance comes with what GLNS gives the policy at run time: an incumbent (greedy +
swap local search) and Lagrangian reduced costs; costs and reduced costs are divided by the
largest cost. One iteration (as :mod:`cosolve.diffusion.cam`, on the set cover energy
``sum c_j x_j + B * #uncovered rows``):

1. K chains start at the incumbent with a share ``noise ~ U(noise_min, noise_max)`` of bits
   redrawn, and run T tau-leaping steps from time ``noise`` to 0 with the current policy;
2. the adjoint target of column j at snapshot t is ``(2 x_{t,j} - 1) dE/dx_j`` at the terminal state;
3. the loss ``mean[-p a + tau negentropy(p)]`` on a few snapshots, ``tau`` annealed to ``tau_end``.

Validation runs the policy from the incumbent with noise ``validation_noise`` on fixed held-out
instances, completes each chain's final state to a cover (greedy, redundancy removal) and scores
the mean over instances of ``best chain's cost / incumbent cost`` (lower is better).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn

from cosolve.diffusion.cam import Progress, Validation, adjoint_targets, matching_loss
from cosolve.diffusion.checkpoint_files import load_weights, read_checkpoint, write_checkpoint
from cosolve.diffusion.energies import CoverEnergy
from cosolve.diffusion.sampler import rollout, times
from cosolve.errors import InputError
from cosolve.generators.distributions import TRAINING_SEED, VALIDATION_SEED
from cosolve.methods.glns.instability import COVER_PENALTY, partial_noise
from cosolve.methods.glns.model import CoverPolicy, CoverTensors, state_cover
from cosolve.problems.setcover import SetCover

CHECKPOINT_FORMAT = "cosolve-glns/1"
COST_REGIMES = ((1, 1), (1, 10), (1, 100))


@dataclass
class GLNSConfig:
    """Hyperparameters of the set cover policy and of its training (stored in every checkpoint)."""

    hidden: int = 16
    layers: int = 2
    time_features: int = 8
    initial_flip: float = 0.05
    steps: int = 8
    chains: int = 4
    instances: int = 4  # instances per training batch
    snapshots: int = 4
    clips: int = 1
    penalty: float = COVER_PENALTY
    noise_min: float = 0.2
    noise_max: float = 1.0
    lr: float = 1e-3
    tau_start: float = 0.1
    tau_end: float = 0.0
    grad_clip: float = 1.0
    validation_instances: int = 16
    validation_noise: float = 0.3
    validate_every: float = 60.0

    def policy(self) -> CoverPolicy:
        return CoverPolicy(
            hidden=self.hidden, layers=self.layers, time_features=self.time_features, initial_flip=self.initial_flip
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GLNSConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown GLNS settings: {', '.join(sorted(unknown))}; valid: {', '.join(sorted(known))}")
        return cls(**data)


def training_instance(seed: int) -> SetCover:
    """A random Balas–Ho style set cover drawn from ``seed`` (sizes, density and costs too)."""
    from cosolve.generators.setcover import random_setcover

    rng = np.random.default_rng([seed, 7])
    rows = int(rng.integers(50, 201))
    cols = rows * int(rng.integers(5, 11))
    density = float(rng.uniform(0.02, 0.05))
    low, high = COST_REGIMES[int(rng.integers(len(COST_REGIMES)))]
    nnz = max(round(density * rows * cols), cols + 2 * rows)  # every column used, every row covered twice
    return random_setcover(rows, cols, nnz=nnz, cost_range=(low, high), seed=seed, name=f"balas-ho-{seed}")


@dataclass
class Prepared:
    """An instance with its incumbent, scaled costs and reduced costs (as GLNS sees a region)."""

    problem: SetCover
    incumbent: np.ndarray
    costs: np.ndarray
    reduced: np.ndarray

    @classmethod
    def of(cls, problem: SetCover) -> Prepared:
        from cosolve.heuristics.lagrangian import lagrangian_bound
        from cosolve.heuristics.setcover import greedy_set_cover
        from cosolve.heuristics.setcover_local import swap_local_search

        costs, csr, csc = problem.costs, problem.matrix, problem.csc
        x = swap_local_search(costs, csr, csc, greedy_set_cover(costs, csr, csc))
        lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=300)
        scale = max(float(costs.max()), 1e-12)
        return cls(problem, x, costs / scale, lag.reduced / scale)


@dataclass
class CoverBatch:
    """Prepared instances as one block-diagonal set cover: energy, policy tensors and offsets."""

    parts: list[Prepared]
    energy: CoverEnergy
    tensors: CoverTensors
    offsets: np.ndarray

    @classmethod
    def of(cls, parts: list[Prepared], penalty: float) -> CoverBatch:
        matrix = sp.csr_array(sp.block_diag([p.problem.matrix for p in parts], "csr"), dtype=np.float64)
        costs = np.concatenate([p.costs for p in parts])
        reduced = np.concatenate([p.reduced for p in parts])
        incumbent = np.concatenate([p.incumbent for p in parts])
        offsets = np.r_[0, np.cumsum([p.problem.n_cols for p in parts])]
        return cls(
            parts, CoverEnergy(matrix, costs, penalty=penalty), CoverTensors.build(matrix, costs, reduced, incumbent), offsets
        )

    @property
    def incumbent(self) -> np.ndarray:
        return self.tensors.incumbent.astype(np.int8)


def policy_rule(policy: CoverPolicy, energy: CoverEnergy, tensors: CoverTensors):  # -> FlipRule
    """The flip rule ``p = sigmoid(f_theta(x_t, t))`` of a set cover policy (no gradient)."""

    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        gain = energy.flip_gain(x)
        with torch.no_grad():
            logits = policy(
                torch.from_numpy(x.T.astype(np.float32)),
                torch.from_numpy(gain.T.astype(np.float32)),
                torch.from_numpy(state_cover(tensors, x)),
                t,
                tensors,
            )
        return torch.sigmoid(logits).numpy().T.astype(np.float64)

    return rule


def cover_loss(policy: nn.Module, batch: CoverBatch, x: np.ndarray, target: np.ndarray, t: float, tau: float) -> torch.Tensor:
    """CAM's loss ``mean[-p a + tau negentropy(p)]`` of one snapshot; x and target (K, N)."""
    gain = batch.energy.flip_gain(x)
    logits = policy(
        torch.from_numpy(x.T.astype(np.float32)),
        torch.from_numpy(gain.T.astype(np.float32)),
        torch.from_numpy(state_cover(batch.tensors, x)),
        t,
        batch.tensors,
    )
    return matching_loss(logits, torch.from_numpy(target.T.astype(np.float32)), tau)


def complete_cover(problem: SetCover, x: np.ndarray) -> np.ndarray:
    """A minimal cover from the 0/1 state ``x`` (n,): greedy completion, then redundancy removal."""
    from cosolve.heuristics.setcover import chvatal_greedy, remove_redundant

    y = chvatal_greedy(problem.costs, problem.matrix, problem.csc, start=x)
    return remove_redundant(problem.costs, problem.csc, y)


def validate(policy: CoverPolicy, batch: CoverBatch, config: GLNSConfig, seed: int = 0) -> Validation:
    """Mean over the batch's instances of the best completed chain's cost over the incumbent's."""
    rng = np.random.default_rng(seed)
    noise = config.validation_noise
    start = partial_noise(batch.incumbent, config.chains, noise, rng)
    out = rollout(policy_rule(policy, batch.energy, batch.tensors), start, config.steps, rng, start_time=noise)
    ratios = []
    for b, part in enumerate(batch.parts):
        lo, hi = batch.offsets[b], batch.offsets[b + 1]
        base = float(part.problem.costs @ part.incumbent)
        best = min(float(part.problem.costs @ complete_cover(part.problem, out.final[k, lo:hi])) for k in range(config.chains))
        ratios.append(best / base)
    return Validation(objective=float(np.mean(ratios)), energy=float(batch.energy.energy(out.final).mean()))


def train(
    config: GLNSConfig,
    *,
    time_limit: float,
    out: str | Path | None = None,
    seed: int = 0,
    max_iterations: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    command: str = "",
    stop: Callable[[], bool] | None = None,
) -> tuple[CoverPolicy, Progress]:
    """Train for ``time_limit`` seconds (or ``max_iterations``); keep the best validated policy in
    ``out/model.pt`` with its model card. Returns the best policy and the last progress."""
    torch.manual_seed(seed)
    policy = config.policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.lr)
    rng = np.random.default_rng([seed, 11])
    held_out = CoverBatch.of(
        [Prepared.of(training_instance(VALIDATION_SEED + i)) for i in range(config.validation_instances)], config.penalty
    )
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
        if done or elapsed - last_validation >= config.validate_every:
            policy.eval()
            result = validate(policy, held_out, config)
            policy.train()
            last_validation = time.perf_counter() - start
            if best is None or (result.objective, result.energy) < (best.objective, best.energy):
                best = result
                best_state = {k: v.clone() for k, v in policy.state_dict().items()}
                if out is not None:
                    meta = {
                        "validation_ratio": best.objective, "validation_energy": best.energy,
                        "trained_seconds": round(last_validation, 1), "iterations": iteration, "seed": seed,
                        "threads": torch.get_num_threads(), "command": command, "torch": str(torch.__version__),
                    }  # fmt: skip
                    save_checkpoint(Path(out), policy, config, meta)
            history.append(
                {"iteration": iteration, "seconds": last_validation, "objective": result.objective, "energy": result.energy}
            )
            if progress is not None:
                progress.validation, progress.best, progress.history, progress.elapsed = result, best, history, last_validation
                if on_progress is not None:
                    on_progress(progress)
        if done:
            break
        tau = config.tau_start + (config.tau_end - config.tau_start) * min(elapsed / time_limit, 1.0)
        seeds = TRAINING_SEED + iteration * config.instances + np.arange(config.instances)
        batch = CoverBatch.of([Prepared.of(training_instance(int(s))) for s in seeds], config.penalty)
        loss, energy = _step(policy, optimizer, batch, config, tau, rng)
        iteration += 1
        progress = Progress(iteration, time.perf_counter() - start, time_limit, tau, loss, energy, None, best, history)
        if on_progress is not None:
            on_progress(progress)
    policy.load_state_dict(best_state)
    final = progress or Progress(iteration, time.perf_counter() - start, time_limit, config.tau_start, math.nan, math.nan)
    final.best, final.history = best, history
    return policy, final


def _step(
    policy: CoverPolicy,
    optimizer: torch.optim.Optimizer,
    batch: CoverBatch,
    config: GLNSConfig,
    tau: float,
    rng: np.random.Generator,
) -> tuple[float, float]:
    noise = float(rng.uniform(config.noise_min, config.noise_max))
    start = partial_noise(batch.incumbent, config.chains, noise, rng)
    policy.eval()
    run = rollout(policy_rule(policy, batch.energy, batch.tensors), start, config.steps, rng, record=True, start_time=noise)
    policy.train()
    targets = adjoint_targets(run.states, run.final, batch.energy.grad, config.clips)
    chosen = rng.choice(config.steps, size=min(config.snapshots, config.steps), replace=False)
    step_times = times(config.steps, noise)
    optimizer.zero_grad()
    total = 0.0
    for s in chosen:
        loss = cover_loss(policy, batch, run.states[s], targets[s], float(step_times[s]), tau) / len(chosen)
        loss.backward()
        total += loss.item()
    nn.utils.clip_grad_norm_(policy.parameters(), config.grad_clip)
    optimizer.step()
    return total, float(batch.energy.energy(run.final).mean())


def save_checkpoint(folder: Path, policy: CoverPolicy, config: GLNSConfig, meta: dict[str, Any]) -> None:
    """Write ``folder/model.pt`` (weights, config, meta) and the model card ``folder/README.md``."""
    write_checkpoint(folder, CHECKPOINT_FORMAT, asdict(config), meta, policy.state_dict(), model_card(config, meta, policy))


def load_checkpoint(path: str | Path) -> tuple[CoverPolicy, GLNSConfig, dict[str, Any]]:
    """Policy (eval mode), config and meta of a GLNS checkpoint file, or of ``path/model.pt``."""
    path, payload = read_checkpoint(path, CHECKPOINT_FORMAT, "GLNS")
    config = GLNSConfig.from_dict(payload["config"])
    policy = config.policy()
    load_weights(policy, payload, path)
    return policy, config, payload.get("meta", {})


def model_card(config: GLNSConfig, meta: dict[str, Any], policy: CoverPolicy) -> str:
    parameters = sum(p.numel() for p in policy.parameters())
    settings = "\n".join(f"| {k} | {v} |" for k, v in asdict(config).items())
    return f"""# GLNS checkpoint: set cover flip policy

A bipartite (rows x columns) message-passing GNN ({parameters} parameters) trained without labels by
Combinatorial Adjoint Matching on the set cover energy, used by the `glns` method to find where a
denoising trajectory around the incumbent is unstable (`cosolve.methods.glns`). Use it with
`cosolve solve INSTANCE --method glns` (the default) or `--set checkpoint=PATH`.

- training distribution: Balas–Ho style random set cover (`cosolve.methods.glns.train.training_instance`):
  50..200 rows, 5..10 columns per row, density 2..5%, costs unicost, 1..10 or 1..100; instances drawn
  with seeds from {TRAINING_SEED} (training) and {VALIDATION_SEED} (validation)
- validation ({config.validation_instances} instances, {config.chains} chains, {config.steps} steps from the incumbent
  with {config.validation_noise:g} of its bits redrawn): best completed chain's cost over the incumbent's,
  mean **{meta.get("validation_ratio", float("nan")):.4f}** (below 1: the sampler finds cheaper covers)
- training: {meta.get("trained_seconds")} s wall-clock until this checkpoint, {meta.get("iterations")} iterations,
  {meta.get("threads")} thread(s), seed {meta.get("seed")}, torch {meta.get("torch")}
- command: `{meta.get("command") or "(Python API)"}`

## Hyperparameters

| setting | value |
|---|---|
{settings}
"""
