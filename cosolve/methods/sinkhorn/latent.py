"""Per-instance Gumbel–Sinkhorn: the permutation is a latent operator whose free logits (n, n) are
optimised directly on one instance's objective, with the same temperature variants as the learner.
Every ``decode_every`` steps the noiseless logits are decoded by the Hungarian algorithm and offered
(the anytime incumbent); the loop ends at ``steps`` or when ``stop()`` fires."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from cosolve.methods.sinkhorn.hungarian import hungarian
from cosolve.methods.sinkhorn.operator import TemperatureSchedule, gumbel_sinkhorn


def optimize_latent(
    n: int,
    loss: Callable[[torch.Tensor], torch.Tensor],
    offer: Callable[[np.ndarray], None],
    schedule: TemperatureSchedule,
    *,
    steps: int,
    lr: float = 0.1,
    samples: int = 5,
    iterations: int = 10,
    init: torch.Tensor | None = None,
    offset: torch.Tensor | None = None,
    seed: int = 0,
    decode_every: int = 10,
    decode_samples: bool = False,
    stop: Callable[[], bool] = lambda: False,
) -> np.ndarray:
    """Optimise logits (n, n) (from ``init``, else small noise) by Adam on ``loss(P)`` with ``P``
    (samples, n, n) Gumbel–Sinkhorn soft permutations of ``logits + offset`` (``offset``, fixed, e.g.
    pins entries with large negative values); ``offer(perm)`` sees the permutation (n,) int64 decoded
    after steps 1, 2, 4, 8, ..., every ``decode_every`` steps and after the last; with
    ``decode_samples`` also each Gumbel sample's matching (the Hungarian algorithm on ``log P``, which
    Sinkhorn's scalings leave equal to that of the noisy logits). Returns the final logits plus
    offset (n, n) float64."""
    generator = torch.Generator().manual_seed(seed)
    start = torch.randn(n, n, generator=generator) * 0.01 if init is None else init.detach().clone().float()
    logits = start.requires_grad_(True)
    shift = torch.zeros(n, n) if offset is None else offset
    optimizer = torch.optim.Adam([logits], lr=lr)
    for step in range(steps):
        if stop():
            break
        full = logits + shift
        p = gumbel_sinkhorn(full, schedule(full, step, steps), samples=samples, iterations=iterations, generator=generator)
        value = loss(p)
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        if (step + 1) % decode_every == 0 or (step + 1) & step == 0:  # also at steps 1, 2, 4, 8, ...: early incumbents
            offer(hungarian((logits + shift).detach().double().numpy()))
            if decode_samples:
                for perm in hungarian(torch.log(p.detach().clamp_min(1e-30)).double().numpy()):
                    offer(perm)
    final = (logits + shift).detach().double().numpy()
    if not stop():  # at the deadline there is no time left to use another decoding
        offer(hungarian(final))
    return final


def restarted_latent(
    n: int,
    loss: Callable[[torch.Tensor], torch.Tensor],
    polish: Callable[[np.ndarray], None],
    schedule: TemperatureSchedule,
    *,
    steps: int,
    lr: float,
    samples: int,
    iterations: int,
    seed: int,
    stop: Callable[[], bool],
    runs: int = 0,
    offset: torch.Tensor | None = None,
    decode_every: int = 25,
) -> int:
    """Runs of :func:`optimize_latent` (``steps`` each, fresh noise each run) until ``stop()`` or,
    if ``runs`` > 0, after that many. Every permutation decoded from the logits or from a Gumbel
    sample goes to ``polish(perm)`` once (repeats are skipped). Returns the number of runs."""
    seen: set[bytes] = set()

    def once(perm: np.ndarray) -> None:
        key = perm.tobytes()
        if key not in seen:
            seen.add(key)
            polish(perm)

    done = 0
    while not stop() and (runs <= 0 or done < runs):
        optimize_latent(
            n, loss, once, schedule, steps=steps, lr=lr, samples=samples, iterations=iterations, offset=offset,
            seed=seed * 100_003 + done, decode_every=decode_every, decode_samples=True, stop=stop,
        )  # fmt: skip
        done += 1
    return done
