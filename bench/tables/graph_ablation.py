"""Tables of the graph-ablation suite (issue 25, item 3): does the learned sampler pay under the
polish? Per instance set and budget, each method's mean gap to the best-known value with its spread
over seeds, and the paired comparison of ``cam+polish`` with each other method.

    python -m bench.tables.graph_ablation bench/results/graph-ablation [REFERENCES_CSV] > bench/results/graph-ablation/tables.md
    python -m bench.tables.graph_ablation bench/results/graph-mis-peers --against polish > bench/results/graph-mis-peers/tables.md

``--against LABEL`` pairs every method with LABEL instead of ``cam+polish``.

References are those of bench/tables/graph_peers.py (the best of REFERENCES_CSV, default
``bench/results/graph-peers/references.csv``, and of every finished job here), so no gap is
negative. ``mean gap ± sd``: the mean over graphs and seeds, and the standard deviation over seeds
of the per-seed mean gap. Paired: over (graph, seed) pairs, how often ``cam+polish`` is better /
equal / worse; then the per-graph difference of seed-averaged gaps (other minus cam+polish, in
percentage points: positive means cam+polish is ahead) with its standard error over graphs;
``ahead`` when that difference exceeds twice its standard error, ``behind`` when it is below minus
twice, else ``within noise``.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench import RESULTS
from bench.tables.graph_peers import best_known, load_references
from cosolve.harness.store import Store

LEARNED = "cam+polish"


def main(folder: str, references: str | None = None, against: str = LEARNED) -> None:
    rows = [r for r in Store.existing(folder).rows() if r["status"] == "done"]
    default = RESULTS / "graph-peers" / "references.csv"
    best = {k: v[0] for k, v in best_known(rows, load_references(Path(references) if references else default)).items()}
    # gap[(set, budget)][label][(instance, seed)]
    gap: dict[tuple[str, float], dict[str, dict[tuple[str, int], float]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        ref = best[(r["instance"], r["problem"])]
        g = 1.0 if r["objective"] is None else abs(ref - r["objective"]) / max(abs(ref), 1e-12)
        gap[(r["instance_set"], r["budget"])][r["label"]][(r["instance"], r["seed"])] = g
    print(f"# {Path(folder).name} tables\n")
    print("Mean gap to the best-known value (± sd over seeds of the per-seed mean); paired against")
    print(f"`{against}` over (graph, seed) pairs (b/e/w: {against} better / equal / worse), and the")
    print(f"per-graph difference of seed-averaged gaps (other minus {against}, points; > 0: {against} ahead)")
    print("± its standard error over graphs.\n")
    for (iset, budget), methods in sorted(gap.items()):
        common = set.intersection(*(set(m) for m in methods.values()))
        if not common or against not in methods:
            continue
        graphs = sorted({i for i, _ in common})
        seeds = sorted({s for _, s in common})
        print(f"## {iset}, {budget:g} s per graph ({len(graphs)} graphs x {len(seeds)} seeds)\n")
        print(f"| method | mean gap ± sd | {against} b/e/w | difference (points) | verdict |")
        print("|---|---:|---:|---:|---|")
        ours = methods[against]
        for label, by in sorted(methods.items()):
            per_seed = [np.mean([by[(i, s)] for i in graphs if (i, s) in common]) for s in seeds]
            cell = f"{100 * np.mean(per_seed):.2f}% ± {100 * np.std(per_seed):.2f}"
            if label == against:
                print(f"| {label} | {cell} |  |  |  |")
                continue
            pairs = sorted(common)
            b = sum(ours[p] < by[p] for p in pairs)
            e = sum(ours[p] == by[p] for p in pairs)
            w = len(pairs) - b - e
            diff = np.array([np.mean([by[(i, s)] - ours[(i, s)] for s in seeds if (i, s) in common]) for i in graphs])
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
            mean = diff.mean()
            verdict = "ahead" if mean > 2 * se and mean > 0 else "behind" if mean < -2 * se and mean < 0 else "within noise"
            print(f"| {label} | {cell} | {b}/{e}/{w} | {100 * mean:+.3f} ± {100 * se:.3f} | {verdict} |")
        print()


if __name__ == "__main__":
    args = sys.argv[1:]
    label = LEARNED
    if "--against" in args:
        at = args.index("--against")
        label = args[at + 1]
        del args[at : at + 2]
    main(*args, against=label)
