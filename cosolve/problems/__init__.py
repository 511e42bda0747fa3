"""Problem families: data, solution evaluation and exact models.

The names below are imported on first use (the graph families import scipy.sparse), so that a
module that needs only the kind registry does not load every family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosolve.core.lazy_exports import lazy_exports

_EXPORTS = {
    "Evaluation": "cosolve.core.problem",
    "ExactModel": "cosolve.core.problem",
    "Problem": "cosolve.core.problem",
    "GRAPH_PROBLEMS": "cosolve.problems.graphs",
    "GraphProblem": "cosolve.problems.graphs",
    "MaxCut": "cosolve.problems.graphs",
    "MaximumClique": "cosolve.problems.graphs",
    "MaximumIndependentSet": "cosolve.problems.graphs",
    "MinimumDominatingSet": "cosolve.problems.graphs",
    "MIP": "cosolve.problems.mip",
    "ProblemKind": "cosolve.problems.registry",
    "get_kind": "cosolve.problems.registry",
    "problem_kinds": "cosolve.problems.registry",
    "SetCover": "cosolve.problems.setcover",
    "TSP": "cosolve.problems.tsp",
}

if TYPE_CHECKING:
    from cosolve.core.problem import Evaluation, ExactModel, Problem
    from cosolve.problems.graphs import (
        GRAPH_PROBLEMS,
        GraphProblem,
        MaxCut,
        MaximumClique,
        MaximumIndependentSet,
        MinimumDominatingSet,
    )
    from cosolve.problems.mip import MIP
    from cosolve.problems.registry import ProblemKind, get_kind, problem_kinds
    from cosolve.problems.setcover import SetCover
    from cosolve.problems.tsp import TSP


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "GRAPH_PROBLEMS",
    "MIP",
    "TSP",
    "Evaluation",
    "ExactModel",
    "GraphProblem",
    "MaxCut",
    "MaximumClique",
    "MaximumIndependentSet",
    "MinimumDominatingSet",
    "Problem",
    "ProblemKind",
    "SetCover",
    "get_kind",
    "problem_kinds",
]
