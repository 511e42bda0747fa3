"""The row-weighting local search against CFT's refinement, each on its own (issue 26, item 1).

    python -m bench.experiments.setcover_glns.rwls_ingredients FILE... [--budget 20] [--seeds 0] [--variants refine,rwls-20,mix]
        [--workers 2]

For each instance and seed, every variant starts from the same place: Chvátal's greedy, redundancy
removal and the swap search, the Lagrangian bound (1,000 subgradient steps) and CFT's Lagrangian
heuristic (200 steps) from it; the budget counts from before the start. Variants:

- ``refine``: CFT's refinement (:func:`cosolve.heuristics.setcover.three_phase.refine`) for the whole budget, cycling
  its fixing fraction without stopping on a stalled cycle;
- ``rwls-K``: the row-weighting local search on the core of the K columns of least reduced cost per
  row (:func:`cosolve.heuristics.setcover.row_weighting.rwls_on_core`) for the whole budget;
  ``rwls-all``: on every column the bound keeps;
- ``mix``: the refinement for 0.3 of the budget, then ``rwls-20`` for the rest.

Prints a Markdown table of the objective per instance, seed and variant, with the mean per
suite (the folder above each file). ``--workers`` processes at a time (the kernels are
single-threaded numba).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover.row_weighting import rwls_on_core
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.heuristics.setcover.three_phase import refine
from cosolve.io import read

MIX_SHARE = 0.3


def run(path: str, budget: float, seed: int, variant: str) -> float:
    """The objective of ``variant`` on ``path`` after ``budget`` seconds (start included)."""
    p = read(path)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    t0 = time.perf_counter()
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, chvatal_greedy(costs, csr, csc)))
    lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=1000)
    h, _ = lagrangian_heuristic(costs, csr, csc, lag, upper=float(costs @ x), iterations=200, stop=lambda: False)
    if h is not None:
        x = swap_local_search(costs, csr, csc, h)
    rng = np.random.default_rng(seed)

    def until(t: float):
        return lambda: time.perf_counter() > t

    def refined(x: np.ndarray, t: float) -> np.ndarray:
        return refine(costs, csr, csc, lag, x, stop=until(t), rng=rng, stall_cycles=1 << 30)

    def searched(x: np.ndarray, per_row: int | None) -> np.ndarray:
        if per_row is None:
            per_row = costs.size  # every usable column
        return rwls_on_core(costs, csr, csc, lag, x, per_row=per_row, stop=until(t0 + budget), seed=seed)

    if variant == "refine":
        y = refined(x, t0 + budget)
    elif variant == "mix":
        y = searched(refined(x, t0 + MIX_SHARE * budget), 20)
    elif variant.startswith("rwls-"):
        k = variant.removeprefix("rwls-")
        y = searched(x, None if k == "all" else int(k))
    else:
        raise ValueError(f"unknown variant {variant!r}")
    assert np.all(csr @ y.astype(np.int64) >= 1)
    return float(costs @ y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per run, the start included")
    parser.add_argument("--seeds", default="0", help="comma-separated")
    parser.add_argument("--variants", default="refine,rwls-20,mix", help="comma-separated: refine, rwls-K, rwls-all, mix")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    variants = args.variants.split(",")
    jobs = [(f, s, v) for f in args.files for s in seeds for v in variants]
    with ProcessPoolExecutor(args.workers) as pool:
        values = list(pool.map(run, *zip(*[(f, args.budget, s, v) for f, s, v in jobs], strict=True)))
    table = dict(zip(jobs, values, strict=True))
    print(f"| instance | {' | '.join(variants)} |")
    print("|---" * (len(variants) + 1) + "|")
    suites: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for f in args.files:
        cells = []
        for v in variants:
            got = [table[(f, s, v)] for s in seeds]
            suites[Path(f).parent.name][v] += got
            cells.append(" ".join(f"{g:g}" for g in got))
        print(f"| {Path(f).stem} | {' | '.join(cells)} |")
    for suite, by_variant in suites.items():
        means = " | ".join(f"**{np.mean(by_variant[v]):.2f}**" for v in variants)
        print(f"| {suite} (mean) | {means} |")


if __name__ == "__main__":
    main()
