"""Method registry: names to method classes, looked up lazily.

Built-in methods live in the modules of ``BUILTIN_MODULES``; each registers its classes with
:func:`register` when imported. Other packages add methods through the entry-point group
``cosolve.methods`` (each entry point names a module to import), or without packaging through the
environment variable ``COSOLVE_PLUGINS`` (comma-separated module names, which may register problem
kinds too: :mod:`cosolve.problems.registry`). Method modules import their heavy dependencies
(torch, solvers) inside functions, so listing methods stays cheap.

``auto`` is not a method: :class:`cosolve.solver.Solver` turns it into the default method of
the problem kind (:attr:`cosolve.problems.registry.ProblemKind.default_method`).
"""

from __future__ import annotations

import importlib
import os
from importlib.metadata import entry_points

from cosolve.core.method import Method
from cosolve.errors import UsageError

BUILTIN_MODULES = (
    "cosolve.baselines.scip",
    "cosolve.baselines.cpsat",
    "cosolve.baselines.ortools_routing",
    "cosolve.baselines.greedy",
    "cosolve.baselines.ortools_setcover",
    "cosolve.baselines.cft",
    "cosolve.baselines.lkh",
    "cosolve.baselines.tsp_ils",
    "cosolve.baselines.qubo",
    "cosolve.methods.cam.cam_method",
    "cosolve.methods.glns.lns_methods",
    "cosolve.methods.sinkhorn.sinkhorn_method",
    "cosolve.methods.psga.psga_methods",
)

#: The method name that stands for each problem kind's default method.
AUTO = "auto"

_METHODS: dict[str, type[Method]] = {}
_loaded = False
_plugins_loaded = False


def register(cls: type[Method]) -> type[Method]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    if cls.name in _METHODS and _METHODS[cls.name] is not cls:
        raise ValueError(f"method name {cls.name!r} is registered twice")
    _METHODS[cls.name] = cls
    return cls


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    load_modules(BUILTIN_MODULES, "cosolve.methods")


def load_modules(builtin: tuple[str, ...], group: str) -> None:
    """Import the ``builtin`` modules, the modules installed packages name in the entry-point
    ``group``, and those of ``COSOLVE_PLUGINS``: what registers methods or problem kinds."""
    for module in builtin:
        importlib.import_module(module)
    for ep in entry_points(group=group):
        importlib.import_module(ep.value)
    load_plugins()


def load_plugins() -> None:
    """Import the modules named in ``COSOLVE_PLUGINS`` (once)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for module in filter(None, (m.strip() for m in os.environ.get("COSOLVE_PLUGINS", "").split(","))):
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise UsageError(f"COSOLVE_PLUGINS: cannot import {module!r}: {e}") from None


def methods() -> dict[str, type[Method]]:
    """All registered methods by name, sorted."""
    _load()
    return dict(sorted(_METHODS.items()))


def get_method(name: str) -> type[Method]:
    """The method class called ``name``; an unknown name lists the valid ones."""
    table = methods()
    if name not in table:
        raise UsageError(f"unknown method {name!r}; valid methods: {', '.join([AUTO, *table])}")
    return table[name]
