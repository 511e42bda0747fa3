"""Problem families: data, solution evaluation and exact models."""

from cosolve.problems.base import Evaluation, ExactModel, Problem
from cosolve.problems.graphs import (
    GRAPH_PROBLEMS,
    GraphProblem,
    MaxCut,
    MaximumClique,
    MaximumIndependentSet,
    MinimumDominatingSet,
)
from cosolve.problems.mip import MIP
from cosolve.problems.setcover import SetCover
from cosolve.problems.tsp import TSP

PROBLEM_KINDS = ("setcover", "mis", "maxcut", "maxclique", "mds", "tsp", "jigsaw", "mip")

__all__ = [
    "GRAPH_PROBLEMS",
    "MIP",
    "PROBLEM_KINDS",
    "TSP",
    "Evaluation",
    "ExactModel",
    "GraphProblem",
    "MaxCut",
    "MaximumClique",
    "MaximumIndependentSet",
    "MinimumDominatingSet",
    "Problem",
    "SetCover",
]
