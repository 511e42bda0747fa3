"""Learning under the polish at sub-second budgets: ``cam`` (polished) against ``rlsa`` (polished,
the untrained sampler) and ``polish`` (the local search alone from a random start), paired by
(graph, seed), in one process, one thread, set-up outside the budget (as in a benchmark job).

    cosolve generate er-700-800 --count 5 --out bench/experiments/graph_cam/results/graph-ablation-short/instances
    cosolve generate frb --count 6 --out bench/experiments/graph_cam/results/graph-ablation-short/instances
    cosolve generate rb-large --count 5 --out bench/experiments/graph_cam/results/graph-ablation-short/instances
    python -m bench.experiments.graph_cam.graph_short_budget_ablation \
        bench/experiments/graph_cam/results/graph-ablation-short/instances --sets rb-large er-700-800 frb \
        --budgets 0.1 0.2 0.5 --seeds 0 1 2

Prints, per set and budget, each method's mean independent set size and ``cam`` minus each
ablation: mean ± standard error over the pairs (better / equal / worse pairs).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from cosolve import Solver, read

METHODS = ("cam", "rlsa", "polish")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="graphs named SET-SEED.col")
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.1, 0.2, 0.5])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    print("| set | budget | cam | rlsa | polish | cam - rlsa | cam - polish |")
    print("|---|---|---:|---:|---:|---|---|")
    with threadpool_limits(1):
        for name in args.sets:
            graphs = [read(path, problem="mis") for path in sorted(args.folder.glob(f"{name}-*.col"))]
            for budget in args.budgets:
                found = {m: [] for m in METHODS}
                for method in METHODS:
                    solver = Solver(method, time_limit=budget, threads=1)
                    for graph in graphs:
                        for seed in args.seeds:
                            solver.seed = seed
                            found[method].append(solver.solve(graph).objective)
                cells = [f"{np.mean(found[m]):.2f}" for m in METHODS]
                cells += [_paired(np.subtract(found["cam"], found[m])) for m in ("rlsa", "polish")]
                print(f"| {name} ({len(graphs)}) | {budget:g} s | " + " | ".join(cells) + " |", flush=True)


def _paired(d: np.ndarray) -> str:
    se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
    return f"{d.mean():+.2f} ± {se:.2f} ({(d > 0).sum()}/{(d == 0).sum()}/{(d < 0).sum()})"


if __name__ == "__main__":
    main()
