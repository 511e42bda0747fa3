"""Probe: after the row-weighting local search, does any neighbourhood still find a cheaper cover?

From the Lagrangian heuristic's cover, RWLS runs for ``--rwls`` seconds (seed 0) and half as long
from seeds 1 and 2; every cover it improves to and the three final ones go into a pool of the ten
cheapest (:class:`cosolve.heuristics.setcover.three_phase.CoverPool`). From the best final cover, ``--repairs``
sub-MIP repairs of ``--size`` free columns each (``--slice`` seconds, SCIP) are run for each
ranking of ``cosolve/methods/glns`` (random, expensive, disagreement), and one *merge*: a sub-MIP over
the union of the pool's covers. Prints, per kind, the repairs that found a cheaper cover, the mean
free columns and rows, and how many the sub-solver closed.

    python -m bench.experiments.setcover_glns.glns_targeted_probe \
        bench/results/setcover-lns-regime/instances/random-200k/rand2000x200000_2000000_s2.txt \
        --rwls 20 --repairs 8 --size 1500 --slice 3 --merge-slice 20
"""

from __future__ import annotations

import argparse
import json
import time
from types import SimpleNamespace

import numpy as np

import cosolve
from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover.row_weighting import rwls_on_core
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.heuristics.setcover.three_phase import CoverPool
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.methods.glns.lns import random_ranker
from cosolve.methods.glns.neighborhood import Subproblem, candidate_lists, free_columns_kernel, subproblem_kernel
from cosolve.methods.glns.repair import repair
from cosolve.methods.glns.targeted import disagreement_ranker, expensive_ranker

RANKERS = {"random": random_ranker, "expensive": expensive_ranker, "disagreement": disagreement_ranker}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instance")
    parser.add_argument("--rwls", type=float, default=20.0, help="seconds of RWLS from seed 0 (half from seeds 1, 2)")
    parser.add_argument("--repairs", type=int, default=8)
    parser.add_argument("--size", type=int, default=1500, help="free columns per repair")
    parser.add_argument("--slice", type=float, default=3.0, help="seconds per repair")
    parser.add_argument("--merge-slice", type=float, default=20.0, help="seconds for the merge sub-MIP")
    args = parser.parse_args()

    p = cosolve.read(args.instance)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    never = lambda: False  # noqa: E731
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, chvatal_greedy(costs, csr, csc, stop=never)))
    lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=1000, stop=never)
    heuristic, _ = lagrangian_heuristic(costs, csr, csc, lag, upper=float(costs @ x), iterations=200, stop=never)
    start = swap_local_search(costs, csr, csc, heuristic if heuristic is not None else x)
    pool = CoverPool(10)
    finals = []
    for seed, seconds in ((0, args.rwls), (1, args.rwls / 2), (2, args.rwls / 2)):
        until = time.perf_counter() + seconds
        y = rwls_on_core(
            costs, csr, csc, lag, start, per_row=20, seed=seed, stop=lambda until=until: time.perf_counter() > until,
            on_improve=pool.offer,
        )  # fmt: skip
        pool.offer(y, float(costs @ y))
        finals.append(y)
    best = min(finals, key=lambda y: float(costs @ y))
    union = np.flatnonzero(np.sum([y for _, y in pool.covers.values()], axis=0) > 0).astype(np.int64)
    print(json.dumps({
        "bound": lag.bound, "heuristic": float(costs @ start), "rwls": [float(costs @ y) for y in finals],
        "pool": sorted(c for c, _ in pool.covers.values()), "union": int(union.size),
    }), flush=True)  # fmt: skip

    allowed = ~lag.fixable(float(costs @ best))
    cand_ptr, cand_idx = candidate_lists(lag.reduced, allowed, row_ptr, row_idx, 40)
    cover = np.asarray(csr @ best.astype(np.int64), dtype=np.int64)
    state = SimpleNamespace(x=best, lagrangian=lag, pool=pool)
    rng = np.random.default_rng(0)

    def attempt(free: np.ndarray, seconds: float, seed: int) -> tuple[bool, int, bool]:
        rows, sub_ptr, sub_idx = subproblem_kernel(free, row_ptr, row_idx, col_ptr, col_idx, best, cover)
        sub = Subproblem(free, rows, sub_ptr, sub_idx, best[free].copy())
        fixed = repair(sub, costs, time_limit=seconds, seed=seed)
        return fixed.cost < float(costs[free] @ sub.start) - 1e-9, int(rows.size), fixed.optimal

    for kind, ranker in RANKERS.items():
        outcomes, sizes = [], []
        for k in range(args.repairs):
            ranking = np.ascontiguousarray(ranker(state, rng), dtype=np.int64)
            free, _ = free_columns_kernel(ranking, row_ptr, row_idx, col_ptr, col_idx, cand_ptr, cand_idx, best, args.size)
            outcomes.append(attempt(free, args.slice, k))
            sizes.append(free.size)
        improved, rows, closed = zip(*outcomes, strict=True)
        print(json.dumps({
            "kind": kind, "repairs": args.repairs, "improved": int(sum(improved)), "free": float(np.mean(sizes)),
            "rows": float(np.mean(rows)), "closed": int(sum(closed)),
        }), flush=True)  # fmt: skip
    improved, rows, closed = attempt(union, args.merge_slice, 0)
    print(json.dumps({"kind": "merge", "improved": improved, "free": int(union.size), "rows": rows, "closed": closed}))


if __name__ == "__main__":
    main()
