"""The base class of every method (baselines, heuristics, learned solvers)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from cosolve.core.deadline import Deadline
from cosolve.core.result import Status, Termination, Trace
from cosolve.problems.base import Problem


@dataclass(frozen=True)
class Option:
    """A method option: its type (used to parse ``--set key=value``), default and help; optional
    ``choices``, an inclusive ``minimum`` and an exclusive upper bound ``below``. An option whose
    default is None (worked out from other settings) also takes ``auto`` for that default."""

    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    below: float | None = None


@dataclass
class SolveContext:
    """What a method gets for one solve: the shared deadline, the trace to report to,
    the seed, the thread budget and its validated options."""

    deadline: Deadline
    trace: Trace
    seed: int
    threads: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)


@dataclass(frozen=True)
class Outcome:
    """What a method says at its end, beyond its trace.

    ``proven`` is ``Status.OPTIMAL``, ``INFEASIBLE`` or ``UNBOUNDED`` when the method proved it,
    else ``None``. ``termination`` is why it stopped. ``stats`` holds the method's own counters
    (JSON-able values), passed on as ``Result.stats``.
    """

    termination: Termination
    proven: Status | None = None
    stats: dict[str, Any] = field(default_factory=dict)


class Method:
    """A solving method for some problem kinds.

    Subclasses set ``name``, ``problems`` (the kinds they accept), ``summary`` and ``options``,
    and implement :meth:`solve`: report every incumbent with ``ctx.trace.offer`` and every
    proven bound with ``ctx.trace.offer_bound``, stop when ``ctx.deadline.stop_requested``,
    and return an :class:`Outcome`. Learned methods override :meth:`fit` too.
    ``config`` holds the validated option values (also passed as ``ctx.options``).
    """

    name: ClassVar[str]
    problems: ClassVar[frozenset[str]]
    summary: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    #: whether :meth:`prepare` runs a warm-up solve (a method that honours its deadline)
    warm_up: ClassVar[bool] = False

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.config = dict(config or {})

    def fit(self, instances: Iterable[Problem], *, seed: int = 0) -> Method:
        """Train on ``instances`` (``seed`` for every random choice); untrained methods do
        nothing. Returns self."""
        return self

    def prepare(self, problem: Problem) -> None:
        """One-time set-up for solving problems like ``problem``, done before the solve's clock
        starts and reported as ``Result.setup_time``. Methods with ``warm_up = True`` (the
        built-in ones) solve a tiny instance of the same kind once here (imports, numba
        compilation); learned methods load their model here too. Cheap when repeated."""
        prepared = self.__dict__.setdefault("_prepared_kinds", set())
        if not self.warm_up or problem.kind in prepared:
            return
        prepared.add(problem.kind)
        from cosolve.core.warmup import warm_up

        warm_up(self, problem.kind)

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        raise NotImplementedError
