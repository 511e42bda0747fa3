"""The interface of the graph local searches that polish a feasible solution in chunks of
iterations: MIS (:mod:`~cosolve.heuristics.graphs.mis_search`, and NuMVC in
:mod:`~cosolve.heuristics.graphs.numvc`), MaxCut (:mod:`~cosolve.heuristics.graphs.maxcut_search`)
and MDS (:mod:`~cosolve.heuristics.graphs.mds_search`); MaxClique runs the MIS searches on the
complement graph.

Every search keeps its whole state in arrays, so :meth:`GraphLocalSearch.run` can be called again
and again (between calls a caller checks its deadline); numba's random generator is seeded once,
so a given seed and number of iterations give the same result however the iterations are chunked.
"""

from __future__ import annotations

import numpy as np


class GraphLocalSearch:
    """A local search from a feasible solution ``start`` (n,) 0/1 of one graph problem.

    ``run(iterations)`` continues the search and returns whether the best solution improved;
    ``best`` is the best solution so far (n,) int8, feasible for the problem.
    """

    def __init__(self, best: np.ndarray) -> None:
        self.best = best

    def run(self, iterations: int) -> bool:
        raise NotImplementedError
