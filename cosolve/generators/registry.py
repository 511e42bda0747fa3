"""Instance generator registry: the names ``cosolve generate`` and benchmark suites draw from.

A :class:`Generator` names a function (``"module:attribute"``, imported on use) that makes an
instance from keyword parameters and ``seed``. The built-in ones are declared here; other packages
add theirs with :func:`register_generator` from a module in the entry-point group
``cosolve.generators`` or in ``COSOLVE_PLUGINS`` (see :class:`cosolve.core.registry.Registry`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from cosolve.core.problem import Problem
from cosolve.core.registry import Registry
from cosolve.errors import UsageError
from cosolve.problems.graphs import GRAPH_PROBLEMS


@dataclass(frozen=True)
class Generator:
    """A random instance generator: ``function`` (``"module:attribute"``, imported on use) takes
    keyword parameters and ``seed``; when it makes several ``kinds``, also ``problem``."""

    name: str
    function: str
    kinds: tuple[str, ...]
    summary: str = ""

    def make(self, *, problem: str | None = None, **params: Any) -> Problem:
        module, _, attribute = self.function.partition(":")
        make = getattr(importlib.import_module(module), attribute)
        if len(self.kinds) > 1:
            if problem not in self.kinds:
                raise UsageError(f"generator {self.name} makes {', '.join(self.kinds)}; say which with problem")
            params["problem"] = problem
        elif problem not in (None, *self.kinds):
            raise UsageError(f"generator {self.name} makes {self.kinds[0]} instances, not {problem}")
        return make(**params)


#: Every generator by name, in registration order.
GENERATORS: Registry[Generator] = Registry("generator", group="cosolve.generators")


def register_generator(generator: Generator) -> Generator:
    """Make ``generator`` known under ``generator.name``."""
    return GENERATORS.register(generator)


def get_generator(name: str) -> Generator:
    """The generator called ``name``; an unknown name lists the valid ones."""
    return GENERATORS.lookup(name)


_GRAPHS = tuple(GRAPH_PROBLEMS)
for _generator in (
    Generator("random_setcover", "cosolve.generators.setcover:random_setcover", ("setcover",),
              "Balas-Ho style random set cover: rows, cols, density or nnz, cost_range"),
    Generator("setcover_distribution", "cosolve.generators.distributions:sample_setcover", ("setcover",),
              "a named set cover distribution of `cosolve generate` (balas-ho, orlib-nr, rail, rail-scattered): distribution"),
    Generator("erdos_renyi", "cosolve.generators.graphs:erdos_renyi", _GRAPHS, "G(n, p): n, p, weighted"),
    Generator("barabasi_albert", "cosolve.generators.graphs:barabasi_albert", _GRAPHS, "preferential attachment: n, m, weighted"),
    Generator("rb_graph", "cosolve.generators.graphs:rb_graph", _GRAPHS, "model RB graph: cliques, clique_size, p, planted"),
    Generator("gset_random", "cosolve.generators.graphs:gset_random", _GRAPHS,
              "Gset-style random graph (exact edge count): n, density, signed"),
    Generator("toroidal_grid", "cosolve.generators.graphs:toroidal_grid", _GRAPHS, "2-D torus: rows, cols, signed"),
    Generator("planar_union", "cosolve.generators.graphs:planar_union", _GRAPHS,
              "union of two random planar graphs (Gset style): n, density, signed"),
    Generator("graph_distribution", "cosolve.generators.distributions:sample_graph", _GRAPHS,
              "a named distribution of `cosolve generate` (rb-small, ba-small, ...): distribution"),
    Generator("random_tsp", "cosolve.generators.tsp:random_tsp", ("tsp",), "uniform cities in a square: n, scale"),
):  # fmt: skip
    register_generator(_generator)
