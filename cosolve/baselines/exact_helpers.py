"""Helpers shared by the exact-solver baselines (SCIP, CP-SAT, OR-Tools routing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from cosolve.core.deadline import Deadline
from cosolve.core.method import SolveContext
from cosolve.core.problem import BuildStopped, build_deadline

_INT32_MAX = 2**31 - 1

T = TypeVar("T")


class CallbackGuard:
    """Keeps the first exception raised inside a solver callback.

    Solver libraries swallow (or abort on) Python exceptions raised in their callbacks, so a
    callback records the exception here, asks the solver to stop, and the method re-raises it
    once the solver has returned (:meth:`reraise`).
    """

    def __init__(self) -> None:
        self.error: BaseException | None = None

    def record(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error

    def reraise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error


#: Budgets above this (about 30 years) are no limit for a sub-solver: SCIP rejects time
#: limits above 1e20 and OR-Tools' routing overflows on huge ones.
UNLIMITED_SECONDS = 1e9


def time_left(deadline: Deadline) -> float | None:
    """Seconds left for a sub-solver, ``None`` when there is no limit (or a huge one)."""
    remaining = deadline.remaining()
    return None if remaining > UNLIMITED_SECONDS else remaining


def ran_out_of_time(deadline: Deadline, slack: float = 0.05) -> bool:
    """True if (almost) no time is left: a sub-solver that stopped now hit the time limit.

    Sub-solvers start their own clock a little after the deadline's, so they may stop a few
    milliseconds before it expires; ``slack`` absorbs that.
    """
    return deadline.remaining() <= slack


def build_within(ctx: SolveContext, build: Callable[[], T]) -> T | None:
    """Run a model builder under the solve's deadline (see :func:`build_deadline`); ``None`` if
    the budget ran out while it was building."""
    try:
        with build_deadline(lambda: ctx.deadline.stop_requested):
            return build()
    except BuildStopped:
        return None


def interrupted_or_overdue(deadline: Deadline, grace: float = 0.25) -> bool:
    """True after an interrupt, or ``grace`` seconds past the deadline: for sub-solvers that
    honour their own time limit and must not be interrupted at an arbitrary moment (SCIP)."""
    return deadline.interrupted or deadline.elapsed() > deadline.time_limit + grace


def seed32(seed: int) -> int:
    """A non-negative seed that fits the 32-bit seed parameters of SCIP and CP-SAT."""
    return int(seed) % _INT32_MAX


#: How often (seconds) the calling thread looks at the deadline while a sub-solver runs.
POLL_INTERVAL = 0.05


def run_in_worker(
    solve: Callable[[], T],
    stop: Callable[[], None],
    deadline: Deadline,
    name: str,
    should_stop: Callable[[], bool] | None = None,
) -> T:
    """Run ``solve()`` (a sub-solver call that releases the GIL) in a worker thread, and call
    ``stop()`` from the calling thread once ``should_stop()`` is true (default: the deadline is
    interrupted or expired).

    Python runs signal handlers in the main thread only, and only between bytecodes: while the
    main thread waits here (in short joins, which signals wake), Ctrl-C reaches the Solver's
    handler at once, which interrupts the deadline. On an exception in the calling thread (a
    second Ctrl-C raises ``KeyboardInterrupt``) the sub-solver is stopped and joined before the
    exception propagates. An exception of ``solve()`` is re-raised here.
    """
    outcome: dict[str, Any] = {}
    if should_stop is None:
        should_stop = lambda: deadline.stop_requested  # noqa: E731

    def work() -> None:
        try:
            outcome["value"] = solve()
        except BaseException as error:  # re-raised in the calling thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_INTERVAL)
            if should_stop():
                stop()
    finally:
        while worker.is_alive():  # only after an exception in this thread
            stop()
            worker.join(POLL_INTERVAL)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
