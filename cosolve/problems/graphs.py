"""Graph problems on one undirected simple graph: MIS, MaxCut, MaxClique, minimum dominating set.

A solution is a 0/1 vector over the nodes (int8, length ``n``): the selected nodes, or for
MaxCut the side of each node. Nodes are 0..n-1 internally; ``labels`` keeps the names they
had in the file, used in messages and written solutions.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, ExactModel, Problem, as_binary_vector, build_range, round_binary
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind

if TYPE_CHECKING:
    import scipy.sparse as sp


class GraphProblem(Problem):
    """Common data of the graph families.

    ``edges``: int array (E, 2) of node pairs; self-loops are dropped and duplicates merged
    (keeping the first weight). ``weights``: (E,) edge weights, used by MaxCut only (default 1).
    ``labels``: (n,) names of the nodes (default 1..n, as in DIMACS).
    """

    def __init__(
        self,
        n: int,
        edges: np.ndarray,
        *,
        weights: np.ndarray | None = None,
        labels: np.ndarray | None = None,
        name: str = "",
    ) -> None:
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if n <= 0:
            raise InputError(f"{self.kind}: the graph has no nodes")
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise InputError(f"{self.kind}: edge endpoints must lie in 0..{n - 1}")
        w = np.ones(len(edges)) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (len(edges),):
            raise InputError(f"{self.kind}: {len(edges)} edges but {w.shape[0]} weights")
        keep = edges[:, 0] != edges[:, 1]
        edges, w = np.sort(edges[keep], axis=1), w[keep]
        edges, first = np.unique(edges, axis=0, return_index=True)
        self.n = int(n)
        self.edges = edges
        self.weights = w[first]
        self.labels = np.arange(1, n + 1) if labels is None else np.asarray(labels)
        self.name = name

    @cached_property
    def adjacency(self) -> sp.csr_array:
        """Symmetric 0/1 adjacency matrix (n x n, CSR, int8)."""
        u, v = self.edges[:, 0], self.edges[:, 1]
        data = np.ones(2 * len(u), dtype=np.int8)
        import scipy.sparse as sp  # imported on use: listing graph kinds and distributions needs none of it

        return sp.csr_array((data, (np.r_[u, v], np.r_[v, u])), shape=(self.n, self.n))

    @cached_property
    def degrees(self) -> np.ndarray:
        return np.diff(self.adjacency.indptr)

    def neighbors(self, i: int) -> np.ndarray:
        a = self.adjacency
        return a.indices[a.indptr[i] : a.indptr[i + 1]]

    def sizes(self) -> dict[str, int]:
        return {"nodes": self.n, "edges": len(self.edges)}

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        """One line per selected node (for MaxCut: per node on side 1), by its label."""
        return [str(label) for label in self.labels[np.flatnonzero(solution)].tolist()]

    def _x(self, solution: np.ndarray) -> np.ndarray:
        return as_binary_vector(solution, self.n, self.kind)

    def _label(self, i: int) -> str:
        return str(self.labels[i])


class MaximumIndependentSet(GraphProblem):
    """Maximise the number of selected nodes, no two adjacent."""

    kind: ClassVar[str] = "mis"
    sense: ClassVar[Sense] = Sense.MAXIMIZE

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        x = self._x(solution)
        both = np.flatnonzero(x[self.edges[:, 0]] & x[self.edges[:, 1]])
        if both.size:
            u, v = self.edges[both[0]]
            return Evaluation(float(x.sum()), False, f"adjacent nodes {self._label(u)} and {self._label(v)} are both selected")
        return Evaluation(float(x.sum()), True)

    def scip_model(self) -> ExactModel:
        """Binary x_i, ``x_u + x_v <= 1`` per edge (SCIP's clique detection strengthens it)."""
        return _max_pairwise_exclusive_scip(self, self.edges)

    def cpsat_model(self) -> ExactModel:
        """Booleans x_i, ``AddAtMostOne(x_u, x_v)`` per edge."""
        return _max_pairwise_exclusive_cpsat(self.n, self.edges)


class MaximumClique(GraphProblem):
    """Maximise the number of selected nodes, all pairwise adjacent (MIS of the complement)."""

    kind: ClassVar[str] = "maxclique"
    sense: ClassVar[Sense] = Sense.MAXIMIZE

    @cached_property
    def complement_edges(self) -> np.ndarray:
        """(E', 2) node pairs that are not adjacent, u < v."""
        dense = self.adjacency.toarray().astype(bool)
        u, v = np.nonzero(~dense)
        keep = u < v
        return np.stack([u[keep], v[keep]], axis=1)

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        x = self._x(solution)
        chosen = np.flatnonzero(x)
        sub = self.adjacency[chosen][:, chosen]
        k = len(chosen)
        if sub.nnz != k * (k - 1):
            dense = sub.toarray()
            np.fill_diagonal(dense, 1)
            a, b = np.argwhere(dense == 0)[0]
            return Evaluation(
                float(k), False, f"selected nodes {self._label(chosen[a])} and {self._label(chosen[b])} are not adjacent"
            )
        return Evaluation(float(k), True)

    def scip_model(self) -> ExactModel:
        """Binary x_i, ``x_u + x_v <= 1`` for every non-adjacent pair (the MIS model of the complement)."""
        return _max_pairwise_exclusive_scip(self, self.complement_edges)

    def cpsat_model(self) -> ExactModel:
        """Booleans x_i, ``AddAtMostOne(x_u, x_v)`` for every non-adjacent pair."""
        return _max_pairwise_exclusive_cpsat(self.n, self.complement_edges)


class MaxCut(GraphProblem):
    """Maximise the total weight of edges whose endpoints are on different sides."""

    kind: ClassVar[str] = "maxcut"
    sense: ClassVar[Sense] = Sense.MAXIMIZE

    def cut_value(self, x: np.ndarray) -> float:
        cut = x[self.edges[:, 0]] != x[self.edges[:, 1]]
        return float(self.weights[cut].sum())

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        return Evaluation(self.cut_value(self._x(solution)), True)

    def scip_model(self) -> ExactModel:
        """Binary side x_i and cut indicator y_e per edge with the four XOR inequalities
        (``y <= x_u + x_v``, ``y <= 2 - x_u - x_v``, ``y >= x_u - x_v``, ``y >= x_v - x_u``);
        node 0 is fixed to side 0 to break the symmetry. Maximise ``sum w_e y_e``."""
        from pyscipopt import Model

        model = Model(self.name or self.kind)
        x = [model.addVar(f"x{i}", vtype="B", ub=0.0 if i == 0 else 1.0) for i in build_range(self.n)]
        edges, weights = self.edges.tolist(), self.weights.tolist()
        for k in build_range(len(edges)):
            (u, v), w = edges[k], weights[k]
            y = model.addVar(f"y{k}", vtype="B", obj=w)
            model.addCons(y <= x[u] + x[v])
            model.addCons(y <= 2 - x[u] - x[v])
            model.addCons(y >= x[u] - x[v])
            model.addCons(y >= x[v] - x[u])
        model.setMaximize()
        return ExactModel(model, x, round_binary)

    def cpsat_model(self) -> ExactModel:
        """Booleans x_i, y_e = x_u XOR x_v (``AddBoolXOr`` on x_u, x_v, not y_e); weights scaled
        to integers when they are not (CP-SAT objectives may be floating point)."""
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        x = [model.new_bool_var(f"x{i}") for i in build_range(self.n)]
        model.add(x[0] == 0)
        ys = []
        edges = self.edges.tolist()
        for k in build_range(len(edges)):
            u, v = edges[k]
            y = model.new_bool_var(f"y{k}")
            model.add_bool_xor([x[u], x[v], y.Not()])
            ys.append(y)
        w = self.weights
        coeffs = w.astype(np.int64).tolist() if np.all(w == np.round(w)) else w.tolist()
        model.maximize(cp_model.LinearExpr.weighted_sum(ys, coeffs))
        return ExactModel(model, x, round_binary)


class MinimumDominatingSet(GraphProblem):
    """Minimise the number of selected nodes such that every node is selected or has a selected neighbour."""

    kind: ClassVar[str] = "mds"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        x = self._x(solution)
        dominated = x.astype(np.int32) + self.adjacency @ x.astype(np.int32)
        free = np.flatnonzero(dominated == 0)
        if free.size:
            return Evaluation(float(x.sum()), False, f"node {self._label(free[0])} is not dominated ({free.size} nodes)")
        return Evaluation(float(x.sum()), True)

    def _closed_neighborhoods(self) -> list[list[int]]:
        a = self.adjacency
        return [[i, *a.indices[a.indptr[i] : a.indptr[i + 1]].tolist()] for i in range(self.n)]

    def scip_model(self) -> ExactModel:
        """Binary x_i, ``x_i + sum_{j in N(i)} x_j >= 1`` per node, minimise ``sum x``."""
        from pyscipopt import Model, quicksum

        model = Model(self.name or self.kind)
        x = [model.addVar(f"x{i}", vtype="B", obj=1.0) for i in build_range(self.n)]
        closed = self._closed_neighborhoods()
        for i in build_range(self.n):
            model.addCons(quicksum(x[j] for j in closed[i]) >= 1, name=f"d{i}")
        model.setMinimize()
        return ExactModel(model, x, round_binary)

    def cpsat_model(self) -> ExactModel:
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        x = [model.new_bool_var(f"x{i}") for i in build_range(self.n)]
        closed = self._closed_neighborhoods()
        for i in build_range(self.n):
            model.add_bool_or([x[j] for j in closed[i]])
        model.minimize(sum(x))
        return ExactModel(model, x, round_binary)


def _max_pairwise_exclusive_scip(graph: GraphProblem, pairs: np.ndarray) -> ExactModel:
    """SCIP: maximise ``sum x`` over binary x with ``x_u + x_v <= 1`` for each pair (E, 2)."""
    from pyscipopt import Model

    model = Model(graph.name or graph.kind)
    x = [model.addVar(f"x{i}", vtype="B", obj=1.0) for i in build_range(graph.n)]
    pairs_list = pairs.tolist()
    for k in build_range(len(pairs_list)):
        u, v = pairs_list[k]
        model.addCons(x[u] + x[v] <= 1, name=f"p{k}")
    model.setMaximize()
    return ExactModel(model, x, round_binary)


def _max_pairwise_exclusive_cpsat(n: int, pairs: np.ndarray) -> ExactModel:
    """CP-SAT: maximise ``sum x`` over n Booleans with ``AddAtMostOne(x_u, x_v)`` for each pair."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in build_range(n)]
    pairs_list = pairs.tolist()
    for k in build_range(len(pairs_list)):
        u, v = pairs_list[k]
        model.add_at_most_one(x[u], x[v])
    model.maximize(sum(x))
    return ExactModel(model, x, round_binary)


GRAPH_PROBLEMS: dict[str, type[GraphProblem]] = {
    cls.kind: cls for cls in (MaximumIndependentSet, MaxCut, MaximumClique, MinimumDominatingSet)
}


_KINDS = {
    "mis": (
        "maximum independent set",
        "polish",
        "bench/results/graph-mis-peers: the NuMVC local search alone has the smallest mean gap on er-700-800 and frb "
        "at 1 s and 10 s (0.30%/0.00% and 1.10%/0.14%, three seeds), ahead of tabu (1.77%/0.30%, 2.58%/1.91%) and sa; "
        "the polished methods reach the references on rb-small and rb-large (bench/results/graph-peers)",
    ),
    "maxcut": (
        "maximum cut",
        "cam",
        "bench/results/graph-ablation: cam (polished) mean gap over ba-large and gset at 1 s and 10 s 0.18% against "
        "0.26% for polish alone and 0.23% for rlsa; ahead on ba-large (0.06% at 10 s, polish 0.25%), behind polish "
        "on gset (0.28%/0.13% against 0.19%/0.11%)",
    ),
    "maxclique": (
        "maximum clique",
        "rlsa",
        "bench/results/graph-peers: rlsa (polished), polish, cam, tabu and sa at the best known clique on all rb-small "
        "graphs at 1 s (greedy 1.82% off)",
    ),
    "mds": (
        "minimum dominating set",
        "scip",
        "bench/results/graph-peers: scip proves the optimum of the ba-small graphs in about a second; the polished "
        "methods reach the same values (0.00%), tabu and sa are 76-116% off",
    ),
}


def _tiny_graph(kind: str) -> GraphProblem:
    return GRAPH_PROBLEMS[kind](4, np.array([[0, 1], [1, 2], [2, 3]]), name="warm-up")


for _kind, (_title, _method, _why) in _KINDS.items():
    register_kind(
        ProblemKind(
            _kind,
            _title,
            formats=("dimacs", "rudy", "metis", "edgelist"),
            tiny=lambda kind=_kind: _tiny_graph(kind),
            exact=frozenset({"scip", "cpsat"}),
            default_method=_method,
            default_why=_why,
        )
    )
