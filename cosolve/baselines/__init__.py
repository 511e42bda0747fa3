"""Baselines: one module per method that is not learned: exact solvers (scip, cpsat), OR-Tools
heuristics (ortools_routing, ortools_setcover), outside heuristics (cft, lkh, qubo: tabu and sa), and
cosolve's own classical methods (greedy, tsp_ils, rlsa, graph_polish)."""
