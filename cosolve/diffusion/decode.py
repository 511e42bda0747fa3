"""Decoders from soft marginals (K chains x N nodes, values in [0, 1]) to feasible solutions.

- MIS: the nodes a chain selects (its state's ones; without states, marginal above 1/2) by
  decreasing marginal, each added while no neighbour is selected, then completed to a maximal set
  by the min-degree greedy.
- MaxClique: nodes by decreasing marginal, each added while adjacent to every selected node.
- MaxCut: round at 0.5, then best-improvement 1-flip local search.
- MDS: round, complete to a dominating set with Chvátal's greedy, then drop redundant nodes.

Each returns (K, N) int8, one feasible solution per chain; :func:`best_of` picks the best chain.
Each takes the chains' sampled states (K, N) 0/1 too, or None; only the MIS decoder reads them.
"""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.problems.graphs import GraphProblem


@njit(cache=True)
def _clique_by_order(indptr: np.ndarray, indices: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Visit nodes in ``order``; add a node if every selected node is its neighbour."""
    n = indptr.size - 1
    x = np.zeros(n, np.int8)
    selected_neighbours = np.zeros(n, np.int64)
    size = 0
    for v in order:
        if selected_neighbours[v] == size:
            x[v] = 1
            size += 1
            for p in range(indptr[v], indptr[v + 1]):
                selected_neighbours[indices[p]] += 1
    return x


def decode_clique(problem: GraphProblem, marginals: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """Maximal cliques, one per chain (K, N) int8: nodes by decreasing marginal."""
    indptr, indices = index_arrays(problem.adjacency)
    marginals = np.atleast_2d(marginals)
    out = np.empty(marginals.shape, np.int8)
    for k, p in enumerate(marginals):
        order = np.argsort(-p, kind="stable").astype(np.int64)
        out[k] = _clique_by_order(indptr, indices, order)
    return out


def decode_independent_set(problem: GraphProblem, marginals: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """Maximal independent sets, one per chain (K, N) int8: the chain's selected nodes (``states``
    (K, N) 0/1, or without them marginal above 1/2) by decreasing marginal while independent,
    completed by the min-degree greedy. (Filling in the unselected nodes by their marginals instead
    ranks near-zero values, which a policy whose last state selects few nodes does not order well.)"""
    from cosolve.heuristics.graphs.greedy_constructions import min_degree_mis_kernel

    indptr, indices = index_arrays(problem.adjacency)
    marginals = np.atleast_2d(marginals)
    selected = marginals > 0.5 if states is None else np.atleast_2d(states) == 1
    out = np.empty(marginals.shape, np.int8)
    for k, p in enumerate(marginals):
        order = np.argsort(-p, kind="stable")
        out[k] = min_degree_mis_kernel(indptr, indices, order[selected[k, order]].astype(np.int64))
    return out


def decode_cut(problem: GraphProblem, marginals: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """1-flip locally optimal cuts, one per chain (K, N) int8."""
    from cosolve.heuristics.graphs.greedy_constructions import maxcut_local_search, weighted_adjacency

    weighted = weighted_adjacency(problem.n, problem.edges, problem.weights)
    marginals = np.atleast_2d(marginals)
    return np.stack([maxcut_local_search(weighted, (p > 0.5).astype(np.int8))[0] for p in marginals])


def decode_dominating_set(problem: GraphProblem, marginals: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """Minimal dominating sets, one per chain (K, N) int8."""
    from cosolve.heuristics.graphs.greedy_constructions import closed_neighborhoods
    from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant

    closed = closed_neighborhoods(problem.adjacency)
    costs = np.ones(problem.n)
    out = []
    for p in np.atleast_2d(marginals):
        x = chvatal_greedy(costs, closed, closed.T, start=(p > 0.5).astype(np.int8))
        out.append(remove_redundant(costs, closed.T, x))
    return np.stack(out)


DECODERS = {
    "mis": decode_independent_set,
    "maxclique": decode_clique,
    "maxcut": decode_cut,
    "mds": decode_dominating_set,
}


def decode(problem: GraphProblem, marginals: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """Feasible solutions (K, N) int8 for ``problem`` from marginals (K, N) and, where the decoder
    reads them (MIS), the chains' sampled states (K, N) 0/1."""
    return DECODERS[problem.kind](problem, marginals, states)


def best_of(problem: GraphProblem, solutions: np.ndarray) -> tuple[np.ndarray, float]:
    """The best feasible row of ``solutions`` (K, N) and its objective."""
    best, value = None, None
    for x in solutions:
        verdict = problem.evaluate(x)
        if verdict.feasible and (value is None or problem.sense.better(verdict.objective, value)):
            best, value = x, verdict.objective
    if best is None:
        raise ValueError("no feasible solution among the decoded chains")
    return best, float(value)
