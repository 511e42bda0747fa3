"""Status, termination reason, anytime trace and the Result every solve returns."""

from __future__ import annotations

import enum
import json
import math
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


class _Named(str, enum.Enum):
    def __str__(self) -> str:
        return self.value


class Status(_Named):
    """What is known about the answer, independent of why the search stopped."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    NO_SOLUTION = "no_solution"


class Termination(_Named):
    """Why the search stopped, independent of what it found."""

    COMPLETED = "completed"  # the method ran to its end (proof found or heuristic finished)
    TIME_LIMIT = "time_limit"
    INTERRUPTED = "interrupted"  # Ctrl-C or Deadline.interrupt()
    OTHER_LIMIT = "other_limit"  # a node, iteration or memory limit of a sub-solver


class Sense(_Named):
    MINIMIZE = "minimize"
    MAXIMIZE = "maximize"

    def better(self, a: float, b: float) -> bool:
        """True if objective ``a`` is strictly better than ``b``."""
        return a < b if self is Sense.MINIMIZE else a > b

    @property
    def worst(self) -> float:
        return math.inf if self is Sense.MINIMIZE else -math.inf


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """``|objective - bound| / max(|objective|, |bound|)``, in [0, 1] when both share a sign.

    0 when they are equal, 1 when one is 0 and the other not (or the signs differ, capped),
    ``None`` when either is missing or infinite. This is the definition of CP-SAT and
    MathOpt's relative gap, computed here from raw values so that every method is comparable.
    """
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    diff = abs(objective - bound)
    if diff <= 1e-9 * max(1.0, abs(objective)):
        return 0.0
    return min(1.0, diff / max(abs(objective), abs(bound)))


@dataclass(frozen=True)
class TracePoint:
    """One anytime event: seconds since the start of the solve, incumbent and bound then."""

    time: float
    objective: float | None
    bound: float | None


class Trace:
    """Incumbent and bound of a running solve, with the history of their improvements.

    Thread-safe: sub-solver callbacks may report from their own threads. ``evaluate`` checks
    each offered solution (objective, feasibility) so a method cannot report a wrong value.
    Listeners (e.g. the CLI's log) are called with each new :class:`TracePoint`.
    """

    def __init__(
        self,
        sense: Sense,
        clock: Callable[[], float],
        evaluate: Callable[[np.ndarray], tuple[float, bool, str | None]],
    ) -> None:
        self.sense = sense
        self._clock = clock
        self._evaluate = evaluate
        self._lock = threading.Lock()
        self.points: list[TracePoint] = []
        self.solution: np.ndarray | None = None
        self.objective: float | None = None
        self.bound: float | None = None
        self.listeners: list[Callable[[TracePoint], None]] = []

    def offer(self, solution: np.ndarray, objective: float | None = None) -> bool:
        """Offer a candidate; keep it if feasible and better. Returns True if kept.

        ``objective`` is the method's own value; it must agree with the problem's evaluation
        (an :class:`AssertionError` otherwise, since that is a bug in the method).
        """
        solution = np.array(solution, copy=True)
        value, feasible, _violation = self._evaluate(solution)
        if objective is not None and not math.isclose(value, objective, rel_tol=1e-6, abs_tol=1e-6):
            raise AssertionError(f"method reported objective {objective} but the solution evaluates to {value}")
        if not feasible:
            return False
        with self._lock:
            if self.objective is not None and not self.sense.better(value, self.objective):
                return False
            self.solution, self.objective = solution, value
            self._record()
        return True

    def offer_bound(self, bound: float) -> bool:
        """Report a proven dual bound; kept if tighter than the current one."""
        if bound is None or not math.isfinite(bound):
            return False
        with self._lock:
            if self.bound is not None:
                tighter = bound > self.bound if self.sense is Sense.MINIMIZE else bound < self.bound
                if not tighter:
                    return False
            if self.objective is not None:  # a bound never passes the incumbent
                bound = min(bound, self.objective) if self.sense is Sense.MINIMIZE else max(bound, self.objective)
            self.bound = bound
            self._record()
        return True

    def _record(self) -> None:
        point = TracePoint(self._clock(), self.objective, self.bound)
        self.points.append(point)
        for listener in self.listeners:
            listener(point)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


@dataclass
class Result:
    """The outcome of one solve.

    ``status`` says what is known of the answer, ``termination`` why the search stopped.
    ``objective`` is the problem's own evaluation of ``solution``; ``bound`` the best proven
    dual bound (``None`` if the method proves none); ``gap`` is :func:`relative_gap` of the two.
    ``time`` is the wall-clock seconds of the solve; ``trace`` the anytime history;
    ``setup_time`` the seconds of one-time set-up the method did for this problem kind before
    the clock started (loading a model, compiling kernels: in :meth:`Solver.prepare` or at the
    first solve), except in the first solve of a kind with ``Solver(setup_in_budget=True)`` (the
    CLI's), whose clock starts before the set-up: its ``time`` and trace times include it;
    ``compile_time`` the part of ``time`` numba spent compiling kernels its on-disk cache did not
    hold (a first run after installing; 0 from the cache);
    ``options`` the solve options as used, every ``auto`` worked out (one still None was not
    needed by this solve); ``stats`` the method's own counters (e.g. LNS iterations).
    """

    status: Status
    termination: Termination
    objective: float | None
    bound: float | None
    solution: np.ndarray | None
    time: float
    method: str
    problem: str
    sense: Sense
    instance: str = ""
    time_limit: float | None = None
    seed: int = 0
    threads: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    trace: list[TracePoint] = field(default_factory=list)
    setup_time: float = 0.0
    compile_time: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        return relative_gap(self.objective, self.bound)

    def to_dict(self, *, with_solution: bool = True) -> dict[str, Any]:
        out = {
            "status": self.status.value,
            "termination": self.termination.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "time": self.time,
            "method": self.method,
            "problem": self.problem,
            "sense": self.sense.value,
            "instance": self.instance,
            "time_limit": self.time_limit,
            "seed": self.seed,
            "threads": self.threads,
            "options": self.options,
            "trace": [asdict(p) for p in self.trace],
            "setup_time": self.setup_time,
            "compile_time": self.compile_time,
            "stats": self.stats,
        }
        if with_solution:
            out["solution"] = self.solution
        return _jsonable(out)

    def to_json(self, *, with_solution: bool = True, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(with_solution=with_solution), **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        solution = data.get("solution")
        return cls(
            status=Status(data["status"]),
            termination=Termination(data["termination"]),
            objective=data["objective"],
            bound=data["bound"],
            solution=None if solution is None else np.asarray(solution),
            time=data["time"],
            method=data["method"],
            problem=data["problem"],
            sense=Sense(data["sense"]),
            instance=data.get("instance", ""),
            time_limit=data.get("time_limit"),
            seed=data.get("seed", 0),
            threads=data.get("threads", 1),
            options=data.get("options", {}),
            trace=[TracePoint(**p) for p in data.get("trace", [])],
            setup_time=data.get("setup_time", 0.0),
            compile_time=data.get("compile_time", 0.0),
            stats=data.get("stats", {}),
        )

    def __str__(self) -> str:
        def fmt(v: float | None) -> str:
            return "-" if v is None else f"{v:.10g}"

        gap = self.gap
        return (
            f"{self.method} on {self.instance or self.problem}: {self.status.value} "
            f"({self.termination.value}) objective {fmt(self.objective)} bound {fmt(self.bound)} "
            f"gap {'-' if gap is None else f'{100 * gap:.2f}%'} in {self.time:.2f} s"
        )
