"""Polishing a decoded graph solution with the problem's local search, in time-boxed chunks.

The searches are in :mod:`cosolve.heuristics.graphs` (one module per problem); :func:`local_search` picks the one
for a problem, :func:`polish` runs it in chunks of iterations sized from the measured cost of an
iteration, so that a chunk fits in the time left, and offers each improvement.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cosolve.heuristics.graphs.local_search import GraphLocalSearch
from cosolve.heuristics.graphs.maxcut_search import CutTabuSearch
from cosolve.heuristics.graphs.mds_search import DominatingSetSearch
from cosolve.heuristics.graphs.mis_search import IndependentSetSearch
from cosolve.heuristics.graphs.numvc import VertexCoverSearch
from cosolve.problems.graphs import GraphProblem

#: seconds a chunk of iterations aims at: short enough to keep the deadline, long enough that
#: the Python between chunks costs nothing
CHUNK_SECONDS = 0.02
#: iterations when there is no time limit, per node
ITERATIONS_PER_NODE = 20
#: the most iterations one chunk may run: where a search has nothing left to do (an edgeless
#: graph's independent set, a hub that dominates every node) an iteration takes no measurable
#: time, and chunks sized from that would outgrow the kernels' int64 count
MAX_CHUNK = 1 << 24


def _complement(problem: GraphProblem) -> sp.csr_array:
    from cosolve.heuristics.graphs.greedy_constructions import weighted_adjacency

    pairs = problem.complement_edges
    return weighted_adjacency(problem.n, pairs, np.ones(len(pairs)))


#: the weight of a node no chain disagrees on, in :func:`cut_disagreement`
DISAGREEMENT_FLOOR = 0.05


def cut_disagreement(start: np.ndarray, states: np.ndarray, floor: float = DISAGREEMENT_FLOOR) -> np.ndarray:
    """Per node (n,), ``floor`` plus the share of the cuts ``states`` (K, n) 0/1 that label it
    differently from ``start`` (n,) 0/1, each state first mirrored (every label swapped: the same
    cut) if that brings it closer to ``start``."""
    start = np.asarray(start, dtype=np.int8)
    states = np.asarray(states, dtype=np.int8).reshape(-1, start.size)
    differ = states != start
    flip = differ.sum(axis=1) * 2 > start.size
    differ[flip] = ~differ[flip]
    return floor + differ.mean(axis=0)


def _cut(problem: GraphProblem, start: np.ndarray, seed: int, _search: str, pool: np.ndarray | None) -> GraphLocalSearch:
    from cosolve.heuristics.graphs.greedy_constructions import weighted_adjacency

    weights = None if pool is None or not len(pool) else cut_disagreement(start, pool)
    adjacency = weighted_adjacency(problem.n, problem.edges, problem.weights)
    return CutTabuSearch(adjacency, start, seed, restart_weights=weights)


#: the searches for independent sets (on the complement graph, cliques), by name
INDEPENDENT_SET_SEARCHES: dict[str, Callable[[sp.csr_array, np.ndarray, int], GraphLocalSearch]] = {
    "numvc": VertexCoverSearch,
    "arw": IndependentSetSearch,
}
#: the default of :data:`INDEPENDENT_SET_SEARCHES`: NuMVC reached larger sets than ARW's ILS on the
#: er-700-800 and frb MIS graphs at 1 s and 10 s (bench/results/graph-mis-peers)
INDEPENDENT_SET_SEARCH = "numvc"


#: the search of each problem: (problem, start, seed, independent set search, pool) -> search
LOCAL_SEARCHES: dict[str, Callable[[GraphProblem, np.ndarray, int, str, np.ndarray | None], GraphLocalSearch]] = {
    "mis": lambda p, start, seed, iss, pool: INDEPENDENT_SET_SEARCHES[iss](p.adjacency, start, seed),
    "maxclique": lambda p, start, seed, iss, pool: INDEPENDENT_SET_SEARCHES[iss](_complement(p), start, seed),
    "maxcut": _cut,
    "mds": lambda p, start, seed, iss, pool: DominatingSetSearch(p.adjacency, start, seed),
}


def local_search(
    problem: GraphProblem,
    start: np.ndarray,
    seed: int,
    *,
    independent_set_search: str = INDEPENDENT_SET_SEARCH,
    pool: np.ndarray | None = None,
) -> GraphLocalSearch:
    """The polishing search of ``problem`` from the feasible solution ``start`` (n,) 0/1;
    ``independent_set_search`` names the one for MIS and MaxClique (a key of
    :data:`INDEPENDENT_SET_SEARCHES`). ``pool`` (K, n) 0/1: states a sampler reached; the MaxCut
    tabu's restarts then flip the nodes on which they disagree with ``start`` more often
    (:func:`cut_disagreement`); the other searches ignore it."""
    return LOCAL_SEARCHES[problem.kind](problem, start, int(seed) % (2**32), independent_set_search, pool)


@dataclass
class PolishStats:
    """``iterations`` run, ``improvements`` (chunks that improved the best), ``seconds`` spent."""

    iterations: int = 0
    improvements: int = 0
    seconds: float = 0.0


def polish(
    search: GraphLocalSearch,
    remaining: Callable[[], float],
    offer: Callable[[np.ndarray], None],
    *,
    iterations: int | None = None,
    stop: Callable[[], bool] = lambda: False,
    clock: Callable[[], float] = time.perf_counter,
    safety: float = 1.5,
) -> PolishStats:
    """Run ``search`` until ``remaining()`` (seconds) is spent, ``iterations`` are done (None: no
    cap) or ``stop()``; ``offer(best)`` sees each improved best solution. A chunk starts only
    when ``safety`` times its estimated cost fits in the time left."""
    stats = PolishStats()
    started = clock()
    chunk, per_iteration = 8, 0.0
    while not stop():
        left = remaining()
        todo = chunk if iterations is None else min(chunk, iterations - stats.iterations)
        if per_iteration and left < float("inf"):
            todo = min(todo, int(left / (safety * per_iteration)))
        if todo < 1 or left <= 0:
            break
        t0 = clock()
        improved = search.run(todo)
        seconds = clock() - t0
        stats.iterations += todo
        if improved:
            stats.improvements += 1
            offer(search.best)
        measured = max(seconds, 1e-9) / todo
        per_iteration = measured if not per_iteration else 0.5 * (per_iteration + measured)
        chunk = max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / per_iteration)))
    stats.seconds = clock() - started
    return stats
