"""Reverse-time sampling of the flip-rate CTMC on {0,1}^N by tau-leaping, over K parallel chains.

A step at time t (from 1 down to 1/T) flips every node i of every chain independently with
probability ``p_i = rule(x_t, t)``. The rule is a learned policy (CAM) or the regularised
energy-gradient rule of RLSA (:func:`rlsa_rule`). States are (K, N) int8 arrays, as in
:mod:`cosolve.diffusion.energies`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: ``rule(x, t, step) -> p``: x (K, N) int8 state, t in (0, 1], step index; p (K, N) in [0, 1].
FlipRule = Callable[[np.ndarray, float, int], np.ndarray]


@dataclass
class Rollout:
    """``final`` (K, N) int8 last state; ``marginal`` (K, N) the probability of each node being 1
    after the last step taken; ``states`` the state before each step (when recorded); ``steps``
    the number of steps taken (fewer than asked when stopped)."""

    final: np.ndarray
    marginal: np.ndarray
    steps: int
    states: list[np.ndarray] = field(default_factory=list)


def uniform_start(chains: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """K x N states with independent fair coin bits (the CTMC's stationary noise)."""
    return rng.integers(0, 2, (chains, n), dtype=np.int8)


def times(steps: int, start: float = 1.0) -> np.ndarray:
    """The step times ``start * (1, 1 - 1/T, ..., 1/T)``."""
    return start * (1.0 - np.arange(steps) / steps)


def rollout(
    rule: FlipRule,
    start: np.ndarray,
    steps: int,
    rng: np.random.Generator,
    *,
    record: bool = False,
    stop: Callable[[], bool] | None = None,
    on_step: Callable[[np.ndarray], None] | None = None,
    start_time: float = 1.0,
) -> Rollout:
    """Run ``steps`` tau-leaping steps from ``start`` (K, N), from time ``start_time`` (1 = pure
    noise; less for a partially noised start) down to 0. ``stop`` is checked before every step
    (stopped before the first, the rollout returns the start state); ``on_step(x)`` sees each new
    state."""
    x = np.array(start, dtype=np.int8, copy=True)
    marginal = x.astype(np.float64)
    states, taken = [], 0
    for step, t in enumerate(times(steps, start_time)):
        if stop is not None and stop():
            break
        p = rule(x, float(t), step)
        if record:
            states.append(x.copy())
        marginal = np.where(x == 1, 1.0 - p, p)
        x = np.where(rng.random(x.shape) < p, 1 - x, x).astype(np.int8)
        taken += 1
        if on_step is not None:
            on_step(x)
    return Rollout(final=x, marginal=marginal, steps=taken, states=states)


def rlsa_defaults(kind: str) -> tuple[float, int]:
    """RLSA's initial temperature ``tau`` and regulariser range ``d`` for a problem kind."""
    return (5.0, 20) if kind == "maxcut" else (0.01, 5)


def regularised_logits(gain: np.ndarray, offsets: np.ndarray, k: int, temperature: float) -> np.ndarray:
    """RLSA's flip logits (K, N): ``(delta_i - delta_(k)) / temperature`` with the improvement of
    flipping i ``delta_i = -gain_i / 2`` (``gain`` the energy change of each flip, (K, N)) and
    ``delta_(k)`` the k-th largest delta of i's chain within i's graph (graph b holds nodes
    ``offsets[b]:offsets[b + 1]``)."""
    delta = -0.5 * gain
    out = np.empty_like(delta)
    for a, b in itertools.pairwise(offsets):
        part = delta[:, a:b]
        kk = min(int(k), b - a)
        kth = -np.partition(-part, kk - 1, axis=1)[:, kk - 1 : kk]
        out[:, a:b] = (part - kth) / max(temperature, 1e-12)
    return out


def rlsa_rule(
    gradient: Callable[[np.ndarray], np.ndarray], steps: int, *, tau: float, d: int, rng: np.random.Generator
) -> FlipRule:
    """Regularised Langevin simulated annealing (Feng & Yang, 2025) as a flip rule.

    With the first-order improvement of flipping i, ``delta_i = (2 x_i - 1) g_i / 2`` (g the energy
    gradient), each step draws ``k`` uniform in 2..d and flips i with probability
    ``sigmoid((delta_i - delta_(k)) / tau_s)``, where ``delta_(k)`` is the chain's k-th largest
    delta (the regulariser: about k - 1 nodes are likely to flip per step) and the temperature
    falls linearly, ``tau_s = tau (1 - s / T)`` (:func:`regularised_logits`).
    """
    d = max(int(d), 2)

    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        gain = (1.0 - 2.0 * x) * gradient(x)
        k = int(rng.integers(2, d + 1))
        temperature = tau * (1.0 - step / steps)
        return _sigmoid(regularised_logits(gain, np.array([0, x.shape[1]]), k, temperature))

    return rule


def rlsa_base(offsets: np.ndarray, *, k: int, tau: float, clip: float = 10.0) -> Callable[[np.ndarray, float], np.ndarray]:
    """RLSA's logits as a function ``base(gain, t)`` of the flip gains (K, N) and the time t: a
    fixed ``k``, the temperature ``tau * t`` (t = 1 - s / T), clipped to +-``clip``. A residual
    policy adds its output to them, so that the untrained policy samples like RLSA."""

    def base(gain: np.ndarray, t: float) -> np.ndarray:
        return np.clip(regularised_logits(gain, offsets, k, tau * t), -clip, clip)

    return base


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))
