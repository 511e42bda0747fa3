"""Problem-kind registry: what generic code (core, io detection, CLI, bench) asks about a kind.

Each problem family registers its kinds with :func:`register_kind` when its module is imported:
the file formats that hold it, a tiny instance for warm-up solves, its exact models, a picture
of a solution, report extras, and the default method (the best its benchmarks measured). It
registers its instance generators with :func:`register_generator`. Built-in families live in the
modules of :data:`BUILTIN_FAMILIES`; other packages add theirs through the entry-point group
``cosolve.problems`` or the ``COSOLVE_PLUGINS`` environment variable (see
:mod:`cosolve.core.registry`). Family modules import their heavy dependencies lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosolve.core.problem import Problem
from cosolve.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

BUILTIN_FAMILIES = (
    "cosolve.problems.setcover",
    "cosolve.problems.graphs",
    "cosolve.problems.tsp",
    "cosolve.problems.mip",
    "cosolve.problems.sorting",
    "cosolve.problems.jigsaw",
    "cosolve.problems.portfolio",
    "cosolve.problems.conjoint.problem",
)


@dataclass(frozen=True)
class ProblemKind:
    """One problem kind as generic code sees it.

    ``name``: the kind (``Problem.kind``); ``title``: words for messages ("maximum independent
    set"); ``formats``: file formats that hold it (:data:`cosolve.io.formats.FORMATS`), the one
    generated instances are written in first; ``tiny``: a few-variable instance for warm-up
    solves; ``exact``: the solvers the problem states an exact model for (``scip``:
    ``Problem.scip_model``, ``cpsat``: ``Problem.cpsat_model``); ``default_method``: what
    ``--method auto`` picks, and ``default_why`` the benchmark table that shows it best;
    ``plot``: a matplotlib figure of a solution, ``plot(problem, solution, title)``; ``extras``:
    report values beyond the objective, ``extras(problem, solution) -> {key: JSON value}``.
    """

    name: str
    title: str
    formats: tuple[str, ...] = ()
    tiny: Callable[[], Problem] | None = None
    exact: frozenset[str] = frozenset()
    default_method: str = "scip"
    default_why: str = ""
    plot: Callable[[Problem, np.ndarray, str], Any] | None = None
    extras: Callable[[Problem, np.ndarray], dict[str, Any]] | None = None


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


_KINDS: dict[str, ProblemKind] = {}
_GENERATORS: dict[str, Generator] = {}
_loaded = False


def register_kind(kind: ProblemKind) -> ProblemKind:
    if kind.name in _KINDS and _KINDS[kind.name] != kind:
        raise ValueError(f"problem kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def register_generator(generator: Generator) -> Generator:
    if generator.name in _GENERATORS and _GENERATORS[generator.name] != generator:
        raise ValueError(f"generator {generator.name!r} is registered twice")
    _GENERATORS[generator.name] = generator
    return generator


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from cosolve.core.registry import load_modules

    load_modules(BUILTIN_FAMILIES, "cosolve.problems")


def problem_kinds() -> dict[str, ProblemKind]:
    """Every registered kind by name, in registration order."""
    _load()
    return dict(_KINDS)


def get_kind(name: str) -> ProblemKind:
    """The kind called ``name``; an unknown name lists the valid ones."""
    kinds = problem_kinds()
    if name not in kinds:
        raise UsageError(f"unknown problem {name!r}; valid problems: {', '.join(kinds)}")
    return kinds[name]


def kinds_in_format(fmt: str) -> tuple[str, ...]:
    """The kinds a file of format ``fmt`` can hold."""
    return tuple(name for name, kind in problem_kinds().items() if fmt in kind.formats)


def kinds_with_model(solver: str) -> frozenset[str]:
    """The kinds that state an exact model for ``solver`` (``scip`` or ``cpsat``)."""
    return frozenset(name for name, kind in problem_kinds().items() if solver in kind.exact)


def report_extras(problem: Problem, solution: np.ndarray | None) -> dict[str, Any]:
    """The kind's report values beyond the objective (e.g. a jigsaw's pieces in place), if any."""
    extras = get_kind(problem.kind).extras
    return {} if extras is None or solution is None else extras(problem, solution)


def generators() -> dict[str, Generator]:
    """Every registered generator by name."""
    _load()
    return dict(_GENERATORS)


def get_generator(name: str) -> Generator:
    table = generators()
    if name not in table:
        raise UsageError(f"unknown generator {name!r}; valid generators: {', '.join(table)}")
    return table[name]
