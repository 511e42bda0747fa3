"""Jigsaw reassembly: square pieces of an image, shuffled, to be put back on their grid.

An instance holds ``pieces`` (p, s, s, c) float in [0, 1] for a ``rows x cols`` grid (p = rows *
cols). A solution is a permutation ``perm`` (int64, length p) with ``perm[i]`` the grid position
(row-major) of piece ``i``. Its objective is the *discontinuity* of the reassembled image: over
every pair of horizontally or vertically adjacent positions, the prediction-based dissimilarity of
the two pieces' touching edges (Pomeranz et al. 2011: each edge is extrapolated one pixel across
the seam from its last two pixel lines and compared, as a mean of squared differences, with the
other piece's first line; both directions averaged). It needs no ground truth; when the shuffle is
known (``truth``) the metrics compare with it, since a flat region can make several arrangements
equally continuous.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from cosolve.core.problem import Evaluation, Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.problems.registry import ProblemKind, register_kind
from cosolve.problems.sorting import check_permutation


def _edge_dissimilarity(a_last: np.ndarray, a_prev: np.ndarray, b_first: np.ndarray, b_next: np.ndarray) -> np.ndarray:
    """(p, p) dissimilarity of piece ``i``'s edge against piece ``j``'s opposite edge, from their
    two outermost pixel lines ``(p, s, c)`` each: mean squared error of each side's extrapolation
    against the other side's first line, averaged over both directions."""
    pred_ab = 2.0 * a_last - a_prev  # what piece i predicts just past its edge
    pred_ba = 2.0 * b_first - b_next
    p = a_last.shape[0]
    flat = lambda x: x.reshape(p, -1)  # noqa: E731
    ab = ((flat(pred_ab)[:, None, :] - flat(b_first)[None, :, :]) ** 2).mean(-1)
    ba = ((flat(pred_ba)[None, :, :] - flat(a_last)[:, None, :]) ** 2).mean(-1)
    return 0.5 * (ab + ba)


#: channel counts a piece may have: grey, RGB, RGBA
CHANNELS = (1, 3, 4)


def unit_pixels(values: np.ndarray) -> np.ndarray:
    """float64 pixels from uint8 ``values`` (divided by 255) or float ones (kept, to be checked in
    [0, 1] by :class:`Jigsaw`); InputError for any other dtype."""
    values = np.asarray(values)
    if values.dtype == np.uint8:
        return values.astype(np.float64) / 255.0
    if values.dtype.kind != "f":
        raise InputError(f"jigsaw: pixels must be uint8 or float in [0, 1], got {values.dtype}")
    return values.astype(np.float64)


