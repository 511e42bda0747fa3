"""``--plot FILE`` pictures of a solution: a TSP tour, or a jigsaw before and after reassembly."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from cosolve.errors import UsageError
from cosolve.problems.base import Problem

PLOTTABLE = ("tsp", "jigsaw")


def check_plot_format(path: str | os.PathLike) -> None:
    """UsageError unless ``path`` ends in an image format matplotlib writes (checked before any
    work, for every ``--plot`` of the CLI)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        given = repr(suffix) if suffix else "(no extension)"
        raise UsageError(f"--plot {path}: unknown picture format {given}; use one of: {', '.join(sorted(formats))}")


def check_plottable(problem: Problem) -> None:
    if problem.kind not in PLOTTABLE:
        raise UsageError(f"--plot: no picture for {problem.kind} problems (plots exist for: {', '.join(PLOTTABLE)})")


def plot_solution(problem: Problem, solution: np.ndarray, path: str, *, title: str = "") -> None:
    """Write the picture of ``solution`` to ``path`` (format from its extension, e.g. .png, .pdf)."""
    check_plottable(problem)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if problem.kind == "tsp":
        fig, ax = plt.subplots(figsize=(6, 6))
        tour = np.asarray(solution)
        xy = problem.coords[np.append(tour, tour[0])]
        ax.plot(xy[:, 0], xy[:, 1], "-", lw=1, color="tab:blue")
        ax.plot(problem.coords[:, 0], problem.coords[:, 1], "o", ms=3, color="black")
        ax.set_aspect("equal")
        ax.set_title(title or f"{problem.name}: tour length {problem.tour_length(tour):g}")
    else:
        fig, axes = plt.subplots(1, 2, figsize=(10, 5))
        shown = [(np.arange(problem.n), "shuffled"), (np.asarray(solution), "reassembled")]
        for ax, (perm, label) in zip(axes, shown, strict=True):
            image = np.clip(problem.reassemble(perm), 0.0, 1.0)
            ax.imshow(image[..., 0] if image.shape[-1] == 1 else image[..., :3], cmap="gray", vmin=0, vmax=1)
            ax.set_title(f"{label}: discontinuity {problem.discontinuity(perm):.3g}")
            ax.axis("off")
        fig.suptitle(title or problem.name)
    fig.tight_layout()
    from cosolve.io.solution import atomic_path

    try:
        with atomic_path(path) as tmp:  # an existing picture stays as it was if the write fails
            fig.savefig(tmp, dpi=120, format=Path(path).suffix.lower().lstrip("."))
    finally:
        plt.close(fig)
