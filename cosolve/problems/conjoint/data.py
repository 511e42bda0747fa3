"""A conjoint experiment in long format, as arrays: :class:`ConjointData`, one row per profile (a
candidate shown to a respondent) over a :class:`~cosolve.problems.conjoint.design.Design`.

Reading one from a CSV file (and the bundled data set) is :mod:`cosolve.io.conjoint_csv`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cosolve.core.lazy_exports import lazy_exports
from cosolve.errors import InputError, UsageError
from cosolve.problems.conjoint.design import Design


@dataclass
class ConjointData:
    """A conjoint experiment, one row per profile (N rows).

    ``X`` (N, D) int level codes of ``design``; ``y`` (N,) float outcome; ``respondent`` (N,) int
    cluster codes ``0..R-1``; ``pair`` (N,) int pair (task) codes ``0..M-1`` and ``profile`` (N,) int
    position ``0``/``1`` of the row within its pair, or both None (single-profile ratings);
    ``covariates`` the file's other columns (N,) as read; ``source`` the file (or generator) they
    came from, which errors name, and ``lines`` (N,) each row's line in that file (None when
    generated).
    """

    design: Design
    X: np.ndarray
    y: np.ndarray
    respondent: np.ndarray
    pair: np.ndarray | None = None
    profile: np.ndarray | None = None
    covariates: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = ""
    lines: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.y)
        if np.shape(self.X) != (n, self.design.n_factors) or np.shape(self.respondent) != (n,):
            raise ValueError(f"X must be (N, {self.design.n_factors}) and respondent (N,) with N = len(y) = {n}")
        if (self.pair is None) != (self.profile is None):
            raise ValueError("pair and profile are both given or both None")
        if self.pair is not None and (np.shape(self.pair) != (n,) or np.shape(self.profile) != (n,)):
            raise ValueError(f"pair and profile must be (N,) with N = {n}")

    def __len__(self) -> int:
        return len(self.y)

    @property
    def n_respondents(self) -> int:
        return int(np.unique(self.respondent).size)

    @property
    def n_pairs(self) -> int:
        """Number of pairs (tasks); 0 without pairs."""
        return 0 if self.pair is None else int(np.unique(self.pair).size)

    def pair_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Row indices ``(a, b)`` (M,) each: ``a[k]`` is the position-0 profile of pair ``k``, ``b[k]``
        the position-1 profile (pairs in code order)."""
        if self.pair is None:
            raise InputError("the data have no pairs (a pair column is needed for this)", where=self.source)
        m = int(self.pair.max()) + 1
        a = np.full(m, -1, dtype=np.int64)
        b = np.full(m, -1, dtype=np.int64)
        rows = np.arange(len(self))
        a[self.pair[self.profile == 0]] = rows[self.profile == 0]
        b[self.pair[self.profile == 1]] = rows[self.profile == 1]
        return a, b

    def subset(self, mask: np.ndarray) -> ConjointData:
        """The rows where the boolean ``mask`` (N,) holds, over the same design (codes of
        respondents and pairs renumbered from 0). If the mask keeps one profile of some pair, the
        result has no pairs (``pair`` and ``profile`` None): fine for the stacked linear model, not for
        the pair logit."""
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (len(self),):
            raise UsageError(f"subset needs a boolean mask of shape ({len(self)},), got {mask.dtype} {mask.shape}")
        if not mask.any():
            raise InputError("the subset keeps no rows", where=self.source)
        pair = profile = None
        if self.pair is not None:
            kept = np.bincount(self.pair[mask], minlength=int(self.pair.max()) + 1)
            if np.all((kept == 0) | (kept == 2)):
                pair = np.unique(self.pair[mask], return_inverse=True)[1].astype(np.int64)
                profile = self.profile[mask]
        respondent = np.unique(self.respondent[mask], return_inverse=True)[1].astype(np.int64)
        covariates = {k: v[mask] for k, v in self.covariates.items()}
        lines = None if self.lines is None else self.lines[mask]
        return ConjointData(self.design, self.X[mask], self.y[mask], respondent, pair, profile, covariates, self.source, lines)


# Names that moved to cosolve.io.conjoint_csv (reading files is io's job, a layer above this one):
# the old path still gives them, with a deprecation warning, forwarded by name so that this module
# imports nothing of io.
__getattr__, _ = lazy_exports(
    __name__,
    dict.fromkeys(
        ("read_conjoint", "resolve_data", "bundled_datasets", "bundled_conjoint", "natural_key", "BUNDLED_DIR", "BUNDLED_FILE"),
        "cosolve.io.conjoint_csv",
    ),
    moved=True,
)
