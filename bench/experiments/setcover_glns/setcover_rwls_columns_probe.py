"""Which columns should glns's row-weighting search move among? One refinement, then the search
from the refined cover on three cores (issue 26, rail-scattered-3 at 60 s).

    python -m bench.experiments.setcover_glns.setcover_rwls_columns_probe \
        INSTANCE --seed 0 [--budget 30] [--seconds 20] [--per-row 20] [--write FILE]

Shared start as in glns (Chvátal's greedy, redundancy removal, swap search, 1,000 subgradient
steps, the Lagrangian heuristic), then one refinement (one stalled cycle, at most ``--budget``
seconds) recording the columns of every cover its three-phases complete ("seen"). Then
``--seconds`` of the row-weighting search from the refined cover on each core: "reduced" (the
``--per-row`` columns of least reduced cost per row, glns's core before), "both" (reduced and seen)
and "seen"; each core also holds the refined cover's columns. Prints one line per core (the cover's
cost, checked feasible by the problem); one thread. ``--write FILE`` writes the cheapest cover as a
solution file (``cosolve validate FILE INSTANCE`` checks it).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosolve.heuristics.setcover import three_phase as cft
from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover.row_weighting import rwls_on_core
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.io import read, write_solution


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instance")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--per-row", type=int, default=20)
    parser.add_argument("--write", help="write the cheapest cover found to this solution file")
    args = parser.parse_args()

    p = read(args.instance)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    never = lambda: False  # noqa: E731
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, chvatal_greedy(costs, csr, csc)))
    lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=1000, stop=never)
    h, _ = lagrangian_heuristic(costs, csr, csc, lag, upper=float(costs @ x), iterations=200, stop=never)
    x = swap_local_search(costs, csr, csc, h) if h is not None else x

    seen = np.zeros(costs.size, np.bool_)

    def completed(columns: np.ndarray, cost: float) -> None:
        seen[columns] = True

    started = time.perf_counter()
    refined = cft.refine(
        costs, csr, csc, lag, x, rng=np.random.default_rng(args.seed), stall_cycles=1, on_cover=completed,
        stop=lambda: time.perf_counter() - started > args.budget,
    )  # fmt: skip
    extra = np.flatnonzero(seen).astype(np.int64)
    print(
        f"seed {args.seed}: Lagrangian bound {lag.bound:.2f}, refined {costs @ refined:g} in "
        f"{time.perf_counter() - started:.1f} s; {extra.size} columns seen in completed covers"
    )
    cheapest = refined
    for name, per_row, columns in (("reduced", args.per_row, None), ("both", args.per_row, extra), ("seen", 0, extra)):
        begun = time.perf_counter()
        y = rwls_on_core(
            costs, csr, csc, lag, refined, per_row=per_row, extra=columns, seed=args.seed,
            stop=lambda begun=begun: time.perf_counter() - begun > args.seconds,
        )  # fmt: skip
        verdict = p.evaluate(y)
        print(f"  {name}: {costs @ y:g} ({'feasible' if verdict.feasible else 'NOT FEASIBLE'})")
        if verdict.feasible and costs @ y < costs @ cheapest:
            cheapest = y
    if args.write:
        write_solution(p, cheapest, args.write)


if __name__ == "__main__":
    main()
