"""``--plot FILE``: a picture of a solution, drawn by its problem kind (where the kind has one)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from cosolve.core.problem import Problem
from cosolve.errors import UsageError


def check_plot_format(path: str | os.PathLike) -> None:
    """UsageError unless ``path`` ends in an image format matplotlib writes (checked before any
    work, for every ``--plot`` of the CLI)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        given = repr(suffix) if suffix else "(no extension)"
        raise UsageError(f"--plot {path}: unknown picture format {given}; use one of: {', '.join(sorted(formats))}")


def plottable() -> list[str]:
    """The problem kinds that draw a picture of their solutions."""
    from cosolve.problems.registry import problem_kinds

    return [name for name, kind in problem_kinds().items() if kind.plot is not None]


def check_plottable(problem: Problem) -> None:
    """UsageError unless ``problem``'s solutions can be drawn (checked before solving)."""
    if problem.kind not in plottable():
        raise UsageError(f"--plot: no picture for {problem.kind} problems (plots exist for: {', '.join(plottable())})")
    if (why := problem.undrawable()) is not None:
        raise UsageError(f"--plot: {why}")


def plot_solution(problem: Problem, solution: np.ndarray, path: str, *, title: str = "") -> None:
    """Write the picture of ``solution`` to ``path`` (format from its extension, e.g. .png, .pdf)."""
    from cosolve.problems.registry import get_kind

    check_plottable(problem)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = get_kind(problem.kind).plot(problem, solution, title)
    fig.tight_layout()
    from cosolve.io.files import atomic_path

    try:
        with atomic_path(path) as tmp:  # an existing picture stays as it was if the write fails
            fig.savefig(tmp, dpi=120, format=Path(path).suffix.lower().lstrip("."))
    finally:
        plt.close(fig)
