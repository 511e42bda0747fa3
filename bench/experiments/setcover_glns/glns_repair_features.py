"""Probe: what predicts that a GLNS sub-MIP repair finds a cheaper cover? (issue 26, item 2)

Runs ``lns-random`` (random neighbourhoods: an unbiased sample of them) in the regime where the
repairs do all the improving (refinement and local search off, as in ``bench/suites/setcover_lns_regime.toml``)
and records, for every repair, features of its neighbourhood and whether it improved; then prints,
per feature, the repairs' success rate by quartile of the feature and the feature's AUC (the chance
that an improving repair has a higher value than a failing one; 0.5: no signal).

Features (u: the Lagrangian multipliers of the loop's bound, r: the reduced costs at u):

- ``sub_gap``: the incumbent's cost on the freed columns minus the Lagrangian bound of the repair
  problem at u (its rows' multipliers plus the negative parts of the freed columns' reduced costs
  over those rows): how much room the bound leaves a repair;
- ``freed_reduced``: the sum of r over the incumbent's freed columns (what ``neighbourhood=expensive``
  aims at);
- ``free_columns``, ``rows``: the repair problem's size; ``incumbent_share``: the share of freed
  columns in the incumbent.

    python -m bench.experiments.setcover_glns.glns_repair_features \
        bench/results/setcover-lns-regime/instances/random-200k/*.txt --time 30 --seeds 0 1
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import cosolve
import cosolve.methods.glns.lns as lns

REGIME = {"refine_share": 0, "refine_patience": 0, "refine_balance": 0, "repair_probation": 0}
FEATURES = ("sub_gap", "freed_reduced", "free_columns", "rows", "incumbent_share")


def auc(values: np.ndarray, positive: np.ndarray) -> float:
    """P(value of a positive > value of a negative), ties counted half; nan without both kinds."""
    pos, neg = values[positive], values[~positive]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="stable")
    ranks = np.empty(order.size)
    ranks[order] = np.arange(1, order.size + 1)
    both = np.concatenate([pos, neg])
    for v in np.unique(both):  # average ranks of ties
        tied = both == v
        ranks[tied] = ranks[tied].mean()
    return float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def record(path: str, seed: int, seconds: float) -> list[dict[str, float]]:
    """The features and outcome of every repair of one ``lns-random`` run."""
    rows_out: list[dict[str, float]] = []
    bounds: list = []
    original_bound, original_repair = lns.lagrangian_bound, lns.repair

    def bound_spy(*args, **kwargs):
        lag = original_bound(*args, **kwargs)
        bounds.append(lag)
        return lag

    def repair_spy(sub, costs, **kwargs):
        fixed = original_repair(sub, costs, **kwargs)
        u, r = bounds[-1].multipliers, bounds[-1].reduced
        start_cost = float(costs[sub.free] @ sub.start)
        weights = np.repeat(u[sub.rows], np.diff(sub.sub_ptr))
        covered = np.bincount(sub.sub_idx, weights, minlength=sub.free.size)
        sub_bound = float(u[sub.rows].sum() + np.minimum(0.0, costs[sub.free] - covered).sum())
        chosen = sub.start == 1
        rows_out.append({
            "sub_gap": start_cost - sub_bound,
            "freed_reduced": float(r[sub.free[chosen]].sum()),
            "free_columns": float(sub.free.size),
            "rows": float(sub.rows.size),
            "incumbent_share": float(chosen.mean()) if sub.free.size else 0.0,
            "improved": float(fixed.cost < start_cost - 1e-9),
        })  # fmt: skip
        return fixed

    lns.lagrangian_bound, lns.repair = bound_spy, repair_spy
    try:
        cosolve.Solver("lns-random", time_limit=seconds, seed=seed, **REGIME).solve(path)
    finally:
        lns.lagrangian_bound, lns.repair = original_bound, original_repair
    return rows_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instances", nargs="+")
    parser.add_argument("--time", type=float, default=30.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    print("| instance | seeds | repairs | improved | " + " | ".join(f"{f} AUC" for f in FEATURES) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(FEATURES))
    everything = []
    for path in args.instances:
        runs = [row for seed in args.seeds for row in record(path, seed, args.time)]
        everything += runs
        _row(Path(path).stem, args.seeds, runs)
    _row("all", args.seeds, everything)
    improved = np.array([r["improved"] for r in everything], bool)
    for name in FEATURES:
        values = np.array([r[name] for r in everything])
        edges = np.quantile(values, [0.25, 0.5, 0.75])
        quartile = np.searchsorted(edges, values, side="right")
        rates = [f"{improved[quartile == q].mean():.3f} ({int((quartile == q).sum())})" for q in range(4)]
        print(f"- {name}: success rate by quartile (lowest first): {', '.join(rates)}")


def _row(name: str, seeds: list[int], runs: list[dict[str, float]]) -> None:
    improved = np.array([r["improved"] for r in runs], bool)
    aucs = [auc(np.array([r[f] for r in runs]), improved) for f in FEATURES]
    print(f"| {name} | {len(seeds)} | {len(runs)} | {int(improved.sum())} | " + " | ".join(f"{a:.2f}" for a in aucs) + " |")


if __name__ == "__main__":
    main()
