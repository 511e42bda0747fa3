"""Sorting as a permutation problem: put a sequence of numbers in increasing order.

A solution is a permutation ``perm`` (int64, length ``n``) with ``perm[i]`` the position that item
``i`` takes; the reordered sequence is ``y[perm[i]] = values[i]``. Its objective is the number of
out-of-order pairs (inversions) of ``y``: 0 exactly when ``y`` is sorted. ``numpy.argsort`` solves it
exactly, so there is no MIP model; the family exists to train and test permutation learners.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind


def check_permutation(solution: np.ndarray, n: int, what: str) -> np.ndarray | str:
    """``solution`` as int64 if it is a permutation of 0..n-1, else the reason it is not (raises
    :class:`InputError` on a wrong shape or type)."""
    perm = np.asarray(solution)
    if perm.shape != (n,) or (n and not np.issubdtype(perm.dtype, np.integer)):
        raise InputError(f"{what} solution must be an integer permutation of length {n}, got shape {perm.shape}")
    if n and ((perm < 0).any() or (perm >= n).any()):
        return f"position {int(perm[(perm < 0) | (perm >= n)][0])} is outside 0..{n - 1}"
    counts = np.bincount(perm, minlength=n)
    if (counts != 1).any():
        return f"position {int(np.flatnonzero(counts != 1)[0])} is not taken exactly once"
    return perm.astype(np.int64, copy=False)


def inversions(y: np.ndarray) -> int:
    """The number of pairs ``k < l`` with ``y[k] > y[l]`` (O(n log n) by merge counting)."""
    y = np.asarray(y)
    if y.size < 2:
        return 0
    mid = y.size // 2
    left, right = y[:mid], y[mid:]
    count = inversions(left) + inversions(right)
    left_sorted = np.sort(left, kind="stable")
    # for each right element, the left elements greater than it
    count += int((left_sorted.size - np.searchsorted(left_sorted, right, side="right")).sum())
    return count


class Sorting(Problem):
    """``values``: (n,) finite floats, n >= 1."""

    kind: ClassVar[str] = "sorting"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(self, values: np.ndarray, *, name: str = "") -> None:
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 1 or values.size < 1:
            raise InputError(f"sorting: values must be a non-empty 1-d array, got shape {values.shape}")
        if not np.all(np.isfinite(values)):
            raise InputError("sorting: values must be finite")
        self.values = values
        self.name = name

    @property
    def n(self) -> int:
        return int(self.values.size)

    def sizes(self) -> dict[str, int]:
        return {"items": self.n}

    def true_permutation(self) -> np.ndarray:
        """The sorting permutation (ties broken by index): ``perm[i]`` = rank of item ``i``."""
        perm = np.empty(self.n, np.int64)
        perm[np.argsort(self.values, kind="stable")] = np.arange(self.n)
        return perm

    def reorder(self, perm: np.ndarray) -> np.ndarray:
        y = np.empty_like(self.values)
        y[perm] = self.values
        return y

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        perm = check_permutation(solution, self.n, "sorting")
        if isinstance(perm, str):
            return Evaluation(np.inf, False, perm)
        return Evaluation(float(inversions(self.reorder(perm))), True)


register_kind(
    ProblemKind(
        "sorting",
        "sorting by a learned permutation",
        tiny=lambda: Sorting(np.array([0.3, 0.1, 0.2]), name="warm-up"),
        default_method="gumbel-sinkhorn",
        default_why="the one method for it (bench/results/sinkhorn.md)",
    )
)
