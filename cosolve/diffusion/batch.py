"""A disjoint union of graph problems of one kind, the unit the samplers and the trainer work on.

Nodes of graph b occupy ``offsets[b]:offsets[b + 1]``. The energy of the union is the sum of the
graphs' energies (block-diagonal), so one sampler step moves every graph of the batch at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from cosolve.diffusion.energies import DominatingSetEnergy, QuadraticEnergy, energy_for
from cosolve.problems.graphs import GraphProblem, MaxCut, MaximumClique


class GraphBatch:
    """Graphs ``problems`` (all of one kind) as one graph of ``n`` nodes."""

    def __init__(self, problems: Sequence[GraphProblem], *, penalty: float | None = None) -> None:
        if not problems:
            raise ValueError("a batch needs at least one graph")
        kinds = {p.kind for p in problems}
        if len(kinds) != 1:
            raise ValueError(f"a batch holds one problem kind, got {sorted(kinds)}")
        self.problems = list(problems)
        self.kind = problems[0].kind
        self.offsets = np.r_[0, np.cumsum([p.n for p in problems])]
        self.n = int(self.offsets[-1])
        self.penalty = penalty

    def __len__(self) -> int:
        return len(self.problems)

    @cached_property
    def energy(self) -> QuadraticEnergy | DominatingSetEnergy:
        parts = [energy_for(p, penalty=self.penalty) for p in self.problems]
        if isinstance(parts[0], QuadraticEnergy):
            return QuadraticEnergy(np.concatenate([e.linear for e in parts]), sp.block_diag([e.quadratic for e in parts], "csr"))
        return DominatingSetEnergy(
            sp.block_diag([e.closed for e in parts], "csr"), node_cost=parts[0].node_cost, penalty=parts[0].penalty
        )

    @cached_property
    def coupling(self) -> sp.csr_array:
        """Weighted adjacency (N x N) the policy passes messages on: the graph itself, its
        complement for MaxClique (whose energy lives there), edge weights for MaxCut."""
        blocks = []
        for p in self.problems:
            pairs = p.complement_edges if isinstance(p, MaximumClique) else p.edges
            w = p.weights if isinstance(p, MaxCut) else np.ones(len(pairs))
            u, v = pairs[:, 0], pairs[:, 1]
            blocks.append(sp.csr_array((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(p.n, p.n)))
        return sp.csr_array(sp.block_diag(blocks, "csr"), dtype=np.float64)

    def per_graph(self, values: np.ndarray) -> np.ndarray:
        """Sums of node values (K, N) over each graph: (K, B)."""
        return np.add.reduceat(np.atleast_2d(values), self.offsets[:-1], axis=1)

    def graph_energies(self, x: np.ndarray) -> np.ndarray:
        """Energy of each graph in each chain (K, B)."""
        return self.per_graph(self.energy.node_energy(x))

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        """Node values (K, N) cut into one (K, n_b) block per graph."""
        return [np.atleast_2d(values)[:, a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:], strict=True)]
