"""The base class of every method (baselines, heuristics, learned solvers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from cosolve.core.deadline import Deadline
from cosolve.core.options import Option, resolve_options
from cosolve.core.problem import Problem
from cosolve.core.result import Status, Termination, Trace
from cosolve.errors import UsageError

if TYPE_CHECKING:
    from cosolve.core.threads import ThreadLimits
    from cosolve.training.training_data import TrainingData

__all__ = ["FitContext", "Method", "Option", "Outcome", "SolveContext"]


@dataclass
class SolveContext:
    """What a method gets for one solve: the shared deadline, the trace to report to,
    the seed, the thread budget and its solve options, every ``auto`` worked out
    (:meth:`Method.resolve`)."""

    deadline: Deadline
    trace: Trace
    seed: int
    threads: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)


@dataclass
class FitContext:
    """What a method gets for one training run.

    ``time_limit``: seconds of wall clock (None: until ``max_iterations``, a training option);
    ``out``: a folder for the best checkpoint and the resumable training state, written as
    training goes (None: kept in memory); ``resume``: continue the run saved in ``out``;
    ``on_progress``: called with each :class:`cosolve.training.progress.Progress`; ``command``:
    the command line recorded in the model card; ``stop``: polled, True asks training to end;
    ``limits``: the thread limits training runs in (see :meth:`threads_ready`).
    """

    time_limit: float | None
    seed: int = 0
    threads: int = 1
    out: Path | None = None
    resume: bool = False
    on_progress: Callable[[Any], None] | None = None
    command: str = ""
    stop: Callable[[], bool] | None = None
    limits: ThreadLimits | None = None

    def threads_ready(self) -> None:
        """Call once the libraries training uses (torch) are imported: limits their threads."""
        if self.limits is not None:
            self.limits.apply()


@dataclass(frozen=True)
class Outcome:
    """What a method says at its end, beyond its trace.

    ``termination`` is why it stopped: a method that stops because its deadline asked it to
    (``ctx.deadline.stop_requested``) says ``TIME_LIMIT``, and the Solver reports
    ``interrupted`` instead when the deadline was interrupted (Ctrl-C, :meth:`Solver.interrupt`):
    methods never look at which of the two it was. ``proven`` is ``Status.OPTIMAL``,
    ``INFEASIBLE`` or ``UNBOUNDED`` when the method proved it, else ``None``. ``stats`` holds the
    method's own counters (JSON-able values), passed on as ``Result.stats``.
    """

    termination: Termination
    proven: Status | None = None
    stats: dict[str, Any] = field(default_factory=dict)


class Method:
    """A solving method for some problem kinds.

    Subclasses set ``name``, ``problems`` (the kinds they accept), ``summary`` and ``options``
    (what a solve uses), and implement :meth:`solve`: report every incumbent with
    ``ctx.trace.offer`` and every proven bound with ``ctx.trace.offer_bound``, stop when
    ``ctx.deadline.stop_requested``, and return an :class:`Outcome`. Options whose default is
    None (``auto``) are worked out per solve by :meth:`resolve`. Learned methods declare
    ``fit_options`` (what training uses) and override :meth:`fit` and :meth:`save`.

    ``config`` holds every option, validated once here; a solve receives the solve options
    resolved (``ctx.options``), and they are what ``Result.options`` records.
    """

    name: ClassVar[str]
    problems: ClassVar[frozenset[str]]
    summary: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    #: options used by :meth:`fit` only
    fit_options: ClassVar[dict[str, Option]] = {}
    #: solve options that :meth:`fit` reads too (``cosolve train`` refuses the others: it would ignore them)
    fit_reads: ClassVar[frozenset[str]] = frozenset()
    #: whether the Solver's set-up runs a warm-up solve (a method that honours its deadline)
    warm_up: ClassVar[bool] = False
    #: options that replace the resolved ones in warm-up solves (say, to end a search early)
    warm_up_options: ClassVar[dict[str, Any]] = {}

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.config = resolve_options(self.name, self.declared(), dict(options or {}))

    @classmethod
    def declared(cls) -> dict[str, Option]:
        """Solve and fit options together (their names never clash)."""
        clash = set(cls.options) & set(cls.fit_options)
        if clash:
            raise TypeError(f"method {cls.name}: options {sorted(clash)} are declared for both solve and fit")
        return {**cls.options, **cls.fit_options}

    @classmethod
    def trainable(cls) -> bool:
        """True for methods that learn something in :meth:`fit`."""
        return cls.fit is not Method.fit

    def fit(self, data: TrainingData, ctx: FitContext) -> Method:
        """Train on ``data`` (see :mod:`cosolve.training.training_data`) under ``ctx``; untrained methods
        do nothing. Returns self."""
        return self

    def save(self, folder: str | Path) -> None:
        """Write the learned model to ``folder`` (``model.pt`` and its model card ``README.md``)."""
        raise UsageError(f"method {self.name} has no learned model to save")

    def refusal(self, problem: Problem) -> str | None:
        """Why the method cannot solve ``problem``, of a kind it solves (None: it can), checked
        before any set-up or output."""
        return None

    def resolve(self, problem: Problem, time_limit: float) -> dict[str, Any]:
        """The solve options for ``problem`` under a budget of ``time_limit`` seconds (``inf`` for
        none), with every ``auto`` option worked out. Methods with auto options override this;
        it may rely on :meth:`prepare` having run."""
        return {key: self.config[key] for key in self.options}

    def prepare(self, problem: Problem) -> None:
        """One-time set-up for solving problems like ``problem``, done before the solve's clock
        starts and reported as ``Result.setup_time``: learned methods load their model here.
        Cheap when repeated. The Solver then runs a warm-up solve of the kind's tiny instance for
        methods with ``warm_up = True`` (the built-in ones: imports, numba compilation;
        :mod:`cosolve.core.warmup`)."""

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        raise NotImplementedError
