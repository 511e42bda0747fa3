"""TSP heuristics (numba): nearest neighbour and greedy edge tours and 2-opt (tour_construction),
and 2-opt + Or-opt on candidate lists with an iterated local search (iterated_local_search)."""
