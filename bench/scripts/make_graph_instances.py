"""Regenerate ``instances/graphs/``: small random graphs in DIMACS format and their best-known
values for MIS, MaxCut, MaxClique and MDS, proven by SCIP where it finishes.

    python -m bench.scripts.make_graph_instances [--time 120]

Writes ``instances/graphs/*.col`` and ``instances/graphs/best_known.csv``
(``instance,problem,value,status,method,time_s``); ``status`` is ``optimal`` when SCIP proved it.
"""

from __future__ import annotations

import argparse
import csv

import cosolve
from bench import ROOT
from cosolve.generators.graphs import barabasi_albert, erdos_renyi
from cosolve.io.graphfiles import write_dimacs

OUT = ROOT / "instances" / "graphs"

GRAPHS = {
    "er50_p0.1_s1": lambda problem: erdos_renyi(50, 0.1, seed=1, problem=problem),
    "er80_p0.05_s2": lambda problem: erdos_renyi(80, 0.05, seed=2, problem=problem),
    "ba100_m3_s3": lambda problem: barabasi_albert(100, 3, seed=3, problem=problem),
    "er40_p0.5_s4": lambda problem: erdos_renyi(40, 0.5, seed=4, problem=problem),
    "er30_p0.2_s5_w": lambda problem: erdos_renyi(30, 0.2, seed=5, problem=problem, weighted=True),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=120.0, help="SCIP budget per (graph, problem)")
    args = ap.parse_args()
    rows = []
    for name, make in GRAPHS.items():
        path = OUT / f"{name}.col"
        write_dimacs(make("mis"), path)
        for problem in ("mis", "maxcut", "maxclique", "mds"):
            result = cosolve.solve(path, method="scip", problem=problem, time_limit=args.time)
            rows.append([name, problem, f"{result.objective:g}", result.status.value, "scip", f"{result.time:.2f}"])
            print(*rows[-1])
    with open(OUT / "best_known.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["instance", "problem", "value", "status", "method", "time_s"])
        writer.writerows(rows)


if __name__ == "__main__":
    main()
