"""Graph-by-graph comparison of two (method, budget) rows of a CAM benchmark store.

    python -m bench.tables.cam_paired bench/results/cam-ba-small-maxcut ba-small-maxcut cam 1 scip 10

prints, over the graphs on which both have a finished job, on how many the first method's
objective is better than, equal to and worse than the second's (in the problem's sense; no
solution counts as worse than any solution), and both means over the graphs where both solved.
These are the "better on N graphs, equal on M, worse on K" counts of ``bench/results/cam.md``.
"""

from __future__ import annotations

import argparse

import numpy as np

from cosolve.harness.store import Store


def objectives(rows: list[dict], instance_set: str, label: str, budget: float) -> dict[str, float | None]:
    """Objective per instance (None without a solution) of the finished jobs of one row."""
    return {
        r["instance"]: r["objective"]
        for r in rows
        if r["instance_set"] == instance_set and r["label"] == label and r["budget"] == budget and r["status"] == "done"
    }


def compare(folder: str, instance_set: str, first: tuple[str, float], second: tuple[str, float]) -> str:
    rows = Store.existing(folder).rows()
    a = objectives(rows, instance_set, *first)
    b = objectives(rows, instance_set, *second)
    common = sorted(set(a) & set(b))
    if not common:
        raise SystemExit(f"cam_paired: no graph of {instance_set!r} has a finished job of both rows in {folder}")
    sense = next(r["sense"] for r in rows if r["instance_set"] == instance_set)
    sign = 1.0 if sense == "maximize" else -1.0
    better = equal = worse = 0
    for inst in common:
        x, y = a[inst], b[inst]
        if x == y:
            equal += 1
        elif y is None or (x is not None and sign * (x - y) > 0):
            better += 1
        else:
            worse += 1
    both = [i for i in common if a[i] is not None and b[i] is not None]
    mean_a = float(np.mean([a[i] for i in both])) if both else float("nan")
    mean_b = float(np.mean([b[i] for i in both])) if both else float("nan")
    name_a, name_b = f"{first[0]} at {first[1]:g} s", f"{second[0]} at {second[1]:g} s"
    return (
        f"{instance_set}: {name_a} against {name_b} on {len(common)} graphs: better on {better}, equal on {equal}, "
        f"worse on {worse}; means where both solved ({len(both)}): {mean_a:.3f} against {mean_b:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="results folder of a cosolve bench run")
    parser.add_argument("instance_set")
    parser.add_argument("method")
    parser.add_argument("budget", type=float)
    parser.add_argument("other_method")
    parser.add_argument("other_budget", type=float)
    args = parser.parse_args()
    print(compare(args.folder, args.instance_set, (args.method, args.budget), (args.other_method, args.other_budget)))


if __name__ == "__main__":
    main()
