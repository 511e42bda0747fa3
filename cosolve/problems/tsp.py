"""Symmetric TSP on points in the plane with TSPLIB EUC_2D distances.

A solution is a permutation of the cities 0..n-1 (int64, length ``n``): the visiting order of
a closed tour. Its objective is the tour length with ``d(i, j) = nint(||p_i - p_j||)``.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

import numpy as np

from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.base import Evaluation, ExactModel, Problem, build_range

#: Largest TSP for exact (minimum-cut) separation of fractional points in the SCIP model.
EXACT_SEPARATION_MAX_CITIES = 300


def euc2d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TSPLIB EUC_2D distance between point arrays of shape (..., 2): ``floor(dist + 0.5)``."""
    return np.floor(np.sqrt(((a - b) ** 2).sum(axis=-1)) + 0.5)


class TSP(Problem):
    """``coords``: (n, 2) float city coordinates, n >= 3."""

    kind: ClassVar[str] = "tsp"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(self, coords: np.ndarray, *, name: str = "") -> None:
        coords = np.asarray(coords, dtype=np.float64)
        if coords.ndim != 2 or coords.shape[1] != 2:
            raise InputError(f"tsp: coordinates must have shape (n, 2), got {coords.shape}")
        if len(coords) < 3:
            raise InputError(f"tsp: a tour needs at least 3 cities, got {len(coords)}")
        if not np.all(np.isfinite(coords)):
            raise InputError("tsp: coordinates must be finite")
        self.coords = coords
        self.name = name

    @property
    def n(self) -> int:
        return len(self.coords)

    @cached_property
    def distances(self) -> np.ndarray:
        """(n, n) EUC_2D distance matrix (float64, integral values)."""
        return self.distance_rows(0, self.n)

    def distance_rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of the EUC_2D distance matrix, (stop - start, n) float64."""
        from scipy.spatial.distance import cdist

        return np.floor(cdist(self.coords[start:stop], self.coords) + 0.5)

    def tour_length(self, tour: np.ndarray) -> float:
        p = self.coords[tour]
        return float(euc2d(p, np.roll(p, -1, axis=0)).sum())

    def sizes(self) -> dict[str, int]:
        return {"cities": self.n}

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        tour = np.asarray(solution)
        if tour.shape != (self.n,) or not np.issubdtype(tour.dtype, np.integer):
            raise InputError(f"tsp solution must be an integer permutation of length {self.n}, got shape {tour.shape}")
        seen = np.bincount(tour[(tour >= 0) & (tour < self.n)], minlength=self.n)
        if (tour < 0).any() or (tour >= self.n).any():
            return Evaluation(np.inf, False, f"tour has a city outside 1..{self.n}")
        if (seen != 1).any():
            missing = int(np.flatnonzero(seen == 0)[0])
            return Evaluation(self.tour_length(tour), False, f"city {missing + 1} is not visited exactly once")
        return Evaluation(self.tour_length(tour), True)

    def solution_lines(self, solution: np.ndarray) -> list[str]:
        """The tour order, one city per line, 1-based as in TSPLIB tour files."""
        return [str(c + 1) for c in np.asarray(solution).tolist()]

    def _edge_list(self) -> tuple[np.ndarray, np.ndarray]:
        i, j = np.triu_indices(self.n, k=1)
        return i, j

    def scip_model(self, *, compact: bool = False) -> ExactModel:
        """Symmetric DFJ model: binary x_e per edge, degree 2 at each city, and subtour
        elimination cuts ``sum_{e in delta(S)} x_e >= 2`` added lazily by a constraint handler:
        on integral solutions for each subtour, on fractional LP solutions for each component
        of the support graph or, up to ``EXACT_SEPARATION_MAX_CITIES`` cities, a global minimum
        cut of weight below 2 (exact separation; networkx's Stoer–Wagner takes about 0.1 s per
        round at 280 cities and 0.8 s at 500). Fractional separation is skipped once
        ``model.data["stop"]()`` is true, so that SCIP reaches its time-limit check.

        ``compact=True`` gives instead the directed Miller–Tucker–Zemlin model, which states the
        whole problem in rows (used for MPS export; much weaker, not for solving)."""
        if compact:
            return self._mtz_model()
        from pyscipopt import SCIP_RESULT, Conshdlr, Model, quicksum
        from scipy.sparse import coo_array
        from scipy.sparse.csgraph import connected_components

        n = self.n
        model = Model(self.name or "tsp")
        x = []  # edge variables in np.triu_indices(n, 1) order
        incident: list[list[int]] = [[] for _ in range(n)]
        for i in build_range(n, every=1):
            row = self.distance_rows(i, i + 1)[0].tolist()
            for j in range(i + 1, n):
                incident[i].append(len(x))
                incident[j].append(len(x))
                x.append(model.addVar(f"x{i + 1}_{j + 1}", vtype="B", obj=row[j]))
        iu, ju = self._edge_list()
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
                stop = (self.model.data or {}).get("stop")
                if stop is not None and stop():  # let SCIP reach its own time-limit check
                    return {"result": SCIP_RESULT.DIDNOTRUN}
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
        return ExactModel(model, x, decode)

    def _mtz_model(self) -> ExactModel:
        from pyscipopt import Model, quicksum

        n, d = self.n, self.distances
        model = Model(self.name or "tsp")
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

    def cpsat_model(self) -> ExactModel:
        """Boolean arc literals with ``AddCircuit`` (CP-SAT's global circuit constraint)."""
        from ortools.sat.python import cp_model

        n = self.n
        model = cp_model.CpModel()
        arcs, literals, src, dst, costs = [], [], [], [], []
        for i in build_range(n, every=1):
            row = self.distance_rows(i, i + 1)[0].astype(np.int64).tolist()
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
