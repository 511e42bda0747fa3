"""Named random instance distributions for training and benchmarking the learned solvers.

Each distribution maps a seed to one instance, deterministically. Seeds are split so that
training, validation and test instances never coincide: ``cosolve generate`` and the benchmark
suites use seeds from 0 (test), training validation uses :data:`VALIDATION_SEED` + i and
training instances :data:`TRAINING_SEED` + i.

============ ===========================================================================
rb-small     RB graphs, n in 20..24 cliques of k in 5..11 nodes, p ~ U(0.3, 1); 200-300 nodes
rb-large     RB graphs, n in 40..54, k in 20..24, p ~ U(0.3, 1); 800-1200 nodes
er-700-800   Erdős–Rényi G(n, 0.15), n in 700..800
ba-small     Barabási–Albert, m = 4, n in 200..300
ba-large     Barabási–Albert, m = 4, n in 800..1200
balas-ho     set cover, 50..200 rows, 5..10 columns per row, density 2..5%, costs unicost,
             1..10 or 1..100 (GLNS's training distribution)
orlib-nr     set cover in the shapes of OR-Library's sets nre..nrh (Beasley 1990), seed % 4
             picks the set: 500 x 5,000 at 10% (nre) or 20% (nrf), 1,000 x 10,000 at 2% (nrg)
             or 5% (nrh); costs 1..100
rail         rail-like set cover (:func:`cosolve.generators.setcover.rail_like`): 500..2,500
             rows, 100..400 columns per row (at most 1,000,000), columns of 1..12 rows in up to
             three runs of consecutive rows, costs 1 or 2
rail-scattered  the same sizes and costs, each column's rows drawn one by one in a window of up
             to 8 times their number: a much weaker LP bound (about 30% below the best cover)
tsp-uniform  TSP, n in 100..500 cities uniform in [0, 10,000]^2, integer coordinates (EUC_2D)
============ ===========================================================================

Graph distributions make any of the graph problems (the ``problem`` argument); the set cover
ones make set covers; ``tsp-uniform`` makes TSPs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cosolve.core.problem import Problem
from cosolve.errors import InputError
from cosolve.generators.graphs import barabasi_albert, erdos_renyi, gset_random, planar_union, rb_graph, toroidal_grid
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem

if TYPE_CHECKING:
    from cosolve.problems.setcover import SetCover

VALIDATION_SEED = 500_000
TRAINING_SEED = 1_000_000
_MAX_TRIES = 1000


def _model_rb(cliques: tuple[int, int], size: tuple[int, int], nodes: tuple[int, int]) -> Callable[[int, str], GraphProblem]:
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


def frb_parameters(seed: int) -> tuple[int, int, int]:
    """``(cliques, clique_size, graph_seed)`` of the frb graph of ``seed``; its MIS has ``cliques`` nodes."""
    rng = np.random.default_rng([seed, 0xF8B])
    n = int(rng.integers(30, 46))
    return n, round(n**0.8), int(rng.integers(2**31))


def frb(seed: int, problem: str) -> GraphProblem:
    """A planted-solution RB graph like the frb benchmarks (frb30-15 ... frb45-21): n cliques, n
    uniform in 30..45, of k = round(n^0.8) nodes, p = 0.25; its MIS has exactly n nodes."""
    n, k, graph_seed = frb_parameters(seed)
    return rb_graph(n, k, 0.25, problem=problem, seed=graph_seed, planted=True, distinct=True)


#: The styles of the gset distribution (Gset's generators, rudy), by ``seed % 4``.
GSET_STYLES = ("random", "random-signed", "toroidal-signed", "planar")
#: Its sizes, by ``(seed // 4) % 3``; the random graphs' density at each size (Gset's 6%, 2%, 1%).
GSET_SIZES = ((800, 0.06), (1000, 0.02), (2000, 0.01))
_TORI = {800: (50, 16), 1000: (50, 20), 2000: (50, 40)}


def gset(seed: int, problem: str) -> GraphProblem:
    """A MaxCut graph in the style of the Gset benchmarks (rudy): the style is ``GSET_STYLES[seed
    % 4]`` and the size ``GSET_SIZES[(seed // 4) % 3]``, so seeds 0..11 make each combination once:
    random graphs with weights 1 or +-1, +-1 toroidal grids, unions of two planar graphs (99%)."""
    style = GSET_STYLES[seed % 4]
    n, density = GSET_SIZES[(seed // 4) % 3]
    if style.startswith("random"):
        return gset_random(n, density, problem=problem, seed=seed, signed=style.endswith("signed"))
    if style == "toroidal-signed":
        rows, cols = _TORI[n]
        return toroidal_grid(rows, cols, problem=problem, seed=seed)
    return planar_union(n, 0.99, problem=problem, seed=seed)


#: Cost ranges of the balas-ho distribution: unicost, 1..10, 1..100.
COST_REGIMES = ((1, 1), (1, 10), (1, 100))


def balas_ho(seed: int, problem: str = "setcover") -> SetCover:
    """A random Balas–Ho style set cover drawn from ``seed`` (sizes, density and costs too)."""
    from cosolve.generators.setcover import random_setcover

    rng = np.random.default_rng([seed, 7])
    rows = int(rng.integers(50, 201))
    cols = rows * int(rng.integers(5, 11))
    density = float(rng.uniform(0.02, 0.05))
    low, high = COST_REGIMES[int(rng.integers(len(COST_REGIMES)))]
    nnz = max(round(density * rows * cols), cols + 2 * rows)  # every column used, every row covered twice
    return random_setcover(rows, cols, nnz=nnz, cost_range=(low, high), seed=seed, name=f"balas-ho-{seed}")


#: OR-Library's sets nre..nrh: (name, rows, columns, density)
ORLIB_NR_SHAPES = (("nre", 500, 5000, 0.10), ("nrf", 500, 5000, 0.20), ("nrg", 1000, 10000, 0.02), ("nrh", 1000, 10000, 0.05))


def orlib_nr(seed: int, problem: str = "setcover") -> SetCover:
    """A set cover in the shape of OR-Library's set ``ORLIB_NR_SHAPES[seed % 4]``, costs 1..100."""
    from cosolve.generators.setcover import random_setcover

    _name, rows, cols, density = ORLIB_NR_SHAPES[int(seed) % len(ORLIB_NR_SHAPES)]
    return random_setcover(rows, cols, density, cost_range=(1, 100), seed=seed)


def _rail_size(seed: int) -> tuple[int, int]:
    """500..2,500 rows and 100..400 columns per row (at most 1,000,000 columns), drawn from ``seed``."""
    rng = np.random.default_rng([seed, 11])
    rows = int(rng.integers(500, 2501))
    return rows, min(1_000_000, rows * int(rng.integers(100, 401)))


def rail(seed: int, problem: str = "setcover") -> SetCover:
    """A rail-like set cover drawn from ``seed`` (sizes: :func:`_rail_size`)."""
    from cosolve.generators.setcover import rail_like

    return rail_like(*_rail_size(seed), seed=seed)


def rail_scattered(seed: int, problem: str = "setcover") -> SetCover:
    """A rail-like set cover whose columns' rows are drawn one by one in a window of 1..8 times
    their number (sizes: :func:`_rail_size`)."""
    from cosolve.generators.setcover import rail_like

    return rail_like(*_rail_size(seed), max_pieces=None, spread=8.0, seed=seed)


def tsp_uniform(seed: int, problem: str = "tsp") -> Problem:
    """A TSP of 100..500 cities uniform in the square (:func:`cosolve.generators.tsp.random_tsp`)."""
    from cosolve.generators.tsp import random_tsp

    n = int(np.random.default_rng([seed, 0x75]).integers(100, 501))
    return random_tsp(n, seed=seed)


@dataclass(frozen=True)
class Distribution:
    """A named instance distribution: ``draw(seed, problem)`` makes one instance of a kind in
    ``kinds``, the same for the same seed.

    ``Solver.fit(get_distribution("rb-small"))`` trains on fresh instances of it (the Solver's
    ``problem`` says which kind, for the graph distributions).
    """

    name: str
    draw: Callable[[int, str], Problem]
    kinds: tuple[str, ...]
    problem: str | None = None

    def bound(self, problem: str | None) -> Distribution:
        """This distribution making ``problem`` (its only kind when None and there is one)."""
        problem = problem or self.problem or (self.kinds[0] if len(self.kinds) == 1 else None)
        if problem is None:
            raise InputError(f"distribution {self.name} makes {', '.join(self.kinds)}; say which with problem")
        if problem not in self.kinds:
            raise InputError(f"distribution {self.name} makes {', '.join(self.kinds)} instances, not {problem}")
        return Distribution(self.name, self.draw, self.kinds, problem)

    def sample(self, seed: int, problem: str | None = None) -> Problem:
        """The instance for ``seed``, named ``NAME-SEED``."""
        bound = self.bound(problem)
        instance = bound.draw(int(seed), bound.problem)
        instance.name = f"{self.name}-{int(seed)}"
        return instance


_GRAPHS = tuple(GRAPH_PROBLEMS)
DISTRIBUTIONS: dict[str, Distribution] = {
    d.name: d
    for d in (
        Distribution("rb-small", _model_rb((20, 24), (5, 11), (200, 300)), _GRAPHS),
        Distribution("rb-large", _model_rb((40, 54), (20, 24), (800, 1200)), _GRAPHS),
        Distribution("er-700-800", _sized((700, 800), 0xE7, erdos_renyi, 0.15), _GRAPHS),
        Distribution("ba-small", _sized((200, 300), 0xBA, barabasi_albert, 4), _GRAPHS),
        Distribution("ba-large", _sized((800, 1200), 0xBA, barabasi_albert, 4), _GRAPHS),
        Distribution("frb", frb, _GRAPHS),
        Distribution("gset", gset, _GRAPHS),
        Distribution("balas-ho", balas_ho, ("setcover",)),
        Distribution("orlib-nr", orlib_nr, ("setcover",)),
        Distribution("rail", rail, ("setcover",)),
        Distribution("rail-scattered", rail_scattered, ("setcover",)),
        Distribution("tsp-uniform", tsp_uniform, ("tsp",)),
    )
}


def get_distribution(name: str, problem: str | None = None) -> Distribution:
    """The distribution called ``name`` (making ``problem``, if given); an unknown name lists the valid ones."""
    if name not in DISTRIBUTIONS:
        raise InputError(f"unknown distribution {name!r}; valid: {', '.join(DISTRIBUTIONS)}")
    found = DISTRIBUTIONS[name]
    return found if problem is None else found.bound(problem)


def sample_graph(distribution: str, seed: int, problem: str = "mis") -> GraphProblem:
    """The graph of ``distribution`` for ``seed``, as the graph problem ``problem``."""
    if problem not in GRAPH_PROBLEMS:
        raise InputError(f"unknown graph problem {problem!r}; valid: {', '.join(GRAPH_PROBLEMS)}")
    return get_distribution(distribution, problem).sample(seed)


def sample_setcover(distribution: str, seed: int, problem: str = "setcover") -> SetCover:
    """The set cover of ``distribution`` (balas-ho, orlib-nr, rail, rail-scattered) for ``seed``."""
    found = get_distribution(distribution)
    if "setcover" not in found.kinds:
        raise InputError(f"distribution {distribution} makes {', '.join(found.kinds)}, not set covers")
    return found.sample(seed, "setcover")