def grid_adjacency(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Of a ``rows x cols`` grid (positions row-major): the position pairs (a, b) with b right of
    a, and those with b below a: two (k, 2) int64 arrays."""
    at = np.arange(rows * cols).reshape(rows, cols)
    right = np.stack([at[:, :-1].ravel(), at[:, 1:].ravel()], axis=1)
    below = np.stack([at[:-1].ravel(), at[1:].ravel()], axis=1)
    return right.astype(np.int64), below.astype(np.int64)


class Jigsaw(Problem):
    """``pieces`` (p, s, s) or (p, s, s, c) in [0, 1], ``grid`` = (rows, cols) with rows * cols = p
    and s >= 2; ``truth`` (p,) the true position of each piece, if known."""

    kind: ClassVar[str] = "jigsaw"
    sense: ClassVar[Sense] = Sense.MINIMIZE

    def __init__(self, pieces: np.ndarray, grid: tuple[int, int], *, truth: np.ndarray | None = None, name: str = "") -> None:
        pieces = np.asarray(pieces, dtype=np.float64)
        if pieces.ndim == 3:
            pieces = pieces[..., None]
        if pieces.ndim != 4 or pieces.shape[1] != pieces.shape[2] or pieces.shape[1] < 2:
            raise InputError(f"jigsaw: pieces must have shape (p, s, s[, c]) with s >= 2, got {pieces.shape}")
        if pieces.shape[3] not in CHANNELS:
            raise InputError(f"jigsaw: pieces must have 1 (grey), 3 (RGB) or 4 (RGBA) channels, got {pieces.shape[3]}")
        rows, cols = (int(v) for v in grid)
        if rows < 1 or cols < 1:
            raise InputError(f"jigsaw: the grid needs at least 1 row and 1 column, got {rows} x {cols}")
        if rows * cols != len(pieces) or len(pieces) < 2:
            raise InputError(
                f"jigsaw: a {rows} x {cols} grid holds {rows * cols} piece(s), got {len(pieces)} (a puzzle needs at least 2)"
            )
        if not np.all(np.isfinite(pieces)):
            raise InputError("jigsaw: pixel values must be finite")
        if pieces.min() < 0.0 or pieces.max() > 1.0:
            raise InputError(
                f"jigsaw: pixel values must lie in [0, 1], got {pieces.min():g} .. {pieces.max():g} "
                "(give uint8 images, or floats scaled to [0, 1])"
            )
        self.pieces, self.grid, self.name = pieces, (rows, cols), name
        self.truth = None
        if truth is not None:
            checked = check_permutation(np.asarray(truth), len(pieces), "jigsaw truth")
            if isinstance(checked, str):
                raise InputError(f"jigsaw: truth is not a permutation: {checked}")
            self.truth = checked

    @property
    def n(self) -> int:
        return len(self.pieces)

    def sizes(self) -> dict[str, int]:
        return {"pieces": self.n, "rows": self.grid[0], "columns": self.grid[1], "piece_size": self.pieces.shape[1]}

    def pieces_in_place(self, solution: np.ndarray) -> int:
        """How many pieces ``solution`` (a position per piece) puts at their ``truth`` position."""
        if self.truth is None:
            raise ValueError("pieces_in_place needs the true arrangement (truth)")
        return int(np.count_nonzero(np.asarray(solution) == self.truth))

    def info(self) -> dict[str, Any]:
        """The base summary plus the channel count and whether the true arrangement is known."""
        return {**super().info(), "channels": self.pieces.shape[3], "truth": "yes" if self.truth is not None else "no"}

    @cached_property
    def horizontal(self) -> np.ndarray:
        """(p, p): dissimilarity of piece i placed immediately left of piece j."""
        x = self.pieces
        return _edge_dissimilarity(x[:, :, -1], x[:, :, -2], x[:, :, 0], x[:, :, 1])

    @cached_property
    def vertical(self) -> np.ndarray:
        """(p, p): dissimilarity of piece i placed immediately above piece j."""
        x = self.pieces
        return _edge_dissimilarity(x[:, -1], x[:, -2], x[:, 0], x[:, 1])

    def adjacency(self) -> tuple[np.ndarray, np.ndarray]:
        """Position pairs (a, b), b right of a, and (a, b), b below a: two (k, 2) int64 arrays."""
        return grid_adjacency(*self.grid)

    def discontinuity(self, perm: np.ndarray) -> float:
        piece_at = np.empty(self.n, np.int64)
        piece_at[perm] = np.arange(self.n)
        right, below = self.adjacency()
        h = self.horizontal[piece_at[right[:, 0]], piece_at[right[:, 1]]].sum()
        v = self.vertical[piece_at[below[:, 0]], piece_at[below[:, 1]]].sum()
        return float(h + v)

    def evaluate(self, solution: np.ndarray) -> Evaluation:
        perm = check_permutation(solution, self.n, "jigsaw")
        if isinstance(perm, str):
            return Evaluation(np.inf, False, perm)
        return Evaluation(self.discontinuity(perm), True)

    def reassemble(self, perm: np.ndarray) -> np.ndarray:
        """The image (rows * s, cols * s, c) with piece ``i`` at position ``perm[i]``."""
        rows, cols = self.grid
        s, c = self.pieces.shape[1], self.pieces.shape[3]
        image = np.empty((rows * s, cols * s, c))
        for i, pos in enumerate(np.asarray(perm).tolist()):
            r, q = divmod(pos, cols)
            image[r * s : (r + 1) * s, q * s : (q + 1) * s] = self.pieces[i]
        return image


def cut(image: np.ndarray, k: int, *, seed: int = 0, name: str = "") -> Jigsaw:
    """Cut ``image`` (h, w[, c], uint8 or float in [0, 1]) into a k x k grid of square pieces (the
    largest centred square crop divisible by k), shuffled by ``seed``; the truth is kept."""
    img = unit_pixels(image)
    if img.ndim == 2:
        img = img[..., None]
    if img.ndim != 3 or k < 1:
        raise InputError(f"jigsaw: need an (h, w[, c]) image and k >= 1, got shape {np.asarray(image).shape} and k = {k}")
    side = (min(img.shape[:2]) // k) * k
    if side // max(k, 1) < 2:
        raise InputError(f"jigsaw: a {img.shape[0]} x {img.shape[1]} image is too small for {k} x {k} pieces")
    top, left = (img.shape[0] - side) // 2, (img.shape[1] - side) // 2
    img = img[top : top + side, left : left + side]
    s = side // k
    ordered = img.reshape(k, s, k, s, -1).transpose(0, 2, 1, 3, 4).reshape(k * k, s, s, -1)
    order = np.random.default_rng(seed).permutation(k * k)  # shuffled piece i is original piece order[i]
    return Jigsaw(ordered[order], (k, k), truth=order.astype(np.int64), name=name)


def draw_reassembly(problem: Jigsaw, perm: np.ndarray, title: str = ""):  # -> matplotlib.figure.Figure
    """A picture of the puzzle before (pieces in file order) and after the arrangement ``perm``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    shown = [(np.arange(problem.n), "shuffled"), (np.asarray(perm), "reassembled")]
    for ax, (order, label) in zip(axes, shown, strict=True):
        image = np.clip(problem.reassemble(order), 0.0, 1.0)
        ax.imshow(image[..., 0] if image.shape[-1] == 1 else image[..., :3], cmap="gray", vmin=0, vmax=1)
        ax.set_title(f"{label}: discontinuity {problem.discontinuity(order):.3g}")
        ax.axis("off")
    fig.suptitle(title or problem.name)
    return fig


def truth_extras(problem: Jigsaw, perm: np.ndarray) -> dict[str, Any]:
    """How many pieces ``perm`` puts in place, when the file holds the true arrangement."""
    if problem.truth is None:
        return {}
    return {"pieces_in_place": problem.pieces_in_place(perm), "pieces": problem.n}


register_kind(
    ProblemKind(
        "jigsaw",
        "jigsaw reassembly",
        formats=("jigsaw",),
        tiny=lambda: cut(np.arange(64.0).reshape(8, 8) / 64.0, 2, seed=1, name="warm-up"),
        default_method="gumbel-sinkhorn",
        default_why="the one method for it (bench/results/sinkhorn.md)",
        plot=draw_reassembly,
        extras=truth_extras,
    )
)
