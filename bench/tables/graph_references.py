"""Best-known values of the graph-peers suite (issue 25), with where each comes from.

    python -m bench.tables.graph_references [RESULTS_FOLDER ...] > bench/results/graph-peers/references.csv
    python -m bench.tables.graph_references --found RESULTS_FOLDER ... > references.csv

With ``--found``, the instances are those of the folders' jobs (any suite), not graph-peers'.

Sources, best first: ``planted`` (frb graphs: the MIS has exactly one node per clique, by
construction), ``proven:scip`` / ``proven:cpsat`` (optimal within 60 s in bench/results/cam-reference),
then the best objective of any finished job in the RESULTS_FOLDERs (``best-of:METHOD@SECONDS``:
the long runs of the strongest methods, and the benchmark runs themselves). A value is only ever
replaced by a better one, so a proven optimum is never replaced. Instances without any stay out
(the table then uses the best of its own run and says so).
"""

from __future__ import annotations

import csv
import sys

from bench import RESULTS, SUITES
from cosolve.generators.distributions import frb_parameters
from cosolve.harness.store import Store
from cosolve.harness.suite import load_suite

SUITE = SUITES / "graph_peers.toml"
MAXIMIZE = {"mis", "maxcut", "maxclique"}


def main(folders: list[str], found: bool = False) -> None:
    if found:
        sets = []
        wanted = {(r["instance"], r["problem"]) for folder in folders for r in Store.existing(folder).rows()}
    else:
        sets = [(spec["params"]["distribution"], spec["problem"], spec["count"]) for spec in load_suite(SUITE).instance_sets]
        wanted = {(f"{dist}-{seed}", problem) for dist, problem, count in sets for seed in range(count)}
    best: dict[tuple[str, str], tuple[float, str, bool]] = {}

    def offer(key: tuple[str, str], value: float, source: str, proven: bool) -> None:
        if key not in wanted:
            return
        old = best.get(key)
        if old is not None and (old[2] or value == old[0]):
            return
        if old is None or (value > old[0] if key[1] in MAXIMIZE else value < old[0]):
            best[key] = (value, source, proven)

    for dist, problem, count in sets:
        if dist == "frb":
            for seed in range(count):
                offer((f"frb-{seed}", problem), float(frb_parameters(seed)[0]), "planted", True)
    with open(RESULTS / "cam-reference" / "references.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["proven"] == "True":
                offer((row["instance"], row["problem"]), float(row["value"]), f"proven:{row['source']}", True)
    for folder in folders:
        for row in Store.existing(folder).rows():
            if row["status"] == "done" and row["objective"] is not None:
                offer((row["instance"], row["problem"]), row["objective"], f"best-of:{row['method']}@{row['budget']:g}s", False)
    writer = csv.writer(sys.stdout)
    writer.writerow(["instance", "problem", "value", "source", "proven"])
    for (instance, problem), (value, source, proven) in sorted(best.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        writer.writerow([instance, problem, value, source, proven])


if __name__ == "__main__":
    args = sys.argv[1:]
    main([a for a in args if a != "--found"], found="--found" in args)
