"""Graph heuristics (numba): greedy constructions (greedy_constructions) and one local search per
problem behind one interface (local_search): ARW's ILS for MIS (mis_search), NuMVC (numvc), 1-flip
tabu search for MaxCut (maxcut_search), swap search for MDS (mds_search); MaxClique runs the MIS
searches on the complement graph."""
