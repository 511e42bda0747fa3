"""Reference values for the CAM suites: the better of SCIP and CP-SAT per graph, from a results folder.

    python -m bench.tables.make_references bench/out/cam-reference [bench/results/cam-reference/references.csv]

Writes CSV rows ``instance, problem, value, source, proven``: ``source`` the method that found
the value, ``proven`` whether that method proved it optimal within its budget.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from cosolve.harness.store import Store


def main(folder: str, out: str = "bench/results/cam-reference/references.csv") -> None:
    best: dict[tuple[str, str], dict] = {}
    for row in Store.existing(folder).rows():
        if row["status"] != "done" or row["objective"] is None:
            continue
        key = (row["instance"], row["problem"])
        old = best.get(key)
        better = old is None or (
            row["objective"] > old["value"] if row["sense"] == "maximize" else row["objective"] < old["value"]
        )
        proven = row["result_status"] == "optimal"
        if better or (old is not None and row["objective"] == old["value"] and proven and not old["proven"]):
            value, source = row["objective"], row["method"]
            best[key] = {"instance": key[0], "problem": key[1], "value": value, "source": source, "proven": proven}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, ["instance", "problem", "value", "source", "proven"])
        writer.writeheader()
        writer.writerows(sorted(best.values(), key=lambda r: (r["problem"], r["instance"])))
    print(f"wrote {len(best)} references to {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
