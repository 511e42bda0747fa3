"""Small random graphs (networkx generators) as graph problems, deterministic in ``seed``.

Each returns ``GRAPH_PROBLEMS[problem](n, edges, weights=..., name=...)`` with nodes 0..n-1
(labels 1..n, as in DIMACS). ``weighted=True`` draws integer edge weights uniform in 1..10
(only MaxCut uses weights).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from cosolve.errors import InputError
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem


def from_networkx(graph: nx.Graph, problem: str = "mis", *, weights: np.ndarray | None = None, name: str = "") -> GraphProblem:
    """The graph problem ``problem`` on ``graph`` (nodes relabelled 0..n-1 in sorted order)."""
    if problem not in GRAPH_PROBLEMS:
        raise InputError(f"unknown graph problem {problem!r}; valid: {', '.join(GRAPH_PROBLEMS)}")
    nodes = sorted(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges = np.array([(index[u], index[v]) for u, v in graph.edges], dtype=np.int64).reshape(-1, 2)
    return GRAPH_PROBLEMS[problem](len(nodes), edges, weights=weights, name=name)


def _weights(count: int, weighted: bool, seed: int) -> np.ndarray | None:
    if not weighted:
        return None
    return np.random.default_rng(seed).integers(1, 11, count).astype(np.float64)


def erdos_renyi(n: int, p: float, *, problem: str = "mis", seed: int = 0, weighted: bool = False) -> GraphProblem:
    """G(n, p): each of the n(n-1)/2 node pairs is an edge with probability ``p``."""
    if n < 1 or not 0 <= p <= 1:
        raise InputError(f"erdos_renyi needs n >= 1 and 0 <= p <= 1, got n={n}, p={p}")
    g = nx.gnp_random_graph(n, p, seed=seed)
    return from_networkx(g, problem, weights=_weights(g.number_of_edges(), weighted, seed + 1), name=f"er{n}_p{p:g}_s{seed}")


def barabasi_albert(n: int, m: int, *, problem: str = "mis", seed: int = 0, weighted: bool = False) -> GraphProblem:
    """Preferential attachment: each new node links to ``m`` existing nodes (1 <= m < n)."""
    if not 1 <= m < n:
        raise InputError(f"barabasi_albert needs 1 <= m < n, got n={n}, m={m}")
    g = nx.barabasi_albert_graph(n, m, seed=seed)
    return from_networkx(g, problem, weights=_weights(g.number_of_edges(), weighted, seed + 1), name=f"ba{n}_m{m}_s{seed}")


def rb_graph(cliques: int, clique_size: int, p: float, *, problem: str = "mis", seed: int = 0) -> GraphProblem:
    """Model RB graph (Xu et al. 2005; the "hard" MIS benchmarks): ``cliques`` disjoint cliques of
    ``clique_size`` nodes, then ``int(r n ln n) - 1`` rounds that each join two random cliques by
    ``int(p k^2)`` random node pairs, with ``a = ln k / ln n`` and ``r = -a / ln(1 - p)``.
    An independent set takes at most one node per clique, so the MIS has at most ``cliques`` nodes."""
    n, k = int(cliques), int(clique_size)
    if n < 2 or k < 2 or not 0 < p < 1:
        raise InputError(f"rb_graph needs cliques >= 2, clique_size >= 2 and 0 < p < 1, got {n}, {k}, {p}")
    rng = np.random.default_rng(seed)
    within = [np.array(np.triu_indices(k, 1)).T + c * k for c in range(n)]
    rounds = max(int(-np.log(k) / np.log(n) / np.log1p(-p) * n * np.log(n)) - 1, 0)
    pairs = int(p * k * k)
    between = []
    for _ in range(rounds):
        a, b = rng.choice(n, 2, replace=False)
        between.append(np.c_[a * k + rng.integers(0, k, pairs), b * k + rng.integers(0, k, pairs)])
    edges = np.concatenate(within + between) if between else np.concatenate(within)
    return GRAPH_PROBLEMS[problem](n * k, edges, name=f"rb{n}x{k}_p{p:.3f}_s{seed}")
