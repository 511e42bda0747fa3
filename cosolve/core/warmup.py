"""Warm-up solves: run a method once on a tiny instance of a problem kind, so that imports, JIT
compilation (numba) and lazy initialisation happen before a timed solve rather than inside it."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from cosolve.core.deadline import Deadline
from cosolve.core.problem import Problem
from cosolve.core.result import Trace
from cosolve.errors import CosolveError

if TYPE_CHECKING:
    from cosolve.core.method import Method

WARM_UP_SECONDS = 0.5
#: at most this many passes (a method that compiles a new kernel in every pass would not settle)
WARM_UP_PASSES = 6
#: a pass that ends past this multiple of its deadline ran into something it could not interrupt
OVERRUN_FACTOR = 1.5


def tiny_instance(kind: str) -> Problem | None:
    """The kind's few-variable instance (None for kinds without one, such as mip)."""
    from cosolve.problems.registry import get_kind

    make = get_kind(kind).tiny
    return None if make is None else make()


def warm_up(method: Method, kind: str) -> None:
    """Solve a tiny instance of ``kind`` with ``method`` (one round for methods with a
    ``rounds`` option, and the method's ``warm_up_options``); the result is discarded.

    Each pass has a deadline of :data:`WARM_UP_SECONDS` whose clock stops while numba compiles,
    so compiling a kernel never uses up a pass and skips the code after it, however slow the
    machine. Passes repeat (at most :data:`WARM_UP_PASSES`) until one does no one-time work
    that could have cut it short: another runs when numba compiled kernels during a pass (the
    next one then reaches code that a check of its deadline may have skipped), when the deadline
    stopped a pass before it found a solution (say the imports took the time), or when a pass
    ended well past its deadline (busy in something it could not interrupt). A pass that simply
    used its time on the tiny instance is the last one, except for methods whose work is
    bounded by one round: such a pass that reaches its deadline was cut short (say the sampler
    ran, and the polish after it was skipped), so another runs.
    """
    from cosolve.core.numba_compile import compile_seconds

    problem = tiny_instance(kind)
    if problem is None:
        return
    bounded = "rounds" in method.options
    for _ in range(WARM_UP_PASSES):
        deadline = Deadline(WARM_UP_SECONDS, uncounted=compile_seconds)
        compiled_before = compile_seconds()
        found = _warm_up_pass(method, problem, deadline)
        compiled = compile_seconds() > compiled_before
        if compiled:
            continue
        if not deadline.expired():
            return
        if not bounded and found and deadline.elapsed() < OVERRUN_FACTOR * WARM_UP_SECONDS:
            return


def _warm_up_pass(method: Method, problem: Problem, deadline: Deadline) -> bool:
    """One warm-up solve; whether it found a solution."""
    from cosolve.core.method import SolveContext
    from cosolve.solver import verdict

    options = method.resolve(problem, WARM_UP_SECONDS)
    if "rounds" in options:
        options["rounds"] = 1
    options.update(method.warm_up_options)
    trace = Trace(problem.sense, deadline.elapsed, lambda x: verdict(problem, x))
    ctx = SolveContext(deadline, trace, seed=0, threads=1, options=options)
    with contextlib.suppress(CosolveError):
        method.solve(problem, ctx)
    return trace.solution is not None
