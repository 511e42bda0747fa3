"""What :class:`~cosolve.methods.sinkhorn.learner.PermutationLearner` needs to know about a kind of
problem to train a network on it: a :class:`Task` (one per problem kind: sorting, jigsaw).

The learner's loop is the same for every task: instances -> ``tensors`` (a tuple of tensors with
one leading row per instance; the first is the network's input) -> minibatch rows -> network ->
logits (B, n, n) -> Gumbel–Sinkhorn soft permutations (S, B, n, n) -> ``loss(p, *rows)``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from cosolve.core.problem import Problem


@dataclass(frozen=True)
class Task:
    """A problem kind the learner can train on.

    - ``kind``: the problem kind (``Problem.kind``);
    - ``signature(problem)``: what instances must share to go through one network (e.g. the size);
      ``describe(signature)`` says it in words ("8 items");
    - ``network(signature, hidden)``: a fresh network mapping ``tensors(...)[0]`` to logits (B, n, n);
    - ``tensors(instances)``: tensors with one row per instance, the network's input first;
    - ``loss(signature, objective)``: the loss ``loss(p, *rows)``, a scalar for soft permutations
      ``p`` (S, B, n, n) and the minibatch's rows of ``tensors``; ``objectives`` names those it has;
    - ``truth(problem)``: the true permutation (n,) int64, or None when unknown;
    - ``score(pred, true)``: metrics of predicted against true permutations, both (B, n);
      ``headline``: the metric that says how good a network is (higher is better).
    """

    kind: str
    signature: Callable[[Problem], Hashable]
    describe: Callable[[Any], str]
    network: Callable[[Any, int], nn.Module]
    tensors: Callable[[Sequence[Problem]], tuple[torch.Tensor, ...]]
    loss: Callable[[Any, str], Callable[..., torch.Tensor]]
    objectives: tuple[str, ...]
    truth: Callable[[Problem], np.ndarray | None]
    score: Callable[[np.ndarray, np.ndarray], dict[str, float]]
    headline: str
