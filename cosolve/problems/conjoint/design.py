"""A factorial conjoint design and the features of the outcome models.

Factors ``d = 0..D-1`` with levels ``0..L_d-1``; level 0 of every factor is its baseline, dropped
from the dummies. A profile is an int vector of level codes (D,). Features ``phi(x)`` (P,), in this
order:

- main effects: for each factor ``d``, the dummies of levels ``1..L_d-1``;
- two-way interactions (when asked for): for each pair of factors ``d < e`` in order, the products
  of their non-baseline dummies, ``(l, m)`` row-major with ``l`` in ``1..L_d-1``, ``m`` in ``1..L_e-1``.

A stochastic policy ``pi`` is a product of categoricals: a list of D probability vectors
``pi[d]`` (L_d,). Under ``pi`` the levels are independent, so ``E_pi[phi]`` is ``pi[d][l]`` for a
main effect and ``pi[d][l] * pi[e][m]`` for an interaction (:meth:`Design.expected_features`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Design:
    """``factors`` (D,) names; ``levels[d]`` the level names of factor ``d`` (baseline first);
    ``p0[d]`` (L_d,) the randomisation probabilities of its levels."""

    factors: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    p0: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        if len(self.factors) != len(self.levels) or len(self.levels) != len(self.p0):
            raise ValueError("factors, levels and p0 must have one entry per factor")
        for name, levels, p in zip(self.factors, self.levels, self.p0, strict=True):
            if len(levels) < 2:
                raise ValueError(f"factor {name!r} needs at least 2 levels, has {len(levels)}")
            if np.shape(p) != (len(levels),) or abs(float(np.sum(p)) - 1) > 1e-9 or np.min(p) < 0:
                raise ValueError(f"p0 of factor {name!r} must be a distribution over its {len(levels)} levels")

    @classmethod
    def uniform(cls, factors: list[str], levels: list[list[str]]) -> Design:
        return cls(tuple(factors), tuple(tuple(lv) for lv in levels), tuple(np.full(len(lv), 1.0 / len(lv)) for lv in levels))

    @property
    def n_factors(self) -> int:
        return len(self.factors)

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """Number of levels per factor, (D,)."""
        return tuple(len(lv) for lv in self.levels)

    @cached_property
    def main_offsets(self) -> np.ndarray:
        """Start of each factor's main-effect block in the features, (D + 1,)."""
        return np.concatenate([[0], np.cumsum([s - 1 for s in self.sizes])]).astype(np.int64)

    @cached_property
    def level_offsets(self) -> np.ndarray:
        """Start of each factor's levels in a stacked policy ``x`` (n_levels,), (D + 1,)."""
        return np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)

    @property
    def n_main(self) -> int:
        return int(self.main_offsets[-1])

    @cached_property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """Factor pairs ``(d, e)``, ``d < e``, in feature order."""
        D = self.n_factors
        return tuple((d, e) for d in range(D) for e in range(d + 1, D))

    @cached_property
    def pair_offsets(self) -> np.ndarray:
        """Start of each pair's interaction block, (len(pairs) + 1,), counted from ``n_main``."""
        sizes = [(self.sizes[d] - 1) * (self.sizes[e] - 1) for d, e in self.pairs]
        return self.n_main + np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def n_features(self, interactions: bool) -> int:
        return int(self.pair_offsets[-1]) if interactions else self.n_main

    def feature_names(self, interactions: bool) -> list[str]:
        names = [f"{self.factors[d]}={self.levels[d][j]}" for d in range(self.n_factors) for j in range(1, self.sizes[d])]
        if interactions:
            for d, e in self.pairs:
                for j in range(1, self.sizes[d]):
                    for m in range(1, self.sizes[e]):
                        names.append(f"{self.factors[d]}={self.levels[d][j]}:{self.factors[e]}={self.levels[e][m]}")
        return names

    def features(self, X: np.ndarray, interactions: bool) -> np.ndarray:
        """``phi`` of the profiles ``X`` (N, D) int level codes, as an (N, P) float array."""
        return self.feature_matrix(X, interactions).toarray()

    def feature_columns(self, X: np.ndarray, interactions: bool) -> np.ndarray:
        """The feature held by each profile in each block (N, D + len(pairs) with interactions, else
        (N, D)) int32: the column of its level's dummy per factor, then of its levels' product per pair,
        or -1 where a baseline makes it 0. Columns increase along a row."""
        X = np.ascontiguousarray(np.asarray(X, dtype=np.int32).T)  # (D, N): factors contiguous
        D, pairs = self.n_factors, self.pairs if interactions else ()
        out = np.empty((D + len(pairs), X.shape[1]), dtype=np.int32)  # built a block per row, returned transposed
        out[:D] = np.where(X > 0, self.main_offsets[:-1][:, None].astype(np.int32) + X - 1, -1)
        for k, (d, e) in enumerate(pairs):
            col = out[D + k]
            np.multiply(X[d] - 1, self.sizes[e] - 1, out=col)
            col += X[e] + (int(self.pair_offsets[k]) - 1)
            col[(X[d] == 0) | (X[e] == 0)] = -1
        return out.T

    def feature_matrix(self, X: np.ndarray, interactions: bool):
        """``phi`` of the profiles ``X`` (N, D) as a sparse (N, P) CSR matrix of 0/1 (at most
        ``D + D (D - 1) / 2`` non-zeros a row)."""
        import scipy.sparse

        cols = self.feature_columns(X, interactions)
        held = cols >= 0
        indptr = np.concatenate([[0], np.cumsum(held.sum(axis=1))])
        indices = cols[held]
        shape = (cols.shape[0], self.n_features(interactions))
        return scipy.sparse.csr_matrix((np.ones(indices.size), indices, indptr), shape=shape)

    def expected_features(self, pi: list[np.ndarray], interactions: bool) -> np.ndarray:
        """``E_pi[phi]`` (P,) for the product policy ``pi`` (list of D arrays (L_d,))."""
        main = np.concatenate([np.asarray(p, dtype=np.float64)[1:] for p in pi])
        if not interactions:
            return main
        parts = [main]
        for d, e in self.pairs:
            parts.append(np.outer(pi[d][1:], pi[e][1:]).ravel())
        return np.concatenate(parts)
