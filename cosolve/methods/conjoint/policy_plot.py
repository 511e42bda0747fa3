"""Plot conjoint policies against the randomisation ``p0``, with 95% intervals."""

from __future__ import annotations

import math
import os

import numpy as np

from cosolve.problems.conjoint.design import Design


def plot_policies(
    design: Design, policies: dict[str, tuple[list[np.ndarray], list[np.ndarray]]], path: str | os.PathLike, title: str = ""
) -> None:
    """One panel per factor: for each level a bar per policy (label -> (pi, se), lists of (L_d,))
    with a +-1.96 se interval, and a black tick at ``p0``. Written to ``path`` (format from its
    extension)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    D = design.n_factors
    cols = min(4, D)
    rows = math.ceil(D / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 0.45 * max(design.sizes) * rows + 1.2 * rows), squeeze=False)
    k = len(policies)
    height = 0.8 / max(k, 1)
    for d in range(D):
        ax = axes[d // cols][d % cols]
        y = np.arange(design.sizes[d])
        for i, (label, (pi, se)) in enumerate(policies.items()):
            ax.barh(y - 0.4 + height * (i + 0.5), pi[d], height=height, xerr=1.96 * np.asarray(se[d]), capsize=2, label=label)
        ax.scatter(design.p0[d], y, marker="|", s=200, color="black", label="p0", zorder=3)
        ax.set_yticks(y)
        ax.set_yticklabels([str(lv)[:28] for lv in design.levels[d]], fontsize=7)
        ax.set_xlim(0, 1)
        ax.set_title(design.factors[d], fontsize=9)
        ax.invert_yaxis()
    for d in range(D, rows * cols):
        axes[d // cols][d % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower right", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
