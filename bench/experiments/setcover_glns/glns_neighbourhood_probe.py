"""Probe: do GLNS's neighbourhoods beat random ones when the LNS repairs can improve?

Runs ``lns-random``, ``glns`` with the untrained gradient rule and ``glns`` with the shipped policy
on one set cover instance for a fixed budget, with CFT's refinement on (the benchmarked setting)
or off (``--refine-share 0``: the LNS loop starts from the Lagrangian heuristic's cover and does
all the improving), and prints the final cost, the repairs run and how many improved.

``--kernel destroy`` swaps the neighbourhood builder for a destroy-and-repair one (free whole
incumbent columns in ranking order, then the candidate columns of the rows they leave uncovered)
to check that the row-walk neighbourhood of :mod:`cosolve.methods.glns.neighborhood` is not what
keeps repairs from improving.

    python -m bench.experiments.setcover_glns.glns_neighbourhood_probe \
        bench/results/glns/instances/random-200k/rand2000x200000_2000000_s2.txt \
        --time 30 --refine-share 0 --seeds 0 1
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

import cosolve
import cosolve.methods.glns.lns as lns

METHODS = {"lns-random": ("lns-random", {}), "glns-gradient": ("glns", {"policy": "gradient"}), "glns": ("glns", {})}


@njit(cache=True)
def destroy_kernel(ranking, row_ptr, row_idx, col_ptr, col_idx, cand_ptr, cand_idx, x, budget):
    """Same contract as :func:`cosolve.methods.glns.neighborhood.free_columns_kernel`: walk the
    ranking; an incumbent column is freed, a non-incumbent one frees the incumbent columns covering
    its rows; every row left uncovered adds its candidates. Stops at ``budget`` free columns."""
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    cover = np.zeros(m, np.int64)  # the incumbent's columns per row
    for j in np.flatnonzero(x):
        for p in range(col_ptr[j], col_ptr[j + 1]):
            cover[col_idx[p]] += 1
    in_free = np.zeros(n, np.bool_)
    free = np.empty(n, np.int64)
    rows = np.empty(m, np.int64)
    stack = np.empty(n, np.int64)
    nf = nr = 0
    for t in range(ranking.size):
        if nf >= budget:
            break
        j0 = ranking[t]
        ns = 0
        if x[j0]:
            stack[0] = j0
            ns = 1
        else:
            for p in range(col_ptr[j0], col_ptr[j0 + 1]):
                for q in range(row_ptr[col_idx[p]], row_ptr[col_idx[p] + 1]):
                    if x[row_idx[q]] and not in_free[row_idx[q]]:
                        stack[ns] = row_idx[q]
                        ns += 1
        for s in range(ns):
            k = stack[s]
            if in_free[k]:
                continue
            in_free[k] = True
            free[nf] = k
            nf += 1
            for p in range(col_ptr[k], col_ptr[k + 1]):
                i = col_idx[p]
                cover[i] -= 1
                if cover[i] == 0:
                    rows[nr] = i
                    nr += 1
                    for q in range(cand_ptr[i], cand_ptr[i + 1]):
                        if not in_free[cand_idx[q]]:
                            in_free[cand_idx[q]] = True
                            free[nf] = cand_idx[q]
                            nf += 1
    return free[:nf].copy(), rows[:nr].copy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instance")
    parser.add_argument("--time", type=float, default=30.0, help="seconds per run")
    parser.add_argument("--refine-share", type=float, default=0.8, help="CFT refinement share (0 = off)")
    parser.add_argument("--kernel", choices=("rows", "destroy"), default="rows")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--methods", nargs="+", choices=sorted(METHODS), default=list(METHODS))
    args = parser.parse_args()
    if args.kernel == "destroy":
        lns.free_columns_kernel = destroy_kernel
    problem = cosolve.read(args.instance)
    for seed in args.seeds:
        for label in args.methods:
            method, options = METHODS[label]
            started = time.perf_counter()
            solver = cosolve.Solver(method, time_limit=args.time, threads=1, seed=seed, refine_share=args.refine_share, **options)
            result = solver.fit([]).solve(problem)
            s = result.stats
            row = {"method": label, "seed": seed, "kernel": args.kernel, "objective": result.objective, "bound": result.bound}
            row |= {k: s.get(k) for k in ("heuristic_objective", "refined_objective", "iterations", "improved")}
            row["wall"] = round(time.perf_counter() - started, 1)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
