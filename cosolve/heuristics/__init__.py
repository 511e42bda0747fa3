"""Numba heuristics shared by the methods: set cover, graph problems and TSP.

* :mod:`cosolve.heuristics.setcover.greedy_cover` -- Chvátal's greedy and redundancy removal on CSR/CSC arrays.
* :mod:`cosolve.heuristics.graphs.greedy_constructions` -- min-degree MIS, greedy clique, MaxCut 1-flip search,
  greedy minimal dominating set.
* :mod:`cosolve.heuristics.tsp.tour_construction` -- nearest neighbour tour and 2-opt (TSPLIB distances on the fly).

Importing a submodule imports numba; kernels compile on first use and are cached on disk
(``cache=True``). This package module itself stays light: import the submodule you need.
"""
