"""Compile (or load from numba's cache) every kernel the set cover LNS uses, before a solve's clock
starts: a warm-up solve of a tiny instance ends before the LNS loop (greedy and the bound already
prove it optimal), so its kernels would otherwise compile inside the first real budget."""

from __future__ import annotations

import numpy as np

_warm = False


def warm_kernels() -> None:
    """Run each kernel once on a small random set cover, with the dtypes real solves use."""
    global _warm
    if _warm:
        return
    from cosolve.generators.setcover import random_setcover
    from cosolve.heuristics.setcover.greedy_cover import greedy_set_cover
    from cosolve.heuristics.setcover.lagrangian import lagrangian_bound, lagrangian_heuristic
    from cosolve.heuristics.setcover.row_weighting import rwls
    from cosolve.heuristics.setcover.swap_search import swap_local_search
    from cosolve.heuristics.setcover.three_phase import refine
    from cosolve.heuristics.sparse_index import index_arrays
    from cosolve.methods.glns.instability import extract_region, generate, gradient_rule, region_kernel
    from cosolve.methods.glns.neighborhood import candidate_lists, free_columns_kernel, subproblem_kernel

    p = random_setcover(30, 300, nnz=1500, seed=0)
    costs, csr, csc = p.costs, p.matrix, p.csc
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)
    x = swap_local_search(costs, csr, csc, greedy_set_cover(costs, csr, csc))
    upper = float(costs @ x)
    for core in (10**9, 0):  # the full and the core (re-priced) subgradient paths
        lag = lagrangian_bound(costs, csr, csc, upper=upper, iterations=30, core_min_columns=core)
    lagrangian_heuristic(costs, csr, csc, lag, upper=upper, iterations=3)
    refine(costs, csr, csc, lag, x, stop=lambda: False, rng=np.random.default_rng(0), max_rounds=2)
    rwls(costs, csr, csc, x, stop=lambda: False, max_steps=200, chunk=100)
    allowed = ~lag.fixable(upper)
    cand_ptr, cand_idx = candidate_lists(lag.reduced, allowed, row_ptr, row_idx, 5)
    cover = np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
    ranking = np.arange(p.n_cols, dtype=np.int64)
    free, _ = free_columns_kernel(ranking, row_ptr, row_idx, col_ptr, col_idx, cand_ptr, cand_idx, x, 20)
    subproblem_kernel(free, row_ptr, row_idx, col_ptr, col_idx, x, cover)
    _, columns = region_kernel(0, row_ptr, row_idx, col_ptr, col_idx, cand_ptr, cand_idx, x, 50)
    region = extract_region(csc, costs, lag.reduced, x, cover, columns)
    generate(region, gradient_rule(), chains=2, steps=2, noise=0.3, rng=np.random.default_rng(0))
    _warm = True
