"""TSP as a latent successor permutation on candidate edges, decoded to a tour and polished.

A tour is a permutation ``succ`` (city i is followed by ``succ[i]``) whose cycle is Hamiltonian.
Its soft relaxation ``S[i, j]`` (probability that j follows i) is a Gumbel–Sinkhorn doubly
stochastic matrix restricted to the candidate edges (each city's ``neighbors`` nearest cities, in
both directions: :class:`~cosolve.methods.sinkhorn.sparse.SparsePattern`), so a step costs O(n K)
rather than O(n^2). Per instance, its free logits are optimised by Adam on

    ``sum_e S_e d_e / dbar + cycle_penalty * sum_e S_e S_rev(e)``

(expected length in units of the mean candidate length ``dbar``, plus the probability mass of
two-city cycles i -> j -> i, the subtours the assignment relaxation prefers), averaged over the
Gumbel samples, with the temperature variants of :mod:`cosolve.methods.sinkhorn.operator`.

Decoding: the heat of an edge {i, j} is ``S_ij + S_ji``; the greedy edge construction takes edges
by decreasing heat (:func:`cosolve.heuristics.tsp.tour_construction.greedy_edge_tour`), and the tour is brought to a
2-opt + Or-opt local optimum (:mod:`cosolve.heuristics.tsp.iterated_local_search`). The noiseless logits are
decoded after steps 1, 2, 4, 8, ..., every ``decode_every`` steps and at the end, where every
Gumbel sample is decoded too. The Sinkhorn phase ends after ``steps`` or at its share of the time
limit; the best decoded tour then goes to the iterated local search until the time limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from cosolve.heuristics.tsp.iterated_local_search import TourSearch, iterated_local_search
from cosolve.heuristics.tsp.tour_construction import candidate_lists, greedy_edge_tour, pair_distances_kernel
from cosolve.methods.sinkhorn.operator import TemperatureSchedule
from cosolve.methods.sinkhorn.sparse import SparsePattern, sparse_gumbel_sinkhorn, sparse_temperature
from cosolve.problems.tsp import TSP


@dataclass
class SinkhornTourStats:
    """What a solve did: Sinkhorn ``steps`` and their ``seconds``, tours ``decoded``, the length of
    the best decoded local optimum (``decoded_best``), and the ILS ``kicks``."""

    steps: int = 0
    seconds: float = 0.0
    decoded: int = 0
    decoded_best: float = float("inf")
    kicks: int = 0


@dataclass(frozen=True)
class CandidateGraph:
    """An instance's candidate edges: ``lists`` (n, K) each city's nearest cities, the symmetric
    ``pattern`` of the edges in both directions (E entries), ``index`` (n, K) the entry of each
    (i, ``lists[i, t]``), ``edge_lengths`` (E,) float64 and ``lengths`` (E,) float32 the same in
    units of their mean (the loss's scale)."""

    points: np.ndarray
    metric: int
    lists: np.ndarray
    pattern: SparsePattern
    index: np.ndarray
    edge_lengths: np.ndarray
    lengths: torch.Tensor

    @staticmethod
    def of(problem: TSP, neighbors: int) -> CandidateGraph:
        """The graph of ``problem``'s ``neighbors`` nearest cities per city."""
        points, metric = problem.points, problem.metric_code
        lists = candidate_lists(points, neighbors, metric=metric)
        pattern = SparsePattern.symmetric(lists)
        index = pattern.index_of(np.repeat(np.arange(problem.n), lists.shape[1]), lists.ravel()).reshape(lists.shape)
        edge_lengths = pair_distances_kernel(points, metric, pattern.rows.numpy(), pattern.cols.numpy())
        lengths = torch.tensor(edge_lengths / max(float(edge_lengths.mean()), 1e-12), dtype=torch.float32)
        return CandidateGraph(points, metric, lists, pattern, index, edge_lengths, lengths)


def greedy_edge_search(graph: CandidateGraph, scores: np.ndarray | None = None) -> TourSearch:
    """The local search state of the greedy edge tour over the graph's candidate edges, taken by
    decreasing ``scores`` (n, K) (None: by increasing length); not yet descended."""
    tour = greedy_edge_tour(graph.points, graph.lists, metric=graph.metric, scores=scores)
    return TourSearch(graph.points, graph.metric, graph.lists, tour)


class Adam:
    """Adam (Kingma & Ba 2015, the defaults of ``torch.optim.Adam``) on one tensor. Written out
    because constructing ``torch.optim.Adam`` imports ``torch._dynamo``, about 2 s of a TSP solve's
    start-up, for what is here a four-line update."""

    def __init__(self, x: torch.Tensor, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.x, self.lr, self.betas, self.eps = x, lr, betas, eps
        self.m = torch.zeros_like(x)
        self.v = torch.zeros_like(x)
        self.t = 0

    def step(self) -> None:
        """One update of ``x`` from ``x.grad``."""
        b1, b2 = self.betas
        self.t += 1
        with torch.no_grad():
            g = self.x.grad
            self.m.mul_(b1).add_(g, alpha=1 - b1)
            self.v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (self.v / (1 - b2**self.t)).sqrt_().add_(self.eps)
            self.x.addcdiv_(self.m, denom, value=-self.lr / (1 - b1**self.t))


def heat(p: torch.Tensor, pattern: SparsePattern, index: np.ndarray) -> np.ndarray:
    """Edge heat ``S_ij + S_ji`` (…, n, K) of soft successors ``p`` (…, E), at the candidate
    entries ``index`` (n, K) of the pattern."""
    h = (p + p[..., pattern.reverse]).detach().double().numpy()
    return h[..., index]


def successor_loss(p: torch.Tensor, lengths: torch.Tensor, pattern: SparsePattern, cycle_penalty: float) -> torch.Tensor:
    """Mean over samples of the expected scaled length plus the two-cycle penalty (module doc);
    ``p`` (samples, E), ``lengths`` (E,) scaled edge lengths."""
    expected = (p * lengths).sum(-1)
    two_cycles = (p * p[..., pattern.reverse]).sum(-1)
    return (expected + cycle_penalty * two_cycles).mean()


def solve_tsp_sinkhorn(
    problem: TSP,
    offer: Callable[[np.ndarray, float], None],
    schedule: TemperatureSchedule,
    *,
    steps: int,
    lr: float,
    samples: int,
    iterations: int,
    seed: int,
    stop: Callable[[], bool],
    sinkhorn_stop: Callable[[], bool],
    neighbors: int = 10,
    cycle_penalty: float = 1.0,
    decode_every: int = 50,
    kicks: int = 0,
    initial: Callable[[CandidateGraph], torch.Tensor] | None = None,
) -> SinkhornTourStats:
    """The Sinkhorn phase (until ``steps`` or ``sinkhorn_stop()``), then ILS from the best decoded
    tour until ``stop()`` (or, with ``kicks`` > 0, after that many rounds); ``offer(tour, length)``
    sees every local optimum that improves on the best so far. ``initial(graph)``: starting logits
    (E,) (a network trained across instances, :mod:`cosolve.methods.sinkhorn.tour_net`), decoded
    before the first step; without it the logits start as small noise. Seed numba's random state first."""
    stats = SinkhornTourStats()
    graph = CandidateGraph.of(problem, neighbors)
    pattern, index, lengths = graph.pattern, graph.index, graph.lengths

    best: list[TourSearch] = []

    def decode(scores: np.ndarray) -> None:
        search = greedy_edge_search(graph, scores)
        if not search.descend(stop):
            return
        stats.decoded += 1
        if not best or search.length < best[0].length:
            best[:] = [search]
            stats.decoded_best = search.length
            offer(search.tour, search.length)

    generator = torch.Generator().manual_seed(seed)
    if initial is None:
        logits = (torch.randn(len(pattern.rows), generator=generator) * 0.01).requires_grad_(True)
    else:
        logits = initial(graph).detach().float().clone().requires_grad_(True)
        decode(heat(logits.detach(), pattern, index))
    adam = Adam(logits, lr)
    started = time.perf_counter()
    p = None
    for step in range(steps):
        if sinkhorn_stop() or stop():
            break
        temperature = sparse_temperature(schedule, logits, pattern, step, steps)
        p = sparse_gumbel_sinkhorn(logits, temperature, pattern, samples=samples, iterations=iterations, generator=generator)
        loss = successor_loss(p, lengths, pattern, cycle_penalty)
        logits.grad = None
        loss.backward()
        adam.step()
        stats.steps += 1
        if (step + 1) % decode_every == 0 or (step + 1) & step == 0:
            decode(heat(logits.detach(), pattern, index))
    stats.seconds = time.perf_counter() - started
    if p is not None and not stop():
        decode(heat(logits.detach(), pattern, index))
        for sample in heat(p, pattern, index):
            if stop():
                break
            decode(sample)
    if not best:  # no step ran or no decoding finished: the greedy edge tour by length
        search = greedy_edge_search(graph)
        offer(search.tour, search.length)
        best.append(search)
    if not stop():
        iterated_local_search(best[0], stop=stop, offer=offer, kicks=kicks)
    stats.kicks = best[0].kicks
    return stats
