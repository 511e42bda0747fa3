"""Tables for the GLNS issue from a results folder of bench/glns.toml (or a slice of it).

    python bench/glns_tables.py bench/results/glns

Per instance set, budget and method: instances with a solution (n/N), how many reach the reference
(the proven optimum for OR-Library; for generated instances, the best value any method found in
the folder), the mean gap to the reference in percent ((objective - reference) / reference), the
mean solve time, and for the LNS methods the repairs run and the share that improved
(sum of improved / sum of iterations over the set). Only instances every listed method finished
(done or killed) at that budget enter the means; a killed job or a missing solution counts as
unsolved and is left out of the gap.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

ORDER = ["glns", "glns-gradient", "lns-random", "greedy", "cft", "ortools-setcover", "scip", "cpsat"]


def main(folder: str) -> None:
    db = sqlite3.connect(Path(folder) / "results.sqlite")
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute("SELECT * FROM jobs WHERE status IN ('done', 'killed')")]
    best: dict[str, float] = {}
    for r in rows:
        if r["objective"] is not None:
            key = r["instance"]
            best[key] = min(best.get(key, float("inf")), r["objective"])
    groups: dict[tuple[str, float], dict[str, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        groups[(r["instance_set"], r["budget"])][r["label"]][r["instance"]] = r
    for (instance_set, budget), by_label in sorted(groups.items()):
        labels = [name for name in ORDER if name in by_label] + sorted(set(by_label) - set(ORDER))
        common = set.intersection(*(set(by_label[name]) for name in labels))
        if not common:
            continue
        proven = all(by_label[labels[0]][i]["reference"] is not None for i in common)
        ref_name = "optimum" if proven else "best found in the folder"
        print(f"\n### {instance_set}, {budget:g} s ({len(common)} instances; reference: {ref_name})\n")
        print("| method | solved | at reference | mean gap % | mean time s | LNS repairs | improved share |")
        print("|---|---|---|---|---|---|---|")
        for name in labels:
            jobs = [by_label[name][i] for i in sorted(common)]
            solved = [j for j in jobs if j["objective"] is not None]
            refs = {j["instance"]: (j["reference"] if j["reference"] is not None else best[j["instance"]]) for j in jobs}
            gaps = [100 * (j["objective"] - refs[j["instance"]]) / refs[j["instance"]] for j in solved]
            hits = sum(1 for j in solved if j["objective"] <= refs[j["instance"]] + 1e-9)
            times = [j["time"] for j in solved if j["time"] is not None]
            stats = [json.loads(j["stats"] or "{}") for j in jobs if j.get("stats")]
            iterations = sum(s.get("iterations", 0) for s in stats)
            improved = sum(s.get("improved", 0) for s in stats)
            lns = f"{iterations} | {improved / iterations:.3f}" if iterations else "- | -"
            mean_gap = f"{sum(gaps) / len(gaps):.2f}" if gaps else "-"
            mean_time = f"{sum(times) / len(times):.2f}" if times else "-"
            print(f"| {name} | {len(solved)}/{len(jobs)} | {hits} | {mean_gap} | {mean_time} | {lns} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/glns_tables.py RESULTS_FOLDER")
    main(sys.argv[1])
