"""Problem-kind registry: what generic code (core, io detection, CLI, bench) asks about a kind.

Each problem family registers its kinds with :func:`register_kind` when its module is imported:
the file formats that hold it, a tiny instance for warm-up solves, its exact models, a picture
of a solution, report extras, and the default method (the best its benchmarks measured). Built-in
families live in the modules of :data:`BUILTIN_FAMILIES`; other packages add theirs through the
entry-point group ``cosolve.problems`` or the ``COSOLVE_PLUGINS`` environment variable (see
:class:`cosolve.core.registry.Registry`). Family modules import their heavy dependencies lazily.
Instance generators have their own registry (:mod:`cosolve.generators.registry`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosolve.core.problem import Problem
from cosolve.core.registry import Registry

if TYPE_CHECKING:
    import numpy as np

#: in the order the kinds are listed (messages, ``cosolve methods``)
BUILTIN_FAMILIES = (
    "cosolve.problems.graphs",
    "cosolve.problems.mip",
    "cosolve.problems.setcover",
    "cosolve.problems.tsp",
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


#: Every problem kind by name, in registration order.
KINDS: Registry[ProblemKind] = Registry("problem", builtin=BUILTIN_FAMILIES, group="cosolve.problems")


def register_kind(kind: ProblemKind) -> ProblemKind:
    """Make ``kind`` known under ``kind.name``."""
    return KINDS.register(kind)


def problem_kinds() -> dict[str, ProblemKind]:
    """Every registered kind by name, in registration order."""
    return dict(KINDS)


def get_kind(name: str) -> ProblemKind:
    """The kind called ``name``; an unknown name lists the valid ones."""
    return KINDS.lookup(name)


def tiny_instance(kind: str) -> Problem | None:
    """The kind's few-variable instance for warm-up solves (None for kinds without one, such as mip)."""
    make = get_kind(kind).tiny
    return None if make is None else make()


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
