"""Tables for the GLNS issue from a results folder of bench/suites/glns.toml (or a slice of it).

    python -m bench.tables.glns bench/results/glns [--references FOLDER ...] [--known CSV] [--against cft] [--per-instance]
        [--borrow cft] [--merge FOLDER ...] [--labels glns cft]

Per instance set, budget and method, over the (instance, seed) pairs every listed method finished
(done or killed) at that budget: pairs with a solution (n/N), how many reach the reference (the
proven optimum for OR-Library; for generated instances, the best value any job of this folder or of
the ``--references`` folders found, or a lower value from ``--known``, a CSV of best-known values
with ``instance`` and ``value`` columns, e.g. bench/results/setcover-best-known/best_known.csv), the
mean gap to the reference in percent ((objective - reference) / reference), the mean solve time, for
the LNS methods the repairs run and the share that improved (sum of improved / sum of iterations
over the set), and with ``--against LABEL`` the pairs where the method ends above that label's job
of the same instance and seed. A killed job or a missing solution counts as unsolved and is left out
of the gap. ``--per-instance`` adds each instance's objectives, seed by seed. ``--borrow LABEL`` is
for a method whose result does not depend on the seed (cft here: the same value for five seeds,
setcover-glns-cft-seeds), run once per (instance, budget): its job of an (instance, budget), from
this folder or else from the ``--references`` folders, stands in for every seed that has none.
``--merge`` reads other folders' jobs as this one's where this folder has no job of the same
(instance, budget, label, seed): one method's seeds split over two runs of the same code.
``--labels`` tabulates only those labels (and pairs over their common jobs only).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections import defaultdict
from pathlib import Path

from cosolve.harness.suite import read_references

ORDER = ["glns", "glns-gradient", "lns-random", "greedy", "cft", "ortools-setcover", "scip", "cpsat"]


def finished_jobs(folder: str) -> list[dict]:
    """The done or killed jobs of a results folder of ``cosolve bench``, one dict per row."""
    path = Path(folder) / "results.sqlite"
    if not path.is_file():
        raise SystemExit(f"bench.tables.glns: {folder} has no results.sqlite (not a results folder of cosolve bench)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return [dict(r) for r in db.execute("SELECT * FROM jobs WHERE status IN ('done', 'killed')")]


def _borrowed(rows: list[dict], others: list[dict], label: str) -> list[dict]:
    """Jobs of ``label`` for every (instance, budget, seed) of ``rows`` that has none: the label's
    first job of that (instance, budget), here or else in ``others``, with the seed set."""
    seeds = defaultdict(set)
    for r in rows:
        seeds[(r["instance"], r["budget"])].add(r["seed"])
    own = {(r["instance"], r["budget"], r["seed"]) for r in rows if r["label"] == label}
    standing = {}
    for r in rows + others:
        if r["label"] == label:
            standing.setdefault((r["instance"], r["budget"]), r)
    return [
        {**standing[key], "seed": seed}
        for key in seeds.keys() & standing.keys()
        for seed in sorted(seeds[key])
        if (*key, seed) not in own
    ]


def _merged(rows: list[dict], folders: list[str]) -> list[dict]:
    """``rows`` and the jobs of ``folders`` whose (instance, budget, label, seed) ``rows`` lack."""

    def key(r: dict) -> tuple:
        return r["instance"], r["budget"], r["label"], r["seed"]

    have = {key(r) for r in rows}
    extra = [r for folder in folders for r in finished_jobs(folder) if key(r) not in have]
    return rows + extra


def main(
    folder: str,
    references: list[str],
    against: str | None,
    per_instance: bool,
    borrow: list[str],
    merge: list[str],
    labels: list[str],
    known: str | None = None,
) -> None:
    rows = _merged(finished_jobs(folder), merge)
    others = [r for other in references for r in finished_jobs(other)]
    for label in borrow:
        rows += _borrowed(rows, others, label)
    if labels:
        rows = [r for r in rows if r["label"] in labels]
    best: dict[str, float] = {}
    for r in rows + others:
        if r["objective"] is not None:
            best[r["instance"]] = min(best.get(r["instance"], float("inf")), r["objective"])
    if known:
        for name, value in read_references(Path(known)).items():
            if name in best:
                best[name] = min(best[name], value)
    groups: dict[tuple[str, float], dict[str, dict[tuple[str, int], dict]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        groups[(r["instance_set"], r["budget"])][r["label"]][(r["instance"], r["seed"])] = r
    for (instance_set, budget), by_label in sorted(groups.items()):
        labels = [name for name in ORDER if name in by_label] + sorted(set(by_label) - set(ORDER))
        common = set.intersection(*(set(by_label[name]) for name in labels))
        if not common:
            continue
        proven = all(by_label[labels[0]][k]["reference"] is not None for k in common)
        where = " here or in the reference folders" if references else " here"
        ref_name = "optimum" if proven else "best known: the best any job found" + where + (f" or {known}" if known else "")
        instances = sorted({k[0] for k in common})
        seeds = sorted({k[1] for k in common})
        print(f"\n### {instance_set}, {budget:g} s ({len(instances)} instances x {len(seeds)} seed(s); reference: {ref_name})\n")
        head = "| method | solved | at reference | mean gap % | mean time s | LNS repairs | improved share |"
        rule = "|---|---|---|---|---|---|---|"
        if against and against in by_label:
            head, rule = head + f" above {against} |", rule + "---|"
        print(head)
        print(rule)
        for name in labels:
            jobs = [by_label[name][k] for k in sorted(common)]
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
            line = f"| {name} | {len(solved)}/{len(jobs)} | {hits} | {mean_gap} | {mean_time} | {lns} |"
            if against and against in by_label:
                mine = {k: by_label[name][k]["objective"] for k in common}
                theirs = {k: by_label[against][k]["objective"] for k in common}
                above = sum(1 for k in common if mine[k] is None or (theirs[k] is not None and mine[k] > theirs[k] + 1e-9))
                line += f" {above} of {len(common)} |"
            print(line)
        if per_instance:
            print("\n| instance | best known | " + " | ".join(labels) + " |")
            print("|---|---:|" + "---|" * len(labels))
            for inst in instances:
                cells = [" / ".join(f"{by_label[name][(inst, s)]['objective']:g}" for s in seeds) for name in labels]
                print(f"| {inst} | {refs.get(inst, best[inst]):g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--references", nargs="*", default=[], help="other results folders whose best values count as best known")
    parser.add_argument("--known", help="a CSV of best-known values (instance, value) that count where lower")
    parser.add_argument("--against", help="a label to count, per method, the (instance, seed) pairs that end above it")
    parser.add_argument("--per-instance", action="store_true", help="each instance's objectives, seed by seed")
    parser.add_argument("--borrow", nargs="*", default=[], help="labels run once per (instance, budget), standing for every seed")
    parser.add_argument("--merge", nargs="*", default=[], help="folders whose jobs count as run here (same code)")
    parser.add_argument("--labels", nargs="*", default=[], help="tabulate only these labels")
    args = parser.parse_args()
    main(args.folder, args.references, args.against, args.per_instance, args.borrow, args.merge, args.labels, args.known)
