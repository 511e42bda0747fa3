"""Paired-seed tables of bench/setcover_lns_seeds.toml (issue 26, item 2): the learned ranking
(``glns``) against the gradient rule (``glns-gradient``) and random ranking (``lns-random``).

    python bench/setcover_seed_tables.py bench/results/setcover-lns-seeds

Per instance: each method's mean objective over seeds, with min..max. Then, over (instance, seed)
pairs, how often ``glns`` is better / equal / worse than each ablation, and the per-instance
difference of seed means (ablation minus glns, in cost units: > 0 means glns is ahead) with its
mean over instances, the standard deviation of the per-seed differences (the seed spread) and
the standard error over instances.
"""

from __future__ import annotations

import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

LEARNED = "glns"


def main(folder: str) -> None:
    db = sqlite3.connect(Path(folder) / "results.sqlite")
    rows = db.execute("SELECT instance, label, seed, budget, objective FROM jobs WHERE status = 'done'").fetchall()
    value: dict[float, dict[str, dict[tuple[str, int], float]]] = defaultdict(lambda: defaultdict(dict))
    for instance, label, seed, budget, objective in rows:
        if objective is not None:
            value[budget][label][(instance, seed)] = objective
    for budget, methods in sorted(value.items()):
        common = sorted(set.intersection(*(set(v) for v in methods.values())))
        instances = sorted({i for i, _ in common})
        seeds = sorted({s for _, s in common})
        labels = [LEARNED, *sorted(m for m in methods if m != LEARNED)]
        print(f"## {budget:g} s, {len(instances)} instances x {len(seeds)} seeds\n")
        print("| instance | " + " | ".join(f"{m} mean (min..max)" for m in labels) + " |")
        print("|---|" + "---:|" * len(labels))
        for i in instances:
            cells = []
            for m in labels:
                v = [methods[m][(i, s)] for s in seeds if (i, s) in methods[m]]
                cells.append(f"{np.mean(v):.1f} ({min(v):g}..{max(v):g})")
            print(f"| {i} | " + " | ".join(cells) + " |")
        print()
        print(f"| {LEARNED} against | b/e/w (pairs) | difference of means | seed spread (sd) | standard error |")
        print("|---|---:|---:|---:|---:|")
        ours = methods[LEARNED]
        for m in labels[1:]:
            pairs = [p for p in common if p in methods[m]]
            d = np.array([methods[m][p] - ours[p] for p in pairs])
            b, e = int(np.sum(d > 0)), int(np.sum(d == 0))
            per_instance = np.array([np.mean([methods[m][(i, s)] - ours[(i, s)] for s in seeds]) for i in instances])
            se = per_instance.std(ddof=1) / np.sqrt(len(per_instance)) if len(per_instance) > 1 else 0.0
            print(f"| {m} | {b}/{e}/{len(d) - b - e} | {per_instance.mean():+.2f} | {d.std(ddof=1):.2f} | {se:.2f} |")
        print()


if __name__ == "__main__":
    main(*sys.argv[1:])
