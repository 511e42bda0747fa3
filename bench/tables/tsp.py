"""Tables of issue 28 from a TSP bench folder: gap to the optimum (or the best tour of the run) per
set, budget and method; per-instance gaps at each budget; an ablation, paired by (instance, seed):
by default the Sinkhorn start (gs-adaptive) against the same local search from greedy-edge and
nearest-neighbour starts (``--ablation BASE,OTHER,...`` names other labels); the overshoot of the
time limit.

    python -m bench.tables.tsp bench/results/tsp-scaling > bench/results/tsp-scaling/tables.md
    python -m bench.tables.tsp bench/results/tsp-net --ablation gs-net,gs-latent,gs-net-only,ils-greedy-edge
"""

from __future__ import annotations

import math
import sqlite3
import statistics
import sys
from pathlib import Path

ABLATION = ("gs-adaptive", "ils-greedy-edge", "ils-nn")


def load(folder: Path) -> list[dict]:
    con = sqlite3.connect(folder / "results.sqlite")
    con.row_factory = sqlite3.Row
    return [dict(r) for r in con.execute("select * from jobs")]


def main(folder: Path, ablation: tuple[str, ...] = ABLATION) -> None:
    rows = load(folder)
    done = [r for r in rows if r["status"] == "done" and r["objective"] is not None]
    best: dict[tuple[str, str], float] = {}
    for r in done:
        key = (r["instance_set"], r["instance"])
        best[key] = min(best.get(key, math.inf), r["objective"])
    ref = {}
    for r in rows:
        key = (r["instance_set"], r["instance"])
        ref[key] = r["reference"] if r["reference"] is not None else best.get(key, math.nan)
    for key, value in best.items():
        assert value >= ref[key] - 1e-9, f"{key}: a tour {value} below the reference {ref[key]}"
    gap = {
        id(r): 100.0 * (r["objective"] - ref[(r["instance_set"], r["instance"])]) / ref[(r["instance_set"], r["instance"])]
        for r in done
    }
    methods = sorted({r["label"] for r in rows}, key=lambda m: (not m.startswith("gs"), not m.startswith("ils"), m))
    budgets = sorted({r["budget"] for r in rows})
    sets = sorted(
        {r["instance_set"] for r in rows},
        key=lambda s: (s.startswith("random"), int(s.split("-")[1]) if s.startswith("random") else 0, s),
    )
    failed = [r for r in rows if r["status"] != "done"]

    print(f"# {folder.name} tables\n")
    print("Gap = (tour − reference) / reference. References: the suite's best-known values where it gives them (TSPLIB95's")
    print("proven optima; bench/suites/tsp_random_references.csv), else the best tour of any job of this folder (every budget,")
    print("seed and method; for tsp-scaling's random sets LKH-3's at 60 s).")
    print("Cells: mean gap % over instances and seeds / largest gap % / runs at the reference.")
    print("A job without a tour is missing from its cell (listed at the end).\n")
    for budget in budgets:
        labels = {r["label"] for r in done if r["budget"] == budget}
        if len(labels) == 1:
            print(f"## {budget:g} s: reference runs only ({', '.join(labels)})\n")
        else:
            print(f"## {budget:g} s\n")
        print("| set | " + " | ".join(methods) + " |")
        print("|---|" + "---:|" * len(methods))
        for s in [*sets, "all TSPLIB", "all random"]:
            cells = []
            for m in methods:
                sel = [r for r in done if r["budget"] == budget and r["label"] == m
                       and (r["instance_set"] == s or (s == "all TSPLIB" and r["instance_set"].startswith("tsplib"))
                            or (s == "all random" and r["instance_set"].startswith("random")))]  # fmt: skip
                if not sel:
                    cells.append("")
                    continue
                g = [gap[id(r)] for r in sel]
                at = sum(1 for x in g if x < 1e-9)
                cells.append(f"{statistics.fmean(g):.2f} / {max(g):.2f} / {at}/{len(g)}")
            print(f"| {s} | " + " | ".join(cells) + " |")
        print()

    for budget in budgets:
        print(f"## Per instance, {budget:g} s (gap %, seed 0)\n")
        print("| instance | n | reference | " + " | ".join(methods) + " |")
        print("|---|---:|---:|" + "---:|" * len(methods))
        for key in sorted(ref, key=lambda k: (k[0].startswith("random"), k[0], k[1])):
            cells = []
            for m in methods:
                sel = [
                    r
                    for r in done
                    if r["budget"] == budget and r["label"] == m and (r["instance_set"], r["instance"]) == key and r["seed"] == 0
                ]
                cells.append(f"{gap[id(sel[0])]:.2f}" if sel else "—")
            print(f"| {key[1]} | {_size(key, rows)} | {ref[key]:g} | " + " | ".join(cells) + " |")
        print()

    base = ablation[0]
    print(f"## Ablation: {base} against the others\n")
    print(f"Paired by (instance, seed), same budget: b/e/w = {base} better / equal / worse; diff = mean of")
    print(f"(other gap − {base} gap) in points ± its standard error over pairs (positive: {base} wins).\n")
    print("| instances | budget | against | pairs | b/e/w | diff (points) |")
    print("|---|---:|---|---:|---|---|")
    for group in ("TSPLIB", "random"):
        for budget in budgets:
            for other in ablation[1:]:
                a = {(r["instance"], r["seed"]): gap[id(r)] for r in done if r["label"] == base and r["budget"] == budget
                     and r["instance_set"].startswith("tsplib" if group == "TSPLIB" else "random")}  # fmt: skip
                b = {(r["instance"], r["seed"]): gap[id(r)] for r in done if r["label"] == other and r["budget"] == budget
                     and r["instance_set"].startswith("tsplib" if group == "TSPLIB" else "random")}  # fmt: skip
                keys = sorted(set(a) & set(b))
                if not keys:
                    continue
                d = [b[k] - a[k] for k in keys]
                bew = (sum(x > 1e-9 for x in d), sum(abs(x) <= 1e-9 for x in d), sum(x < -1e-9 for x in d))
                se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.nan
                diff = f"{statistics.fmean(d):+.3f} ± {se:.3f}"
                print(f"| {group} | {budget:g} s | {other} | {len(keys)} | {bew[0]}/{bew[1]}/{bew[2]} | {diff} |")
    print()

    print("## Time limit: solve time past the budget (s)\n")
    print("| method | budget | largest overshoot, all | largest overshoot, >= 1,000 cities | mean Sinkhorn steps |")
    print("|---|---:|---:|---:|---:|")
    for m in methods:
        for budget in budgets:
            sel = [r for r in done if r["label"] == m and r["budget"] == budget]
            if not sel:
                continue
            over = max(r["time"] - budget for r in sel)
            big = [r["time"] - budget for r in sel if _size((r["instance_set"], r["instance"]), rows) >= 1000]
            steps = [_stat(r, "sinkhorn_steps") for r in sel]
            steps = [x for x in steps if x is not None]
            print(f"| {m} | {budget:g} | {over:+.3f} | {max(big):+.3f} | {statistics.fmean(steps):.0f} |" if steps
                  else f"| {m} | {budget:g} | {over:+.3f} | {max(big) if big else math.nan:+.3f} | |")  # fmt: skip
    print()
    if failed:
        print("## Jobs without a result\n")
        for r in failed:
            job = f"{r['instance_set']}/{r['instance']} {r['label']} {r['budget']:g} s seed {r['seed']}"
            print(f"- {job}: {r['status']} ({r['error']})")


def _stat(row: dict, name: str) -> float | None:
    import json

    value = json.loads(row["stats"] or "{}").get(name)
    return None if value is None else float(value)


_SIZES: dict[tuple[str, str], int] = {}


def _size(key: tuple[str, str], rows: list[dict]) -> int:
    if key not in _SIZES:
        import cosolve

        path = next(r["path"] for r in rows if (r["instance_set"], r["instance"]) == key)
        _SIZES[key] = cosolve.read(path, problem="tsp").n
    return _SIZES[key]


if __name__ == "__main__":
    args = sys.argv[1:]
    labels = ABLATION
    if "--ablation" in args:
        at = args.index("--ablation")
        labels = tuple(args[at + 1].split(","))
        del args[at : at + 2]
    main(Path(args[0]), labels)
