"""Sampling K chains on one graph batch and decoding them to the best feasible solution per graph.

Used by the ``cam`` and ``rlsa`` methods and by CAM's validation; torch is imported only by the
learned rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.decode import best_of, decode
from cosolve.diffusion.sampler import FlipRule, Rollout, rollout, uniform_start

if TYPE_CHECKING:
    from cosolve.methods.cam.flip_policy import FlipPolicy, GraphTensors


def graph_logits(
    policy: FlipPolicy, batch: GraphBatch, tensors: GraphTensors, x: np.ndarray, t: float, base: Any = None
):  # -> torch.Tensor
    """Flip logits (N, K) of ``policy`` at states ``x`` (K, N) and time ``t``: its inputs are the
    states and their flip gains, node-major, and for a residual policy the logits ``base(gain, t)``
    (K, N) it adds to; on the device of ``tensors``."""
    import torch

    device = tensors.static.device

    def node_major(values: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(values.T.astype(np.float32)).to(device)

    gain = batch.energy.flip_gain(x)
    extra = None if base is None else node_major(base(gain, t))
    return policy(node_major(x), node_major(gain), t, tensors, extra)


def logit_rule(logits: Callable[[np.ndarray, float], Any]) -> FlipRule:
    """The flip rule ``p = sigmoid(logits(x, t))`` of a policy network, evaluated without
    gradient; ``logits`` gives a tensor (N, K) for states (K, N)."""
    import torch

    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        with torch.no_grad():
            return torch.sigmoid(logits(x, t)).cpu().numpy().T.astype(np.float64)

    return rule


def policy_rule(policy: FlipPolicy, batch: GraphBatch, tensors: GraphTensors, base: Any = None) -> FlipRule:
    """The flip rule ``p = sigmoid(f_theta(G, x_t, t))`` of a trained graph policy."""
    return logit_rule(lambda x, t: graph_logits(policy, batch, tensors, x, t, base))


def decode_best(batch: GraphBatch, marginals: np.ndarray, states: np.ndarray | None = None) -> list[tuple[np.ndarray, float]]:
    """For each graph of ``batch``: the best of the K decoded chains, and its objective, from the
    chains' marginals (K, N) and sampled states (K, N) (:func:`~cosolve.diffusion.decode.decode`)."""
    per_graph = [None] * len(batch.problems) if states is None else batch.split(states)
    parts = zip(batch.problems, batch.split(marginals), per_graph, strict=True)
    return [best_of(p, decode(p, m, x)) for p, m, x in parts]


def track_best(batch: GraphBatch) -> tuple[Callable[[np.ndarray], None], Callable[[], np.ndarray]]:
    """Keep, per chain, the lowest-energy state seen (RLSA returns it rather than the last state).
    Returns ``(see, best)``: ``see(x)`` offers a (K, N) state, ``best()`` the kept states."""
    kept: dict[str, np.ndarray] = {}

    def see(x: np.ndarray) -> None:
        energy = batch.energy.energy(x)
        if not kept:
            kept["x"], kept["e"] = x.copy(), energy
            return
        better = energy < kept["e"]
        kept["x"][better], kept["e"][better] = x[better], energy[better]

    return see, lambda: kept["x"]


def sample(
    rule: FlipRule,
    batch: GraphBatch,
    chains: int,
    steps: int,
    rng: np.random.Generator,
    *,
    stop: Callable[[], bool] | None = None,
    keep_best: bool = False,
) -> Rollout:
    """One round of ``steps`` steps of ``chains`` chains from uniform noise. With ``keep_best``,
    the rollout's ``final`` state and ``marginal`` are both the lowest-energy state of each chain."""
    see, best = track_best(batch) if keep_best else (None, None)
    start = uniform_start(chains, batch.n, rng)
    if see is not None:
        see(start)
    out = rollout(rule, start, steps, rng, stop=stop, on_step=see)
    if best is not None:
        out.final = best()
        out.marginal = out.final.astype(np.float64)
    return out
