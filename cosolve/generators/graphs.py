"""Small random graphs (networkx generators) as graph problems, deterministic in ``seed``.

Each returns ``GRAPH_PROBLEMS[problem](n, edges, weights=..., name=...)`` with nodes 0..n-1
(labels 1..n, as in DIMACS). ``weighted=True`` draws integer edge weights uniform in 1..10
(only MaxCut uses weights).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cosolve.errors import InputError
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem

if TYPE_CHECKING:
    import networkx as nx


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
    import networkx as nx  # imported here: the CLI's start-up does not pay for it

    g = nx.gnp_random_graph(n, p, seed=seed)
    return from_networkx(g, problem, weights=_weights(g.number_of_edges(), weighted, seed + 1), name=f"er{n}_p{p:g}_s{seed}")


def barabasi_albert(n: int, m: int, *, problem: str = "mis", seed: int = 0, weighted: bool = False) -> GraphProblem:
    """Preferential attachment: each new node links to ``m`` existing nodes (1 <= m < n)."""
    if not 1 <= m < n:
        raise InputError(f"barabasi_albert needs 1 <= m < n, got n={n}, m={m}")
    import networkx as nx

    g = nx.barabasi_albert_graph(n, m, seed=seed)
    return from_networkx(g, problem, weights=_weights(g.number_of_edges(), weighted, seed + 1), name=f"ba{n}_m{m}_s{seed}")


def rb_graph(
    cliques: int,
    clique_size: int,
    p: float,
    *,
    problem: str = "mis",
    seed: int = 0,
    planted: bool = False,
    distinct: bool = False,
) -> GraphProblem:
    """Model RB graph (Xu et al. 2005; the "hard" MIS benchmarks): ``cliques`` disjoint cliques of
    ``clique_size`` nodes, then ``int(r n ln n) - 1`` rounds that each join two random cliques by
    ``int(p k^2)`` random node pairs, with ``a = ln k / ln n`` and ``r = -a / ln(1 - p)``.
    An independent set takes at most one node per clique, so the MIS has at most ``cliques`` nodes.

    ``planted``: one random node per clique is kept apart and no pair joins two of them (the
    "forced satisfiable" instances, such as the frb benchmarks), so the MIS has exactly
    ``cliques`` nodes, and the planted set is one. ``distinct``: a round's pairs are drawn without
    repetition, as in Xu's model (the frb benchmarks); by default with repetition."""
    n, k = int(cliques), int(clique_size)
    if n < 2 or k < 2 or not 0 < p < 1:
        raise InputError(f"rb_graph needs cliques >= 2, clique_size >= 2 and 0 < p < 1, got {n}, {k}, {p}")
    rng = np.random.default_rng(seed)
    within = [np.array(np.triu_indices(k, 1)).T + c * k for c in range(n)]
    rounds = max(int(-np.log(k) / np.log(n) / np.log1p(-p) * n * np.log(n)) - 1, 0)
    pairs = int(p * k * k)
    hidden = np.arange(n) * k + rng.integers(0, k, n) if planted else None
    between = []
    for _ in range(rounds):
        a, b = rng.choice(n, 2, replace=False)
        if distinct:
            cells = rng.choice(k * k, min(pairs, k * k), replace=False)
            joined = np.c_[a * k + cells // k, b * k + cells % k]
        else:
            joined = np.c_[a * k + rng.integers(0, k, pairs), b * k + rng.integers(0, k, pairs)]
        if hidden is not None:
            joined = joined[~((joined[:, 0] == hidden[a]) & (joined[:, 1] == hidden[b]))]
        between.append(joined)
    edges = np.concatenate(within + between) if between else np.concatenate(within)
    name = f"{'frb' if planted else 'rb'}{n}x{k}_p{p:.3f}_s{seed}"
    return GRAPH_PROBLEMS[problem](n * k, edges, name=name)


def _signs(count: int, signed: bool, rng: np.random.Generator) -> np.ndarray | None:
    return rng.choice(np.array([-1.0, 1.0]), count) if signed else None


def gset_random(n: int, density: float, *, problem: str = "maxcut", seed: int = 0, signed: bool = False) -> GraphProblem:
    """A random graph in the style of rudy's ``-rnd_graph`` (Gset G1-G10, G22-G42): exactly
    ``round(density * n (n - 1) / 2)`` distinct edges drawn uniformly, weights 1 (``signed``: +1 or
    -1 with equal probability)."""
    if n < 2 or not 0 < density <= 1:
        raise InputError(f"gset_random needs n >= 2 and 0 < density <= 1, got n={n}, density={density}")
    rng = np.random.default_rng(seed)
    total = n * (n - 1) // 2
    keys = rng.choice(total, round(density * total), replace=False)
    u, v = np.triu_indices(n, 1)
    edges = np.c_[u[keys], v[keys]]
    name = f"gset-random{n}_d{density:g}{'_pm' if signed else ''}_s{seed}"
    return GRAPH_PROBLEMS[problem](n, edges, weights=_signs(len(edges), signed, rng), name=name)


def toroidal_grid(rows: int, cols: int, *, problem: str = "maxcut", seed: int = 0, signed: bool = True) -> GraphProblem:
    """A ``rows`` x ``cols`` 2-D torus (rudy's ``-toroidal_grid_2D``, Gset G11-G13, G32-G34):
    each node joined to its right and lower neighbours, wrapping; weights +1 or -1 at random
    (``signed``) or 1."""
    if rows < 3 or cols < 3:
        raise InputError(f"toroidal_grid needs at least 3 rows and 3 columns, got {rows} x {cols}")
    rng = np.random.default_rng(seed)
    node = np.arange(rows * cols).reshape(rows, cols)
    edges = np.r_[np.c_[node.ravel(), np.roll(node, -1, axis=1).ravel()], np.c_[node.ravel(), np.roll(node, -1, axis=0).ravel()]]
    name = f"torus{rows}x{cols}{'_pm' if signed else ''}_s{seed}"
    return GRAPH_PROBLEMS[problem](rows * cols, edges, weights=_signs(len(edges), signed, rng), name=name)


def planar_union(n: int, density: float, *, problem: str = "maxcut", seed: int = 0, signed: bool = False) -> GraphProblem:
    """The union of two random planar graphs on the same n nodes, in the style of Gset G14-G21 and
    G51-G54 (rudy's ``-planar n density`` twice, added): each is the Delaunay triangulation of n
    random points in the unit square with ``density`` of its edges kept; weights 1 (``signed``:
    +1 or -1)."""
    from scipy.spatial import Delaunay

    if n < 4 or not 0 < density <= 1:
        raise InputError(f"planar_union needs n >= 4 and 0 < density <= 1, got n={n}, density={density}")
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(2):
        triangles = Delaunay(rng.random((n, 2))).simplices
        pairs = np.sort(np.r_[triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [0, 2]]], axis=1)
        pairs = np.unique(pairs, axis=0)
        parts.append(pairs[rng.random(len(pairs)) < density])
    edges = np.unique(np.concatenate(parts), axis=0)
    name = f"planar{n}_d{density:g}{'_pm' if signed else ''}_s{seed}"
    return GRAPH_PROBLEMS[problem](n, edges, weights=_signs(len(edges), signed, rng), name=name)
