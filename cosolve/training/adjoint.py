"""Combinatorial Adjoint Matching (Feng et al., ICML 2026): the label-free training step of the
flip policies of ``cam`` (graphs) and ``glns`` (set cover).

A method supplies an :class:`AdjointTask` (its policy network, how instances become a batch, where
chains start, the energy); :func:`cosolve.training.loop.train` runs the loop, and each iteration is:

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

Validation, checkpoints, resuming and distributed training are the loop's
(:mod:`cosolve.training.loop`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.diffusion.inference import logit_rule
from cosolve.diffusion.sampler import FlipRule, rollout, times
from cosolve.errors import UsageError
from cosolve.training.loop import TrainingTask


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


class AdjointTask(TrainingTask):
    """A :class:`~cosolve.training.loop.TrainingTask` trained by adjoint matching: its ``config`` is
    an :class:`~cosolve.training.hyperparameters.AdjointConfig`; it says where chains start, the flip logits
    and the energy, and :meth:`step` is the adjoint matching iteration."""

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

    def rule(self, policy: nn.Module, batch: Any) -> FlipRule:
        """The flip rule ``p = sigmoid(logits)`` of ``policy`` (no gradient)."""
        return logit_rule(lambda x, t: self.logits(policy, batch, x, t))

    def step(
        self, model: nn.Module, policy: nn.Module, optimizer: Any, batch: Any, tau: float, rng: np.random.Generator
    ) -> tuple[float, float]:
        """One iteration: rollout, adjoint targets, regression on a few snapshots (module doc,
        steps 1-3); ``tau`` is the entropy weight. Returns the loss and the mean terminal energy."""
        c = self.config
        start, start_time = self.start(batch, rng)
        policy.eval()
        run = rollout(self.rule(policy, batch), start, c.steps, rng, record=True, start_time=start_time)
        policy.train()
        targets = adjoint_targets(run.states, run.final, lambda x: self.gradient(batch, x), c.clips)
        if c.compare:
            scores, owner = self.chain_scores(batch, run.final)
            targets += c.compare * comparative_targets(run.states, run.final, chain_advantages(scores)[:, owner])
        chosen = rng.choice(c.steps, size=min(c.snapshots, c.steps), replace=False)
        step_times = times(c.steps, start_time)
        optimizer.zero_grad()
        total = 0.0
        for s in chosen:
            logits = self.logits(model, batch, run.states[s], float(step_times[s]))
            target = torch.from_numpy(targets[s].T.astype(np.float32)).to(logits.device)
            loss = matching_loss(logits, target, tau) / len(chosen)
            loss.backward()
            total += loss.item()
        nn.utils.clip_grad_norm_(model.parameters(), c.grad_clip)
        optimizer.step()
        return total, self.energy(batch, run.final)
