"""Does a merge of the refinement's covers pay (issue 26, rail-scattered-3 at 60 s)? CMSA's merge
(Blum et al. 2016): solve the instance restricted to the union of the columns of the K cheapest
distinct covers that CFT's refinement completed along the way.

    python -m bench.experiments.setcover_glns.setcover_merge_probe \
        INSTANCE --seed 0 [--budget 30] [--counts 10,20,30] [--limit 10] [--cores 2,3,5]

Shared start as in glns (Chvátal's greedy, redundancy removal, swap search, 1,000 subgradient
steps, the Lagrangian heuristic), then one refinement (one stalled cycle of its fixing fraction, at
most ``--budget`` seconds) that records every cover its three-phases complete, then, for each K,
glns's sub-MIP repair (SCIP, cut off below the refined cover, ``--limit`` seconds) on the columns of
the K cheapest covers plus the refined one; with ``--cores``, for each k, the same repair on the
core of the k columns of least reduced cost per row (at the bound's multipliers) plus the refined
cover's. Prints the Lagrangian bound and one line per step; one thread.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosolve.heuristics.setcover import three_phase as cft
from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import core_kernel, lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.io import read
from cosolve.methods.glns.neighborhood import Subproblem, subproblem_kernel
from cosolve.methods.glns.repair import repair


def restricted_optimum(
    costs: np.ndarray, arrays: tuple[np.ndarray, ...], columns: np.ndarray, x: np.ndarray, limit: float, seed: int
) -> tuple[float | None, bool, float]:
    """glns's sub-MIP repair (SCIP, cut off below the cover ``x``) on the instance restricted to
    ``columns`` (int64, a superset of ``x``'s): the cheaper cover's cost (None if none), whether
    it was proven optimal there, and the seconds it took."""
    row_ptr, row_idx, col_ptr, col_idx = arrays
    cover = np.zeros(row_ptr.size - 1, np.int64)
    for j in np.flatnonzero(x):
        cover[col_idx[col_ptr[j] : col_ptr[j + 1]]] += 1
    rows, sub_ptr, sub_idx = subproblem_kernel(columns, row_ptr, row_idx, col_ptr, col_idx, x, cover)
    started = time.perf_counter()
    fixed = repair(Subproblem(columns, rows, sub_ptr, sub_idx, x[columns].copy()), costs, time_limit=limit, seed=seed)
    cheaper = fixed.cost < float(costs[columns] @ x[columns]) - 1e-9
    return (fixed.cost if cheaper else None), fixed.optimal, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instance")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--counts", default="10,20,30")
    parser.add_argument("--limit", type=float, default=10.0)
    parser.add_argument("--cores", default="", help="comma-separated k: also repair on the k-per-row core")
    args = parser.parse_args()

    p = read(args.instance)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    arrays = index_arrays(csr, csc)
    never = lambda: False  # noqa: E731
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, chvatal_greedy(costs, csr, csc)))
    lag = lagrangian_bound(costs, csr, csc, upper=float(costs @ x), iterations=1000, stop=never)
    h, _ = lagrangian_heuristic(costs, csr, csc, lag, upper=float(costs @ x), iterations=200, stop=never)
    x = swap_local_search(costs, csr, csc, h) if h is not None else x

    covers: dict[bytes, tuple[float, np.ndarray]] = {}  # distinct covers, as column indices of the whole instance
    three_phase = cft.three_phase

    def recording(whole, *positional, **keywords):
        def seen(y: np.ndarray, cost: float) -> None:
            cols = whole.cols[np.flatnonzero(y)]
            covers.setdefault(cols.tobytes(), (cost, cols))

        keywords["on_cover"] = seen
        return three_phase(whole, *positional, **keywords)

    cft.three_phase = recording
    started = time.perf_counter()
    refined = cft.refine(
        costs, csr, csc, lag, x, rng=np.random.default_rng(args.seed), stall_cycles=1,
        stop=lambda: time.perf_counter() - started > args.budget,
    )  # fmt: skip
    cft.three_phase = three_phase
    best = float(costs @ refined)
    cheapest = sorted(covers.values(), key=lambda item: item[0])
    print(
        f"seed {args.seed}: Lagrangian bound {lag.bound:.2f}, refined {best:g} in {time.perf_counter() - started:.1f} s, "
        f"{len(covers)} distinct covers"
    )
    for count in (int(c) for c in args.counts.split(",")):
        union = set(np.flatnonzero(refined).tolist())
        for _, cols in cheapest[:count]:
            union.update(cols.tolist())
        columns = np.array(sorted(union), dtype=np.int64)
        value, proven, seconds = restricted_optimum(costs, arrays, columns, refined, args.limit, args.seed)
        found = "nothing cheaper" if value is None else f"{value:g}"
        print(f"  K {count}: {len(union)} columns -> {found} ({'proven' if proven else 'time limit'}, {seconds:.2f} s)")
    row_ptr, row_idx = arrays[0], arrays[1]
    for k in (int(c) for c in args.cores.split(",") if c):
        columns = np.union1d(core_kernel(lag.reduced, row_ptr, row_idx, k, 0.0), np.flatnonzero(refined)).astype(np.int64)
        value, proven, seconds = restricted_optimum(costs, arrays, columns, refined, args.limit, args.seed)
        found = "nothing cheaper" if value is None else f"{value:g}"
        print(f"  core {k} per row: {columns.size} columns -> {found} ({'proven' if proven else 'time limit'}, {seconds:.2f} s)")


if __name__ == "__main__":
    main()
