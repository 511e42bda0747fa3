"""Named random graph distributions for training and benchmarking the graph solvers.

Each distribution maps a seed to one graph problem, deterministically. Seeds are split so that
training, validation and test graphs never coincide: ``cosolve generate`` and the benchmark
suites use seeds from 0 (test), training validation uses :data:`VALIDATION_SEED` + i and
training graphs :data:`TRAINING_SEED` + i.

============ ===========================================================================
rb-small     RB graphs, n in 20..24 cliques of k in 5..11 nodes, p ~ U(0.3, 1); 200-300 nodes
rb-large     RB graphs, n in 40..54, k in 20..24, p ~ U(0.3, 1); 800-1200 nodes
er-700-800   Erdős–Rényi G(n, 0.15), n in 700..800
ba-small     Barabási–Albert, m = 4, n in 200..300
ba-large     Barabási–Albert, m = 4, n in 800..1200
============ ===========================================================================
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cosolve.errors import InputError
from cosolve.generators.graphs import barabasi_albert, erdos_renyi, rb_graph
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem

VALIDATION_SEED = 500_000
TRAINING_SEED = 1_000_000
_MAX_TRIES = 1000


def _rb(cliques: tuple[int, int], size: tuple[int, int], nodes: tuple[int, int]) -> Callable[[int, str], GraphProblem]:
    def draw(seed: int, problem: str) -> GraphProblem:
        rng = np.random.default_rng([seed, 0x5B])
        for _ in range(_MAX_TRIES):  # rejection: keep graphs whose node count lies in ``nodes``
            n, k = int(rng.integers(cliques[0], cliques[1] + 1)), int(rng.integers(size[0], size[1] + 1))
            p = float(rng.uniform(0.3, 1.0))
            if nodes[0] <= n * k <= nodes[1] and p < 1.0:
                return rb_graph(n, k, p, problem=problem, seed=int(rng.integers(2**31)))
        raise RuntimeError("no RB parameters within the node range")  # pragma: no cover

    return draw


def _sized(
    nodes: tuple[int, int], salt: int, make: Callable[..., GraphProblem], parameter: float
) -> Callable[[int, str], GraphProblem]:
    """Draw n uniform in ``nodes`` from the seed, then ``make(n, parameter, problem=, seed=)``."""

    def draw(seed: int, problem: str) -> GraphProblem:
        n = int(np.random.default_rng([seed, salt]).integers(nodes[0], nodes[1] + 1))
        return make(n, parameter, problem=problem, seed=seed)

    return draw


DISTRIBUTIONS: dict[str, Callable[[int, str], GraphProblem]] = {
    "rb-small": _rb((20, 24), (5, 11), (200, 300)),
    "rb-large": _rb((40, 54), (20, 24), (800, 1200)),
    "er-700-800": _sized((700, 800), 0xE7, erdos_renyi, 0.15),
    "ba-small": _sized((200, 300), 0xBA, barabasi_albert, 4),
    "ba-large": _sized((800, 1200), 0xBA, barabasi_albert, 4),
}


def check_distribution(name: str) -> str:
    if name not in DISTRIBUTIONS:
        raise InputError(f"unknown graph distribution {name!r}; valid: {', '.join(DISTRIBUTIONS)}")
    return name


def sample_graph(distribution: str, seed: int, problem: str = "mis") -> GraphProblem:
    """The graph of ``distribution`` for ``seed``, as the graph problem ``problem``."""
    check_distribution(distribution)
    if problem not in GRAPH_PROBLEMS:
        raise InputError(f"unknown graph problem {problem!r}; valid: {', '.join(GRAPH_PROBLEMS)}")
    graph = DISTRIBUTIONS[distribution](int(seed), problem)
    graph.name = f"{distribution}-{int(seed)}"
    return graph
