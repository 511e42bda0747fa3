"""The CAM benchmark tables: mean objective, mean gap to the reference, time per graph.

    python -m bench.tables.cam bench/results/cam-rb-small-mis [more result folders ...] > table.md

For each instance set and budget, only graphs on which every method of that budget has a
finished job enter the means, so the methods are compared on the same graphs. The reference
of a graph is the better of SCIP and CP-SAT at 60 s (bench/results/cam-reference) where it
exists, else the best objective of the run (the row says how many of each). ``gap`` is
``(reference - objective) / |reference|`` for maximisation, ``(objective - reference) / |reference|``
for minimisation: negative when a method beats the reference (a killed job or no solution counts
as 100%);
``time`` is the solve's wall time per graph, ``setup`` the one-time set-up per process (warm-up
solve, model loading); ``solved`` counts the graphs with a solution (the mean objective is over
those; a killed job or one without a solution counts as a 100% gap).
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict

import numpy as np

from bench import RESULTS
from cosolve.harness.store import Store

REFERENCES = RESULTS / "cam-reference" / "references.csv"


def references() -> dict[tuple[str, str], float]:
    if not REFERENCES.exists():
        return {}
    with open(REFERENCES, newline="") as f:
        return {(r["instance"], r["problem"]): float(r["value"]) for r in csv.DictReader(f)}


def table(folder: str) -> str:
    rows = Store.existing(folder).rows()
    known = references()
    by_key: dict[tuple[str, float], dict[str, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
    best: dict[tuple[str, str], float] = {}
    for r in rows:
        by_key[(r["instance_set"], r["budget"])][r["label"]][r["instance"]] = r
        if r["objective"] is not None and r["status"] == "done":
            key = (r["instance_set"], r["instance"])
            better = max if r["sense"] == "maximize" else min
            best[key] = better(best.get(key, r["objective"]), r["objective"])
    out = []
    for (iset, budget), methods in sorted(by_key.items()):
        common = set.intersection(*(set(m) for m in methods.values()))
        if not common:
            continue
        refs = {}
        from_reference = 0
        for inst in common:
            row = next(iter(methods.values()))[inst]
            ref = known.get((inst, row["problem"]), row["reference"])
            from_reference += ref is not None
            refs[inst] = ref if ref is not None else best[(iset, inst)]
        n = len(common)
        sources = f"{from_reference} from SCIP/CP-SAT at 60 s, {n - from_reference} best of this run"
        out.append(f"### {iset}, {budget:g} s per graph ({n} graphs; reference: {sources})\n")
        out.append(
            "| method | mean objective (solved) | mean reference | obj. / ref. | mean gap "
            "| time per graph (s) | setup (s) | solved |"
        )
        out.append("|---|---|---|---|---|---|---|---|")
        mean_ref = float(np.mean([refs[i] for i in common]))
        for label, runs in sorted(methods.items()):
            objs, gaps, times, setups, solved = [], [], [], [], 0
            for inst in sorted(common):
                r = runs[inst]
                ok = r["status"] == "done" and r["objective"] is not None
                solved += ok
                objs.append(r["objective"] if ok else np.nan)
                sign = 1.0 if r["sense"] == "maximize" else -1.0
                gaps.append(sign * (refs[inst] - r["objective"]) / abs(refs[inst]) if ok and refs[inst] else 1.0)
                times.append(r["time"] if r["time"] is not None else np.nan)
                setups.append(r.get("setup_time") or 0.0)
            if solved:
                mean_obj = float(np.nanmean(objs))
                obj_cells = f"{mean_obj:.3f} | {mean_ref:.3f} | {mean_obj / mean_ref:.4f}"
            else:  # no solution on any graph
                obj_cells = f"- | {mean_ref:.3f} | -"
            out.append(
                f"| {label} | {obj_cells} | {100 * np.mean(gaps):.2f}% | "
                f"{np.nanmean(times):.3f} | {np.mean(setups):.2f} | {solved}/{len(common)} |"
            )
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print("\n".join(table(folder) for folder in sys.argv[1:]))
