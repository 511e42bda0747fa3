"""Wealth curves of backtests on one picture (matplotlib, imported only when drawing)."""

from __future__ import annotations

import os

import numpy as np


def plot_wealth(curves: dict[str, np.ndarray], path: str | os.PathLike, title: str = "") -> None:
    """Write the cumulative wealth curves ``curves`` (label -> (T,) wealth after each day) to
    ``path`` (format from its extension, e.g. .png, .pdf), days on x, wealth on a log y axis,
    each curve starting from wealth 1 on day 0."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    fig, ax = plt.subplots(figsize=(8, 4.5))
    low, high = 1.0, 1.0
    for i, (label, wealth) in enumerate(curves.items()):
        w = np.concatenate([[1.0], np.asarray(wealth, dtype=np.float64)])
        style = ("-", "--", ":")[(i // 10) % 3]  # the colour cycle has 10 colours
        ax.plot(np.arange(w.size), w, lw=1.2, ls=style, label=f"{label} ({w[-1]:.4g})")
        low, high = min(low, w.min()), max(high, w.max())
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    if high / low < 30:  # within about a decade: label the 2s, 3s and 5s too
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 3.0, 5.0)))
        ax.yaxis.set_minor_formatter(plain)
    ax.set_xlabel("trading day")
    ax.set_ylabel("cumulative wealth (log scale)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
