"""Paired-seed tables of a set cover benchmark folder (issue 26, item 2): one method (``--against``,
default ``glns``, the learned ranking) against every other label, e.g. the gradient rule
(``glns-gradient``) and random ranking (``lns-random``).

    python -m bench.tables.setcover_seeds bench/experiments/setcover_glns/results/setcover-lns-seeds
    python -m bench.tables.setcover_seeds bench/results/setcover-targeted --against lns-expensive

Per instance: each method's mean objective over seeds, with min..max. Then, per instance set and
over all of them, over (instance, seed) pairs, how often the method is better / equal / worse than
each other label, and the per-instance difference of seed means (other minus the method, in cost
units: > 0 means the method is ahead) with its mean over instances, the standard deviation of the
per-seed differences (the seed spread) and the standard error over instances.
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict
from pathlib import Path

import numpy as np


def main(folder: str, ours_label: str) -> None:
    db = sqlite3.connect(Path(folder) / "results.sqlite")
    rows = db.execute("SELECT instance_set, instance, label, seed, budget, objective FROM jobs WHERE status = 'done'").fetchall()
    value: dict[float, dict[str, dict[tuple[str, int], float]]] = defaultdict(lambda: defaultdict(dict))
    suite: dict[str, str] = {}
    for instance_set, instance, label, seed, budget, objective in rows:
        if objective is not None:
            value[budget][label][(instance, seed)] = objective
            suite[instance] = instance_set
    for budget, methods in sorted(value.items()):
        common = sorted(set.intersection(*(set(v) for v in methods.values())))
        instances = sorted({i for i, _ in common})
        seeds = sorted({s for _, s in common})
        labels = [ours_label, *sorted(m for m in methods if m != ours_label)]
        print(f"## {budget:g} s, {len(instances)} instances x {len(seeds)} seeds\n")
        print("| instance | " + " | ".join(f"{m} mean (min..max)" for m in labels) + " |")
        print("|---|" + "---:|" * len(labels))
        for i in instances:
            cells = []
            for m in labels:
                v = [methods[m][p] for p in common if p[0] == i]
                cells.append(f"{np.mean(v):.1f} ({min(v):g}..{max(v):g})")
            print(f"| {i} | " + " | ".join(cells) + " |")
        print()
        print(f"| {ours_label} against | instances | b/e/w (pairs) | difference of means | seed spread (sd) | standard error |")
        print("|---|---|---:|---:|---:|---:|")
        ours = methods[ours_label]
        groups = sorted({suite[i] for i in instances})
        for m in labels[1:]:
            for group in [*groups, "all"] if len(groups) > 1 else groups:
                chosen = [i for i in instances if group in ("all", suite[i])]
                pairs = [(i, s) for i, s in common if i in chosen]
                d = np.array([methods[m][p] - ours[p] for p in pairs])
                b, e = int(np.sum(d > 0)), int(np.sum(d == 0))
                per_instance = np.array([np.mean([methods[m][p] - ours[p] for p in pairs if p[0] == i]) for i in chosen])
                se = per_instance.std(ddof=1) / np.sqrt(len(per_instance)) if len(per_instance) > 1 else 0.0
                spread = d.std(ddof=1) if d.size > 1 else 0.0
                row = f"{b}/{e}/{len(d) - b - e} | {per_instance.mean():+.2f} | {spread:.2f} | {se:.2f}"
                print(f"| {m} | {group} ({len(chosen)}) | {row} |")
        print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--against", default="glns", help="the method every other label is compared with")
    args = parser.parse_args()
    main(args.folder, args.against)
