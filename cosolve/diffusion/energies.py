"""Penalised energies of the graph problems on {0,1}^N, vectorised over K chains.

Every energy here is multilinear (each monomial has each variable at most once), so for binary
``x`` the change of flipping node i is exact: ``E(flip_i x) - E(x) = (1 - 2 x_i) * dE/dx_i``.
States ``x`` have shape (K, N) (0/1 or in [0, 1]); energies (K,); gradients and gains (K, N).
Lower energy is better for every problem (maximisation problems are negated).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cosolve.problems.graphs import GraphProblem, MaxCut, MaximumClique, MaximumIndependentSet, MinimumDominatingSet

#: Default MIS edge penalty: slightly above 1, so that every local minimum is an independent set.
MIS_PENALTY = 1.02


class QuadraticEnergy:
    """``E(x) = c @ x + 0.5 * x @ Q @ x`` with Q symmetric, zero diagonal (sparse, N x N)."""

    def __init__(self, linear: np.ndarray, quadratic: sp.sparray) -> None:
        self.linear = np.asarray(linear, dtype=np.float64)
        self.quadratic = sp.csr_array(quadratic, dtype=np.float64)
        if self.quadratic.diagonal().any():
            raise ValueError("the quadratic part must have a zero diagonal")
        self.n = len(self.linear)

    def energy(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x).astype(np.float64)
        return x @ self.linear + 0.5 * np.einsum("kn,kn->k", x, (self.quadratic @ x.T).T)

    def node_energy(self, x: np.ndarray) -> np.ndarray:
        """Per-node shares (K, N) that sum to :meth:`energy`: ``x_i (c_i + 0.5 (Q x)_i)``."""
        x = np.atleast_2d(x).astype(np.float64)
        return x * (self.linear[None, :] + 0.5 * (self.quadratic @ x.T).T)

    def grad(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x).astype(np.float64)
        return self.linear[None, :] + (self.quadratic @ x.T).T

    def flip_gain(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x).astype(np.float64)
        return (1.0 - 2.0 * x) * self.grad(x)


class CoverEnergy:
    """``E(x) = sum_j c_j x_j + B * sum_i prod_{j covers i} (1 - x_j)``: the cost of the chosen
    columns plus B per uncovered row, for a 0/1 ``matrix`` (M rows x N columns) and ``costs`` (N,)."""

    def __init__(self, matrix: sp.sparray, costs: np.ndarray, *, penalty: float) -> None:
        self.rows = sp.csr_array(matrix, dtype=np.float64)
        self.columns = sp.csr_array(self.rows.T)
        self.costs = np.asarray(costs, dtype=np.float64)
        self.penalty = float(penalty)
        self.n = self.rows.shape[1]

    def _log_free(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log1p(-np.clip(x, 0.0, 1.0))

    def uncovered(self, x: np.ndarray) -> np.ndarray:
        """``prod_{j covers i} (1 - x_j)`` per chain and row (K, M): 1 for an uncovered row of a binary state."""
        x = np.atleast_2d(x).astype(np.float64)
        return np.exp((self.rows @ self._log_free(x).T).T)

    def energy(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x).astype(np.float64)
        return x @ self.costs + self.penalty * self.uncovered(x).sum(axis=1)

    def grad(self, x: np.ndarray) -> np.ndarray:
        """``c_k - B * sum_{i covered by k} prod_{j covers i, j != k} (1 - x_j)``; computed by counts
        for binary states (exact), and through the product for fractional ones (x_j < 1)."""
        x = np.atleast_2d(x).astype(np.float64)
        if np.all((x == 0) | (x == 1)):
            count = (self.rows @ x.T).T  # selected columns covering each row (K, M)
            grad = np.empty_like(x)
            for value in (0.0, 1.0):  # column k's own x_k is removed from the count of each of its rows
                free = (count - value == 0).astype(np.float64)
                grad_value = self.costs - self.penalty * (self.columns @ free.T).T
                grad = np.where(x == value, grad_value, grad)
            return grad
        others = (self.columns @ self.uncovered(x).T).T  # sum over rows i of k of prod over the row ...
        return self.costs - self.penalty * others / np.maximum(1.0 - x, 1e-12)  # ... divided by (1 - x_k)

    def flip_gain(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x).astype(np.float64)
        return (1.0 - 2.0 * x) * self.grad(x)


class DominatingSetEnergy(CoverEnergy):
    """``E(x) = A * sum_i x_i + B * sum_i prod_{j in N[i]} (1 - x_j)`` over closed
    neighbourhoods N[i]: the cost of the chosen nodes plus B per undominated node (a set cover
    whose rows and columns are the nodes)."""

    def __init__(self, closed: sp.sparray, *, node_cost: float = 1.0, penalty: float = 2.0) -> None:
        closed = sp.csr_array(closed, dtype=np.float64)  # symmetric N x N with unit diagonal
        super().__init__(closed, np.full(closed.shape[0], float(node_cost)), penalty=penalty)
        self.closed, self.node_cost = closed, float(node_cost)

    def node_energy(self, x: np.ndarray) -> np.ndarray:
        """Per-node shares (K, N) that sum to :meth:`energy`: ``A x_i + B prod_{j in N[i]} (1 - x_j)``."""
        x = np.atleast_2d(x).astype(np.float64)
        return self.node_cost * x + self.penalty * self.uncovered(x)


def energy_for(problem: GraphProblem, *, penalty: float | None = None) -> QuadraticEnergy | DominatingSetEnergy:
    """The energy of a graph problem: MIS ``-sum x + beta * sum_{ij in E} x_i x_j``; MaxClique the
    same on the complement; MaxCut ``-cut(x)``; MDS :class:`DominatingSetEnergy`."""
    n = problem.n
    if isinstance(problem, MaximumIndependentSet | MaximumClique):
        beta = MIS_PENALTY if penalty is None else penalty
        pairs = problem.complement_edges if isinstance(problem, MaximumClique) else problem.edges
        adjacency = _symmetric(n, pairs, np.ones(len(pairs)))
        return QuadraticEnergy(-np.ones(n), beta * adjacency)
    if isinstance(problem, MaxCut):
        weights = _symmetric(n, problem.edges, problem.weights)
        # cut(x) = sum_{ij} w_ij (x_i + x_j - 2 x_i x_j)  =>  -cut = -deg_w @ x + 0.5 x (2W) x
        return QuadraticEnergy(-np.asarray(weights.sum(axis=1)).ravel(), 2.0 * weights)
    if isinstance(problem, MinimumDominatingSet):
        closed = problem.adjacency + sp.eye_array(n, dtype=np.int8, format="csr")
        return DominatingSetEnergy(closed, penalty=2.0 if penalty is None else penalty)
    raise TypeError(f"no energy for {problem.kind}")


def _symmetric(n: int, pairs: np.ndarray, weights: np.ndarray) -> sp.csr_array:
    u, v = pairs[:, 0], pairs[:, 1]
    return sp.csr_array((np.r_[weights, weights], (np.r_[u, v], np.r_[v, u])), shape=(n, n))
