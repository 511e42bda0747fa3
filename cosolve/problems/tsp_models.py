"""The exact models of the TSP: SCIP's DFJ model with its lazy subtour-elimination constraint
handler, the compact MTZ model for model files, and CP-SAT's circuit model."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from cosolve.core.problem import ExactModel, build_range

if TYPE_CHECKING:
    from cosolve.problems.tsp import TSP


#: Largest TSP for exact (minimum-cut) separation of fractional points in the SCIP model.
EXACT_SEPARATION_MAX_CITIES = 300


def dfj_model(tsp: TSP) -> ExactModel:
    """Symmetric DFJ model: binary x_e per edge, degree 2 at each city, and subtour
    elimination cuts ``sum_{e in delta(S)} x_e >= 2`` added lazily by a constraint handler:
    on integral solutions for each subtour, on fractional LP solutions for each component
    of the support graph or, up to ``EXACT_SEPARATION_MAX_CITIES`` cities, a global minimum
    cut of weight below 2 (exact separation; networkx's Stoer–Wagner takes about 0.1 s per
    round at 280 cities and 0.8 s at 500). Fractional separation is skipped once the solve's
    deadline has passed (the stop test the scip baseline hands to ``ExactModel.watch``), so that
    SCIP reaches its time-limit check."""
    from pyscipopt import SCIP_RESULT, Conshdlr, Model, quicksum
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    n = tsp.n
    model = Model(tsp.name or "tsp")
    x = []  # edge variables in np.triu_indices(n, 1) order
    incident: list[list[int]] = [[] for _ in range(n)]
    for i in build_range(n, every=1):
        row = tsp.distance_rows(i, i + 1)[0].tolist()
        for j in range(i + 1, n):
            incident[i].append(len(x))
            incident[j].append(len(x))
            x.append(model.addVar(f"x{i + 1}_{j + 1}", vtype="B", obj=row[j]))
    iu, ju = np.triu_indices(n, k=1)
    for i in range(n):
        model.addCons(quicksum(x[e] for e in incident[i]) == 2, name=f"deg{i + 1}")

    def components(values: np.ndarray) -> tuple[int, np.ndarray]:
        used = values > 0.5
        graph = coo_array((np.ones(used.sum()), (iu[used], ju[used])), shape=(n, n))
        return connected_components(graph, directed=False)

    def violated_sets(values: np.ndarray) -> list[np.ndarray]:
        """City sets S with ``x(delta(S)) < 2`` in a fractional point: the components of its
        support graph, or else (up to ``EXACT_SEPARATION_MAX_CITIES``) the side of a global
        minimum cut (Stoer–Wagner)."""
        import networkx as nx

        support = values > 1e-6
        graph = coo_array((values[support], (iu[support], ju[support])), shape=(n, n))
        count, label = connected_components(graph, directed=False)
        if count > 1:
            return [label == c for c in range(count)]
        if n > EXACT_SEPARATION_MAX_CITIES:
            return []
        g = nx.Graph()
        g.add_weighted_edges_from(zip(iu[support].tolist(), ju[support].tolist(), values[support].tolist(), strict=False))
        cut, (side, _) = nx.stoer_wagner(g)
        if cut < 2 - 1e-6:
            inside = np.zeros(n, dtype=bool)
            inside[side] = True
            return [inside]
        return []

    class SubtourElimination(Conshdlr):
        stop: Callable[[], bool] = staticmethod(lambda: False)  # the solve's deadline, once watched
        separated = 0  # separation rounds run on fractional points
        skipped = 0  # separation rounds skipped because the deadline had passed

        def _values(self, solution=None) -> np.ndarray:
            return np.array([self.model.getSolVal(solution, v) for v in x])

        def _add_cuts(self, sets: list[np.ndarray]) -> None:
            for inside in sets:
                crossing = np.flatnonzero(inside[iu] != inside[ju])
                self.model.addCons(quicksum(x[e] for e in crossing) >= 2, removable=True)

        def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
            count, _ = components(self._values(solution))
            return {"result": SCIP_RESULT.FEASIBLE if count == 1 else SCIP_RESULT.INFEASIBLE}

        def conssepalp(self, constraints, nusefulconss):
            if self.stop():  # let SCIP reach its own time-limit check
                self.skipped += 1
                return {"result": SCIP_RESULT.DIDNOTRUN}
            self.separated += 1
            sets = violated_sets(self._values())
            self._add_cuts(sets)
            return {"result": SCIP_RESULT.CONSADDED if sets else SCIP_RESULT.DIDNOTFIND}

        def consenfolp(self, constraints, nusefulconss, solinfeasible):
            count, label = components(self._values())
            if count == 1:
                return {"result": SCIP_RESULT.FEASIBLE}
            self._add_cuts([label == c for c in range(count)])
            return {"result": SCIP_RESULT.CONSADDED}

        def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
            count, _ = components(self._values())
            return {"result": SCIP_RESULT.FEASIBLE if count == 1 else SCIP_RESULT.INFEASIBLE}

        def conslock(self, constraint, locktype, nlockspos, nlocksneg):
            for v in x:
                self.model.addVarLocksType(v, locktype, nlockspos + nlocksneg, nlockspos + nlocksneg)

    handler = SubtourElimination()
    model.includeConshdlr(
        handler, "subtour", "TSP subtour elimination", sepapriority=1, enfopriority=-1, chckpriority=-1, sepafreq=1
    )
    model.addPyCons(model.createCons(handler, "subtour", modifiable=False))
    model.setMinimize()

    def decode(values: np.ndarray) -> np.ndarray:
        return tour_from_edges(n, iu[values > 0.5], ju[values > 0.5])

    model.data = {"subtour_handler": handler}  # keep the Python object alive while SCIP runs

    def watch(stop: Callable[[], bool]) -> None:
        handler.stop = stop

    return ExactModel(model, x, decode, watch=watch)


def mtz_model(tsp: TSP) -> ExactModel:
    """The directed Miller–Tucker–Zemlin model: states the whole problem in rows (for model files;
    much weaker than :func:`dfj_model`, not for solving)."""
    from pyscipopt import Model, quicksum

    n, d = tsp.n, tsp.distances
    model = Model(tsp.name or "tsp")
    arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
    y = {(i, j): model.addVar(f"y{i + 1}_{j + 1}", vtype="B", obj=float(d[i, j])) for i, j in arcs}
    u = [model.addVar(f"u{i + 1}", lb=1.0, ub=n - 1.0) for i in range(n)]
    for i in range(n):
        model.addCons(quicksum(y[i, j] for j in range(n) if j != i) == 1, name=f"out{i + 1}")
        model.addCons(quicksum(y[j, i] for j in range(n) if j != i) == 1, name=f"in{i + 1}")
    for i, j in arcs:
        if i and j:
            model.addCons(u[i] - u[j] + (n - 1) * y[i, j] <= n - 2, name=f"mtz{i + 1}_{j + 1}")
    model.setMinimize()
    variables = [y[a] for a in arcs]
    src = np.array([a[0] for a in arcs])
    dst = np.array([a[1] for a in arcs])

    def decode(values: np.ndarray) -> np.ndarray:
        used = values > 0.5
        return tour_from_edges(n, src[used], dst[used])

    return ExactModel(model, variables, decode)


def circuit_model(tsp: TSP) -> ExactModel:
    """Boolean arc literals with ``AddCircuit`` (CP-SAT's global circuit constraint)."""
    from ortools.sat.python import cp_model

    n = tsp.n
    model = cp_model.CpModel()
    arcs, literals, src, dst, costs = [], [], [], [], []
    for i in build_range(n, every=1):
        row = tsp.distance_rows(i, i + 1)[0].astype(np.int64).tolist()
        for j in range(n):
            if i != j:
                lit = model.new_bool_var(f"a{i + 1}_{j + 1}")
                arcs.append((i, j, lit))
                literals.append(lit)
                src.append(i)
                dst.append(j)
                costs.append(row[j])
    model.add_circuit(arcs)
    model.minimize(cp_model.LinearExpr.weighted_sum(literals, costs))
    src_a, dst_a = np.array(src), np.array(dst)

    def decode(values: np.ndarray) -> np.ndarray:
        used = values > 0.5
        return tour_from_edges(n, src_a[used], dst_a[used])

    return ExactModel(model, literals, decode)


def tour_from_edges(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Walk the cycle given by n undirected edges (a[k], b[k]) starting at city 0.

    Returns a length-n permutation; if the edges do not form one Hamiltonian cycle the walk
    stops early and the returned array repeats cities, which :meth:`TSP.evaluate` rejects.
    """
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for u, v in zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=False):
        nbrs[u].append(v)
        nbrs[v].append(u)
    tour = [0]
    prev, cur = -1, 0
    for _ in range(n - 1):
        nxt = next((v for v in nbrs[cur] if v != prev), None)
        if nxt is None:
            break
        tour.append(nxt)
        prev, cur = cur, nxt
    tour += [0] * (n - len(tour))
    return np.array(tour, dtype=np.int64)
