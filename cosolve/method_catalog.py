"""The built-in methods: the modules that register them, and the lookups that load them first.

Method modules register their classes with :func:`cosolve.core.registry.register` when imported;
this module, above every layer that holds a method, names the built-in ones, so that the registry
in the foundation names none of them. Plugins are found by the registry itself (entry-point group
``cosolve.methods`` and ``COSOLVE_PLUGINS``).
"""

from __future__ import annotations

from cosolve.core.method import Method
from cosolve.core.registry import AUTO, METHODS

__all__ = ["AUTO", "BUILTIN_METHOD_MODULES", "get_method", "methods"]

BUILTIN_METHOD_MODULES = (
    "cosolve.baselines.scip",
    "cosolve.baselines.cpsat",
    "cosolve.baselines.ortools_routing",
    "cosolve.baselines.greedy",
    "cosolve.baselines.ortools_setcover",
    "cosolve.baselines.cft",
    "cosolve.baselines.lkh",
    "cosolve.baselines.tsp_ils",
    "cosolve.baselines.qubo",
    "cosolve.baselines.rlsa",
    "cosolve.baselines.graph_polish",
    "cosolve.methods.cam.cam_method",
    "cosolve.methods.glns.lns_methods",
    "cosolve.methods.sinkhorn.sinkhorn_method",
    "cosolve.methods.psga.psga_methods",
)


def methods() -> dict[str, type[Method]]:
    """Every registered method by name, sorted (the built-in ones and the plugins')."""
    return dict(METHODS.load(BUILTIN_METHOD_MODULES))


def get_method(name: str) -> type[Method]:
    """The method class called ``name``; an unknown name lists the valid ones."""
    return METHODS.load(BUILTIN_METHOD_MODULES).lookup(name, also=(AUTO,))
