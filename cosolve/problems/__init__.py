"""Problem families: data, solution evaluation and exact models."""

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
