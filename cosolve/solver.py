"""The Solver facade: one entry point over every method, for solving and for training."""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from cosolve.core.deadline import Deadline
from cosolve.core.method import FitContext, Method, Outcome, SolveContext
from cosolve.core.numba_compile import compile_seconds
from cosolve.core.problem import Problem, verdict
from cosolve.core.registry import AUTO
from cosolve.core.result import Result, Status, Termination, Trace, TracePoint
from cosolve.core.threads import ThreadLimits
from cosolve.core.warmup import needs_warm_up, warm_up
from cosolve.errors import InputError, UsageError
from cosolve.io.detect import load_instance
from cosolve.method_catalog import get_method, methods
from cosolve.problems.registry import get_kind, tiny_instance

Instance = Problem | str | PathLike

#: With the set-up in the budget (``Solver(setup_in_budget=True)``, the CLI's solve), the solve
#: still gets at least this share of the time limit, however long the set-up took.
SOLVE_SHARE = 0.5


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


def missing_paths(cls: type[Method], options: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (key, value) of each option in ``options`` that names a file or folder (``Option.path``)
    that does not exist, relative to the current directory."""
    return [
        (key, value)
        for key, value in options.items()
        if key in cls.options and cls.options[key].path and value and not Path(value).exists()
    ]


def check_fit_out(out: Path, *, resume: bool, overwrite: bool) -> None:
    """UsageError unless ``out`` may take a fit's checkpoint: a folder (or nothing yet) holding no
    ``model.pt`` or ``README.md`` that it would replace, unless ``resume`` or ``overwrite``."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"out {out}: is not a folder")
    if resume or overwrite:
        return
    if (out / "model.pt").exists():
        raise UsageError(
            f"out {out}: already holds a checkpoint (model.pt); replace it with overwrite=True (--overwrite) "
            "or continue it with resume=True (--resume)"
        )
    if (out / "README.md").exists():
        raise UsageError(f"out {out}: holds a README.md the model card would replace; pass overwrite=True (--overwrite)")


def termination(outcome: Outcome, deadline: Deadline) -> Termination:
    """Why a solve stopped: the method's own word, except that a solve whose deadline was
    interrupted (Ctrl-C, :meth:`Solver.interrupt`) reports ``interrupted``."""
    return Termination.INTERRUPTED if deadline.interrupted else outcome.termination


def _seconds(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value > 0):
        raise UsageError(f"{name} must be a positive number of seconds, got {value!r}")


def _whole(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        what = "a non-negative integer" if least == 0 else "a positive integer"
        raise UsageError(f"{name} must be {what}, got {value!r}")


class Solver:
    """Solve problems, and train learned methods, with a named method under wall-clock budgets.

    >>> Solver("scip", time_limit=10, threads=1).solve("instances/setcover/scp41.txt")
    >>> Solver("cam", problem="mis", train_time=600).fit("graphs/").save("my-model")

    ``method``: a name from ``cosolve methods``, or ``auto`` (the default): each problem kind's
    default method, the best its benchmarks measured (``cosolve methods`` lists them).
    ``problem``: the problem kind, for files that need it (graph files) and for :meth:`fit`.
    ``time_limit``: seconds per solve (``None`` for none); ``train_time``: seconds of training
    in :meth:`fit` (``None``: until the method's own iteration limit). ``seed`` for every random
    choice; ``threads`` the most threads the method may use, in solves and in training (BLAS,
    OpenMP, numba and torch pools are limited to it and restored afterwards). ``options`` are
    method options (``cosolve methods`` lists them). After :meth:`fit` or a solve the method
    object is ``method_``.
    """

    def __init__(
        self,
        method: str = AUTO,
        *,
        problem: str | None = None,
        time_limit: float | None = 10.0,
        train_time: float | None = None,
        seed: int = 0,
        threads: int = 1,
        setup_in_budget: bool = False,
        **options: Any,
    ) -> None:
        self.method = method
        self.problem = problem
        self.time_limit = time_limit
        self.train_time = train_time
        self.seed = seed
        self.threads = threads
        self.setup_in_budget = setup_in_budget
        self.options = options

    def __repr__(self) -> str:
        """The constructor call with the parameters that differ from their defaults, e.g.
        ``Solver('cam', problem='mis', time_limit=1, chains=4)``."""
        defaults = {"problem": None, "time_limit": 10.0, "train_time": None, "seed": 0, "threads": 1, "setup_in_budget": False}
        given = {key: getattr(self, key) for key, default in defaults.items() if getattr(self, key) != default}
        shown = [repr(self.method), *(f"{k}={v!r}" for k, v in {**given, **self.options}.items())]
        return f"Solver({', '.join(shown)})"

    # ------------------------------------------------------------------ checks

    def validate(self) -> Solver:
        """Check every setting without solving: the limits, seed and threads, the problem kind,
        the method and its options (for ``auto`` once the kind is known; with ``problem``, also
        that each applies to it), and that a file or folder an option names exists. Raises
        :class:`UsageError` (:class:`InputError` for a missing file) naming the first bad one;
        returns self. What needs the model itself (a checkpoint's problem kind) is checked when
        solving."""
        if self.time_limit is not None:
            _seconds("time limit", self.time_limit)
        if self.train_time is not None:
            _seconds("train_time", self.train_time)
        _whole("threads", self.threads, 1)
        _whole("seed", self.seed, 0)
        if self.problem is not None:
            get_kind(self.problem)
        if self.method != AUTO or self.problem is not None:
            cls = self._method_class(self.problem)
            method = cls(self.options)  # validates the options
            if self.problem is not None:
                self._check_kind(cls, self.problem)
                self._refuse_other_problems_options(method, self.problem)
            for key, value in missing_paths(cls, self.options):
                raise InputError(f"{key} {value}: no such file or folder")
        return self

    def _method_class(self, kind: str | None) -> type[Method]:
        if self.method != AUTO:
            return get_method(self.method)
        if kind is None:
            raise UsageError("method auto needs the problem kind: pass problem=")
        from cosolve.problems.registry import get_kind

        return get_method(get_kind(kind).default_method)

    @staticmethod
    def _check_kind(cls: type[Method], kind: str) -> None:
        if kind not in cls.problems:
            able = [name for name, other in methods().items() if kind in other.problems]
            raise UsageError(
                f"method {cls.name} does not solve {kind} problems (it solves: {', '.join(sorted(cls.problems))}); "
                f"methods for {kind}: {', '.join(able) or 'none'}"
            )

    def check_supports(self, problem: Problem) -> None:
        """Raise :class:`UsageError` unless the method solves ``problem``'s kind and takes the
        options given (for ``auto``: the kind's default method)."""
        cls = self._method_class(problem.kind)
        self._check_kind(cls, problem.kind)
        method = cls(self.options)
        self._refuse_other_problems_options(method, problem.kind)
        self._refuse_unsolvable(method, problem)

    def method_name(self, kind: str) -> str:
        """The method that solves ``kind``: ``method``, or the kind's default for ``auto``."""
        return self._method_class(kind).name

    def _method(self, kind: str) -> Method:
        """The method object for ``kind``, made once (it keeps what :meth:`prepare` loaded)."""
        self.validate()
        cls = self._method_class(kind)
        self._check_kind(cls, kind)
        kept = self.__dict__.setdefault("_methods", {})
        if cls.name not in kept:
            kept[cls.name] = cls(self.options)
        self.method_ = kept[cls.name]
        return self.method_

    # ------------------------------------------------------------------ solving

    def prepare(self, problem: Problem) -> float:
        """Do the method's one-time set-up for problems like ``problem`` now (load its model, and
        for methods with ``warm_up`` solve the kind's tiny instance: imports, numba compilation;
        :func:`cosolve.core.warmup.warm_up`) rather than in the first :meth:`solve`; returns the seconds it took
        (about 0 once done). Every solve's ``Result.setup_time`` is the seconds of the set-up its
        method did for that kind, whether it happened here or in the first solve (which counts
        them against its budget with ``setup_in_budget``)."""
        method = self._method(problem.kind)
        self._refuse_other_problems_options(method, problem.kind)
        self._refuse_training_options(method)  # before the set-up's work, not after it
        self._refuse_unsolvable(method, problem)
        with ThreadLimits(self.threads) as limits:
            start, compiled = time.perf_counter(), compile_seconds()
            method.prepare(problem)
            if needs_warm_up(method, problem.kind) and (tiny := tiny_instance(problem.kind)) is not None:
                warm_up(method, tiny)
            limits.apply()
            seconds = time.perf_counter() - start
        key = (method.name, problem.kind)
        self.__dict__.setdefault("_setup", {}).setdefault(key, seconds)  # the first one did the work
        self.__dict__.setdefault("_setup_compile", {}).setdefault(key, compile_seconds() - compiled)
        return seconds

    def interrupt(self) -> None:
        """Stop the solve (or fit) running in another thread; a solve returns its incumbent
        (termination ``interrupted``), a fit its best model so far. Nothing happens when none runs."""
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.interrupt()

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
        (``problem`` defaults to the Solver's). ``on_improvement`` is called at each trace event.
        """
        self.validate()
        data = load_instance(instance, problem=problem or self.problem, format=format)
        method = self._method(data.kind)
        self.prepare(data)
        limit = math.inf if self.time_limit is None else float(self.time_limit)
        spent = self._setup_to_count(method.name, data.kind)
        compiled = compile_seconds()
        if spent:
            limit = max(limit - spent, SOLVE_SHARE * limit)
            compiled -= self.__dict__.get("_setup_compile", {}).get((method.name, data.kind), 0.0)  # counted too
        with ThreadLimits(self.threads):
            options = method.resolve(data, limit)
            deadline = Deadline(limit)
            self._deadline = deadline
            clock = (lambda: spent + deadline.elapsed()) if spent else deadline.elapsed
            trace = Trace(data.sense, clock, lambda x: verdict(data, x))
            if on_improvement is not None:
                trace.listeners.append(on_improvement)
            ctx = SolveContext(deadline, trace, self.seed, self.threads, options)
            with _ctrl_c_interrupts(deadline):
                try:
                    outcome = method.solve(data, ctx)
                except KeyboardInterrupt:
                    deadline.interrupt()
                    outcome = Outcome(Termination.INTERRUPTED)
                finally:
                    self._deadline = None
        return self._result(data, method, ctx, outcome, spent, compile_seconds() - compiled)

    def _setup_to_count(self, name: str, kind: str) -> float:
        """With ``setup_in_budget``: the set-up seconds of ``name`` for ``kind`` the first time a
        solve asks (that solve counts them against its budget); else, and afterwards, 0."""
        if not self.setup_in_budget:
            return 0.0
        counted = self.__dict__.setdefault("_setup_counted", set())
        if (name, kind) in counted:
            return 0.0
        counted.add((name, kind))
        return self.__dict__.get("_setup", {}).get((name, kind), 0.0)

    def _refuse_training_options(self, method: Method) -> None:
        """A training option given to a solve that trains nothing would be silently ignored."""
        if getattr(self, "fitted_", False):
            return
        given = [f"{key}={method.config[key]!r}" for key, option in method.fit_options.items() if key in self.options]
        if given:
            raise UsageError(
                f"{', '.join(given)}: training option(s) of method {method.name}, used by fit only; "
                "call fit first, or drop them to solve with the method as it is"
            )

    @staticmethod
    def _refuse_unsolvable(method: Method, problem: Problem) -> None:
        """An instance of a kind the method solves that it still cannot (cpsat: a continuous MIP)."""
        why = method.refusal(problem)
        if why is not None:
            raise UsageError(why)

    def _refuse_other_problems_options(self, method: Method, kind: str) -> None:
        """An option given for another problem kind than the one solved would be silently ignored."""
        for key, option in method.options.items():
            if key in self.options and not option.applies_to(kind):
                raise UsageError(
                    f"option {key} of method {method.name} applies to {', '.join(option.problems or ())} only, "
                    f"not to {kind}; drop it"
                )

    def _result(
        self, data: Problem, method: Method, ctx: SolveContext, outcome: Outcome, spent: float = 0.0, compiled: float = 0.0
    ) -> Result:
        trace, deadline = ctx.trace, ctx.deadline
        elapsed = spent + deadline.elapsed()  # spent: the set-up, when it counts against the budget
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
            if bound is not None and abs(bound - trace.objective) <= 1e-6 * max(1.0, abs(trace.objective)):
                bound = trace.objective  # a bound past a proven optimum by rounding (SCIP: 23.999999999999996 for 24)
        else:
            status = Status.FEASIBLE
        return Result(
            status=status,
            termination=termination(outcome, deadline),
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
            options={k: v for k, v in ctx.options.items() if k not in method.options or method.options[k].applies_to(data.kind)},
            trace=list(trace.points),
            setup_time=self.__dict__.get("_setup", {}).get((method.name, data.kind), 0.0),
            compile_time=compiled,
            stats=dict(outcome.stats),
        )

    # ------------------------------------------------------------------ training

    def fit(
        self,
        instances: Any,
        *,
        out: str | PathLike | None = None,
        resume: bool = False,
        overwrite: bool = False,
        progress: bool | Callable[[Any], None] = True,
        command: str = "",
    ) -> Solver:
        """Train the method on ``instances`` and return self (a no-op for untrained methods).

        ``instances``: Problems, instance files, a folder of them (held-out share for
        validation: the method's ``validation_share``), or a
        :class:`~cosolve.generators.distributions.Distribution` to draw fresh instances from.
        Training runs for ``train_time`` seconds (and at most the method's ``iterations``) and
        keeps the best validated model. ``out``: a folder where the best checkpoint
        (``model.pt``, ``README.md``) and the resumable training state are written as training
        goes; ``resume=True`` continues the run saved there, and ``overwrite=True`` replaces a
        checkpoint already there (without either, one is refused). ``progress``: True shows a
        progress bar (a line per validation where stderr is not a terminal), False nothing, a
        callable receives each :class:`~cosolve.training.progress.Progress`. Ctrl-C ends
        training early and keeps the best model so far. ``command`` is recorded in the model card.
        """
        from cosolve.training.progress import ProgressDisplay
        from cosolve.training.training_data import training_data

        self.validate()
        if out is not None:
            check_fit_out(Path(out), resume=resume, overwrite=overwrite)
        self.__dict__["_fit_out"] = out  # save() keeps the resumable state of the model's own run
        data = training_data(instances, problem=self.problem)
        method = self._method(data.kind)
        deadline = Deadline(math.inf if self.train_time is None else float(self.train_time))
        display = ProgressDisplay(self.train_time) if progress is True else (progress or None)
        with ThreadLimits(self.threads) as limits, _ctrl_c_interrupts(deadline):
            self._deadline = deadline
            ctx = FitContext(
                time_limit=self.train_time,
                seed=self.seed,
                threads=self.threads,
                out=None if out is None else Path(out),
                resume=resume,
                on_progress=display,
                command=command,
                stop=lambda: deadline.interrupted,
                limits=limits,
            )
            try:
                if isinstance(display, ProgressDisplay):
                    with display:
                        method.fit(data, ctx)
                else:
                    method.fit(data, ctx)
            finally:
                self._deadline = None
        self.fitted_ = True
        return self

    def save(self, folder: str | PathLike, *, overwrite: bool = False) -> Solver:
        """Write the trained (or loaded) model to ``folder``: ``model.pt`` and its model card
        ``README.md``. Load it again with ``Solver(METHOD, checkpoint=folder)``. A folder that
        already holds either is refused unless ``overwrite``; a replaced run's resumable state
        (``training.pt``) is then removed with it, so that no later resume continues that run under
        this model's card."""
        method = getattr(self, "method_", None)
        if method is None and self.method != AUTO and not get_method(self.method).trainable():
            raise UsageError(f"method {self.method} learns nothing, so it has no model to save")
        if method is None:
            raise UsageError("nothing to save yet: call fit (or solve, to load a model) first")
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"save {folder}: is not a folder")
        held = [name for name in ("model.pt", "README.md") if (folder / name).exists()]
        if held and not overwrite:
            raise UsageError(f"save {folder}: already holds {' and '.join(held)}; replace with overwrite=True")
        own = self.__dict__.get("_fit_out")
        if held and (folder / "training.pt").exists() and (own is None or Path(own).resolve() != folder.resolve()):
            (folder / "training.pt").unlink()
        method.save(folder)
        return self


def solve(
    instance: Instance,
    method: str = AUTO,
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    threads: int = 1,
    problem: str | None = None,
    format: str | None = None,
    **options: Any,
) -> Result:
    """One-line form: ``cosolve.solve("scp41.txt", method="greedy", time_limit=5)``."""
    solver = Solver(method, problem=problem, time_limit=time_limit, seed=seed, threads=threads, **options)
    return solver.solve(instance, format=format)
