"""Numba heuristics, by problem family, shared by the baselines and the learned methods.

* :mod:`cosolve.heuristics.setcover` -- Chvátal's greedy, the swap search, RWLS, Lagrangian bounds
  and CFT's three-phase heuristic, on CSR/CSC arrays.
* :mod:`cosolve.heuristics.graphs` -- greedy constructions (min-degree MIS, greedy clique, MaxCut
  1-flip, greedy dominating set) and one local search per problem (MIS, NuMVC, MaxCut, MDS).
* :mod:`cosolve.heuristics.tsp` -- tour construction (nearest neighbour, greedy edge, 2-opt) and
  the iterated local search (TSPLIB distances on the fly).
* shared helpers: :mod:`~cosolve.heuristics.heap`, :mod:`~cosolve.heuristics.kernel_arrays`,
  :mod:`~cosolve.heuristics.sparse_index`, :mod:`~cosolve.heuristics.numba_random`.

Importing a kernel module imports numba; kernels compile on first use and are cached on disk
(``cache=True``). The package modules themselves stay light: import the submodule you need.
"""
