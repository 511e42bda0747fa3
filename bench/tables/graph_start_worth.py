"""What a sampler's answer is worth in local-search seconds (issue 25, item 3): for each graph, the
seconds the local search alone (``polish``, from a random decoded start) takes to reach the value a
sampler without the polish (``cam`` or ``rlsa`` with ``polish=0``) ends at in its whole budget.

    python -m bench.tables.graph_start_worth --polish bench/results/graph-ablation-share \
        --samplers bench/results/graph-peers bench/results/graph-mis-alone > bench/results/graph-start-worth/tables.md

The polish's incumbent trace (seconds from the start of its solve, objective) of every 10 s job on a
graph is read for the first moment it is at least as good as the sampler's mean over its seeds on
that graph (a job that never does counts as infinitely slow in the median). Sampler
rows: every finished job with option ``polish`` 0, by label (the checkpoint of a ``cam (...)``
label is in its name), set and budget.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

import numpy as np

from cosolve.harness.store import Store


def first_reach(trace: list[list[float]], target: float, maximize: bool) -> float:
    """Seconds at which ``trace`` ([time, objective, bound] rows, in time order) first reaches
    ``target`` (infinite if it never does)."""
    for t, value, *_ in trace:
        if value is not None and (value >= target - 1e-9 if maximize else value <= target + 1e-9):
            return float(t)
    return math.inf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--polish", required=True, help="a bench folder with `polish` jobs at 10 s")
    parser.add_argument("--samplers", nargs="+", required=True, help="bench folders with sampler jobs (polish=0)")
    parser.add_argument("--polish-budget", type=float, default=10.0)
    args = parser.parse_args()

    traces: dict[tuple[str, str], list[list[list[float]]]] = defaultdict(list)  # (set, graph) -> traces
    maximize: dict[str, bool] = {}
    for r in Store.existing(args.polish).rows():
        if r["status"] == "done" and r["label"] == "polish" and r["budget"] == args.polish_budget:
            traces[(r["instance_set"], r["instance"])].append(json.loads(r["trace"] or "[]"))
            maximize[r["instance_set"]] = r["sense"] == "maximize"

    # (set, label, budget) -> graph -> objectives over seeds
    sampled: dict[tuple[str, str, float], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for folder in args.samplers:
        for r in Store.existing(folder).rows():
            options = json.loads(r["options"] or "{}")
            if r["status"] != "done" or options.get("polish") != 0 or r["objective"] is None:
                continue
            if (r["instance_set"], r["instance"]) in traces:
                sampled[(r["instance_set"], r["label"], r["budget"])][r["instance"]].append(r["objective"])

    print("# What a sampler's answer is worth in local-search seconds\n")
    print(f"`polish` ({args.polish}, {args.polish_budget:g} s jobs, random decoded start): the seconds its")
    print("trace takes to reach each sampler's mean value on the graph, over every (graph, polish job) pair:")
    print("the median (a pair that never reaches it counts as infinite) and the largest of those that do.\n")
    print("| set | sampler | budget | sampler mean | polish reaches it after: median / largest | polish jobs that never do |")
    print("|---|---|---:|---:|---:|---:|")
    for (iset, label, budget), by_graph in sorted(sampled.items()):
        times = [
            first_reach(trace, float(np.mean(values)), maximize[iset])
            for graph, values in by_graph.items()
            for trace in traces[(iset, graph)]
        ]
        reached = [t for t in times if math.isfinite(t)]
        median = float(np.median(times))
        shown = f"> {args.polish_budget:g} s" if math.isinf(median) else f"{median:.3f} s"
        largest = f"{max(reached):.3f} s" if reached else "–"
        mean = np.mean([np.mean(v) for v in by_graph.values()])
        never = f"{len(times) - len(reached)} of {len(times)}"
        print(f"| {iset} | {label} | {budget:g} s | {mean:.2f} | {shown} / {largest} | {never} |")


if __name__ == "__main__":
    main()
