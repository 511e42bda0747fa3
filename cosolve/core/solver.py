"""The Solver facade: one entry point over every method."""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from os import PathLike
from typing import Any

from cosolve.core.deadline import Deadline
from cosolve.core.method import Method, Outcome, SolveContext
from cosolve.core.options import resolve_options
from cosolve.core.registry import get_method, methods
from cosolve.core.result import Result, Status, Termination, Trace, TracePoint
from cosolve.errors import UsageError
from cosolve.problems.base import Problem

Instance = Problem | str | PathLike


@contextlib.contextmanager
def _ctrl_c_interrupts(deadline: Deadline) -> Iterator[None]:
    """While active, the first Ctrl-C asks the method to stop (its incumbent is kept); a
    second one raises KeyboardInterrupt as usual. Only the main thread can own signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        if deadline.interrupted:
            raise KeyboardInterrupt
        deadline.interrupt()

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def load_instance(instance: Instance, *, problem: str | None = None, format: str | None = None) -> Problem:
    """A :class:`Problem` as given, or read from a path with :func:`cosolve.io.read`."""
    if isinstance(instance, Problem):
        if problem is not None and problem != instance.kind:
            raise UsageError(f"instance is a {instance.kind} problem, not {problem}")
        return instance
    from cosolve.io import read

    return read(instance, format=format, problem=problem)


class Solver:
    """Solve problems with a named method under a wall-clock budget.

    >>> Solver("scip", time_limit=10, threads=1).solve("instances/setcover/scp41.txt")

    ``time_limit`` in seconds (``None`` for none); ``seed`` for every random choice;
    ``threads`` the most threads the method may use; ``options`` are method options
    (``cosolve methods`` lists them). Learned state (after :meth:`fit`) is ``method_``.
    """

    def __init__(
        self,
        method: str,
        *,
        time_limit: float | None = 10.0,
        seed: int = 0,
        threads: int = 1,
        **options: Any,
    ) -> None:
        self.method = method
        self.time_limit = time_limit
        self.seed = seed
        self.threads = threads
        self.options = options

    def interrupt(self) -> None:
        """Stop the solve running in another thread; it returns its incumbent (termination
        ``interrupted``). Does nothing when no solve is running."""
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.interrupt()

    def check_supports(self, problem: Problem) -> None:
        """Raise :class:`UsageError` unless the method solves ``problem``'s kind."""
        cls = get_method(self.method)
        if problem.kind not in cls.problems:
            able = [name for name, other in methods().items() if problem.kind in other.problems]
            raise UsageError(
                f"method {cls.name} does not solve {problem.kind} problems (it solves: {', '.join(sorted(cls.problems))}); "
                f"methods for {problem.kind}: {', '.join(able) or 'none'}"
            )

    def _check(self) -> tuple[type[Method], dict[str, Any]]:
        cls = get_method(self.method)
        limit = math.inf if self.time_limit is None else self.time_limit
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
            raise UsageError(f"time limit must be a positive number of seconds, got {self.time_limit!r}")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 1:
            raise UsageError(f"threads must be a positive integer, got {self.threads!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise UsageError(f"seed must be a non-negative integer, got {self.seed!r}")
        return cls, resolve_options(self.method, cls.options, self.options)

    def _new_method(self) -> Method:
        cls, config = self._check()
        return cls(config)

    def fit(self, instances: Iterable[Instance]) -> Solver:
        """Train the method on ``instances`` (a no-op for untrained methods); returns self."""
        method = self._new_method()
        method.fit((load_instance(i) for i in instances), seed=self.seed)
        self.method_ = method
        return self

    def prepare(self, problem: Problem) -> float:
        """Do the method's one-time set-up for problems like ``problem`` now (e.g. load its
        model) rather than in the first :meth:`solve`; returns the seconds it took."""
        method = getattr(self, "method_", None) or self._new_method()
        self.method_ = method
        start = time.perf_counter()
        method.prepare(problem)
        return time.perf_counter() - start

    def solve(
        self,
        instance: Instance,
        *,
        problem: str | None = None,
        format: str | None = None,
        on_improvement: Callable[[TracePoint], None] | None = None,
    ) -> Result:
        """Solve one instance (a :class:`Problem` or a path) and return its :class:`Result`.

        ``problem``/``format`` tell the reader what a file holds when it cannot tell alone
        (a graph file needs ``problem``). ``on_improvement`` is called at each trace event.
        """
        method = getattr(self, "method_", None) or self._new_method()
        self.method_ = method  # kept: a later solve reuses what prepare() loaded
        data = load_instance(instance, problem=problem, format=format)
        self.check_supports(data)
        start = time.perf_counter()
        method.prepare(data)
        setup_time = time.perf_counter() - start
        deadline = Deadline(math.inf if self.time_limit is None else float(self.time_limit))
        self._deadline = deadline
        trace = Trace(data.sense, deadline.elapsed, lambda x: _verdict(data, x))
        if on_improvement is not None:
            trace.listeners.append(on_improvement)
        ctx = SolveContext(deadline, trace, self.seed, self.threads, dict(method.config))
        with _ctrl_c_interrupts(deadline):
            try:
                outcome = method.solve(data, ctx)
            except KeyboardInterrupt:
                deadline.interrupt()
                outcome = Outcome(Termination.INTERRUPTED)
            finally:
                self._deadline = None
        return self._result(data, method, ctx, outcome, setup_time)

    def _result(self, data: Problem, method: Method, ctx: SolveContext, outcome: Outcome, setup_time: float) -> Result:
        trace, deadline = ctx.trace, ctx.deadline
        elapsed = deadline.elapsed()
        termination = Termination.INTERRUPTED if deadline.interrupted else outcome.termination
        bound = trace.bound
        if outcome.proven in (Status.INFEASIBLE, Status.UNBOUNDED):
            status, bound = outcome.proven, None  # bounds seen during the search mean nothing now
        elif trace.solution is None:
            status = Status.NO_SOLUTION
        elif outcome.proven is Status.OPTIMAL:
            status = Status.OPTIMAL
            if trace.bound != trace.objective:
                trace.offer_bound(trace.objective)
            bound = trace.bound
        else:
            status = Status.FEASIBLE
        return Result(
            status=status,
            termination=termination,
            objective=trace.objective,
            bound=bound,
            solution=trace.solution,
            time=elapsed,
            method=method.name,
            problem=data.kind,
            sense=data.sense,
            instance=data.name,
            time_limit=self.time_limit,
            seed=self.seed,
            threads=self.threads,
            options=dict(method.config),
            trace=list(trace.points),
            setup_time=setup_time,
            stats=dict(outcome.stats),
        )


def _verdict(problem: Problem, solution: Any) -> tuple[float, bool, str | None]:
    e = problem.evaluate(solution)
    return e.objective, e.feasible, e.violation


def solve(
    instance: Instance,
    method: str = "scip",
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    threads: int = 1,
    problem: str | None = None,
    format: str | None = None,
    **options: Any,
) -> Result:
    """One-line form: ``cosolve.solve("scp41.txt", method="greedy", time_limit=5)``."""
    solver = Solver(method, time_limit=time_limit, seed=seed, threads=threads, **options)
    return solver.solve(instance, problem=problem, format=format)
