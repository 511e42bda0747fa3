"""Set cover heuristics (numba): Chvátal's greedy and redundancy removal (greedy_cover), the swap search
(swap_search), row-weighting local search (row_weighting), Lagrangian bounds and reduced costs
(lagrangian), and the Caprara-Fischetti-Toth three-phase heuristic with its refinement (three_phase)."""
