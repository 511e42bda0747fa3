"""Does a merge of the refinement's covers pay (issue 26, rail-scattered-3 at 60 s)? CMSA's merge
(Blum et al. 2016): solve the instance restricted to the union of the columns of the K cheapest
distinct covers that CFT's refinement completed along the way.

    python bench/setcover_merge_probe.py INSTANCE --seed 0 [--budget 30] [--counts 10,20,30] [--limit 10]

Shared start as in glns (Chvátal's greedy, redundancy removal, swap search, 1,000 subgradient
steps, the Lagrangian heuristic), then one refinement (one stalled cycle of its fixing fraction, at
most ``--budget`` seconds) that records every cover its three-phases complete, then, for each K,
SCIP on the columns of the K cheapest covers plus the refined one, with an objective limit half a
unit below the refined cover and ``--limit`` seconds. Prints one line per step; one thread.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosolve.heuristics import cft
from cosolve.heuristics.lagrangian import lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover_local import swap_local_search
from cosolve.io import read


def restricted_optimum(
    costs: np.ndarray, csc, columns: np.ndarray, below: float, limit: float, seed: int
) -> tuple[float | None, str, float]:
    """SCIP on the set cover restricted to ``columns``: the best objective under ``below`` (None if
    none), SCIP's status and its seconds."""
    import pyscipopt

    sub = csc[:, columns].tocsr()
    model = pyscipopt.Model()
    model.hideOutput()
    model.setParam("limits/time", limit)
    model.setParam("parallel/maxnthreads", 1)
    model.setParam("randomization/randomseedshift", seed)
    y = [model.addVar(vtype="B", obj=float(costs[j])) for j in columns]
    for i in range(sub.shape[0]):
        model.addCons(pyscipopt.quicksum(y[t] for t in sub.indices[sub.indptr[i] : sub.indptr[i + 1]]) >= 1)
    model.setObjlimit(below)
    started = time.perf_counter()
    model.optimize()
    value = model.getObjVal() if model.getNSols() else None
    return (value if value is not None and value < below else None), model.getStatus(), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instance")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--counts", default="10,20,30")
    parser.add_argument("--limit", type=float, default=10.0)
    args = parser.parse_args()

    p = read(args.instance)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
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
    print(f"seed {args.seed}: refined {best:g} in {time.perf_counter() - started:.1f} s, {len(covers)} distinct covers")
    for count in (int(c) for c in args.counts.split(",")):
        union = set(np.flatnonzero(refined).tolist())
        for _, cols in cheapest[:count]:
            union.update(cols.tolist())
        value, status, seconds = restricted_optimum(costs, csc, np.array(sorted(union)), best - 0.5, args.limit, args.seed)
        found = "nothing cheaper" if value is None else f"{value:g}"
        print(f"  K {count}: {len(union)} columns -> {found} ({status}, {seconds:.2f} s)")


if __name__ == "__main__":
    main()
