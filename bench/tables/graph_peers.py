"""Tables of the graph-peers suite (issue 25): per instance set and budget, each method's mean
objective, mean gap to the best-known value, graphs at the best-known value, and paired counts
against the two outside samplers, ``tabu`` and ``sa``.

    python -m bench.tables.graph_peers bench/results/graph-peers [REFERENCES_CSV] > bench/results/graph-peers/tables.md

The reference of a graph is the best of the values in REFERENCES_CSV (default: the suite's
``references.csv``, made by bench/tables/graph_references.py: planted optima, proven optima, long runs)
and of every finished job in the results folder, so no gap is negative; the table says how many
graphs took their reference from each source. ``gap`` = |reference - objective| / |reference| (a
job without a solution counts 100%). Only graphs on which every method of the budget finished
enter a table, so every row is over the same graphs; the mean objective is over the graphs a method
solved (their number in brackets when some are missing).
"""

from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from cosolve.harness.store import Store

PEERS = ("tabu", "sa")


def load_references(path: Path) -> dict[tuple[str, str], tuple[float, str]]:
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {(r["instance"], r["problem"]): (float(r["value"]), r["source"]) for r in csv.DictReader(f)}


def best_known(rows: list[dict], known: dict[tuple[str, str], tuple[float, str]]) -> dict[tuple[str, str], tuple[float, str]]:
    """Per (instance, problem): the better of the ``known`` reference and every job in ``rows``
    (value, source), so that no gap against it is negative."""
    best = dict(known)
    for r in rows:
        if r["objective"] is None:
            continue
        key = (r["instance"], r["problem"])
        old = best.get(key)
        if old is None or (r["objective"] > old[0] if r["sense"] == "maximize" else r["objective"] < old[0]):
            best[key] = (r["objective"], f"run:{r['label']}@{r['budget']:g}s")
    return best


def main(folder: str, references: str | None = None) -> None:
    rows = [r for r in Store.existing(folder).rows() if r["status"] == "done"]
    known = load_references(Path(references) if references else Path(folder) / "references.csv")
    maximize = {r["problem"]: r["sense"] == "maximize" for r in rows}
    best = best_known(rows, known)
    groups: dict[tuple[str, float], dict[str, dict[str, dict]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        groups[(r["instance_set"], r["budget"])][r["label"]][r["instance"]] = r
    print("# graph-peers tables\n")
    print("One thread per job, one job per core (2 workers); `time` is the solve's wall time per graph, `setup`")
    print("the once-per-process loading and warm-up before the clock. Paired counts: graphs where the method is")
    print("better / equal / worse than `tabu` (`sa`) at the same budget.\n")
    for (iset, budget), methods in sorted(groups.items()):
        common = set.intersection(*(set(m) for m in methods.values()))
        if not common:
            continue
        problem = next(iter(next(iter(methods.values())).values()))["problem"]
        up = maximize[problem]
        sources = Counter(best[(i, problem)][1].split(":")[0] for i in common)
        source_text = ", ".join(f"{n} {s}" for s, n in sorted(sources.items()))
        print(f"## {iset}, {budget:g} s per graph ({len(common)} graphs; references: {source_text})\n")
        print("| method | mean objective | mean gap | at best known | vs tabu (b/e/w) | vs sa (b/e/w) | time (s) | setup (s) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, by_instance in sorted(methods.items(), key=lambda kv: kv[0]):
            objs, gaps, at, times, setups = [], [], 0, [], []
            paired = {peer: [0, 0, 0] for peer in PEERS}
            for inst in sorted(common):
                r = by_instance[inst]
                ref = best[(inst, problem)][0]
                obj = r["objective"]
                times.append(r["wall"] if r.get("wall") is not None else np.nan)
                setups.append(r.get("setup_time") or 0.0)
                if obj is None:
                    gaps.append(1.0)
                    continue
                objs.append(obj)
                gaps.append(abs(ref - obj) / max(abs(ref), 1e-12))
                at += obj == ref
                for peer, counts in paired.items():
                    other = methods.get(peer, {}).get(inst, {}).get("objective")
                    if other is not None and label != peer:
                        counts[0 if (obj > other) == up and obj != other else 1 if obj == other else 2] += 1
            cells = ["" if label == peer else "/".join(map(str, paired[peer])) for peer in PEERS]
            mean = f"{np.mean(objs):.3f}" + ("" if len(objs) == len(common) else f" ({len(objs)} solved)") if objs else "none"
            print(
                f"| {label} | {mean} | {100 * np.mean(gaps):.2f}% | {at}/{len(common)} | {' | '.join(cells)} | "
                f"{np.nanmean(times):.3f} | {np.mean(setups):.2f} |"
            )
        print()


if __name__ == "__main__":
    main(*sys.argv[1:])
