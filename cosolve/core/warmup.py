"""Warm-up solves: run a method on a tiny instance of a problem kind, so that imports, JIT
compilation (numba) and lazy initialisation happen before a timed solve rather than inside it.

The facade (:meth:`cosolve.solver.Solver.prepare`) calls :func:`warm_up` once per method and kind
with the kind's tiny instance (:func:`cosolve.problems.registry.tiny_instance`)."""

from __future__ import annotations

import contextlib

from cosolve.core.deadline import Deadline
from cosolve.core.method import Method, SolveContext
from cosolve.core.numba_compile import compile_seconds
from cosolve.core.problem import Problem, verdict
from cosolve.core.result import Trace
from cosolve.errors import CosolveError

WARM_UP_SECONDS = 0.5
#: at most this many passes (a method that compiles a new kernel in every pass would not settle)
WARM_UP_PASSES = 6
#: a pass that ends past this multiple of its deadline ran into something it could not interrupt
OVERRUN_FACTOR = 1.5


def needs_warm_up(method: Method, kind: str) -> bool:
    """Whether :func:`warm_up` would solve anything for ``method`` on ``kind``: a method with
    ``warm_up`` not yet warmed up on that kind (so the caller need not build the tiny instance)."""
    return method.warm_up and kind not in method.__dict__.get("_warmed_kinds", ())


def warm_up(method: Method, problem: Problem) -> None:
    """Solve the tiny instance ``problem`` with ``method`` (one round for methods with a
    ``rounds`` option, and the method's ``warm_up_options``); the result is discarded. Does
    nothing for methods without ``warm_up``, or when ``method`` was warmed up on the kind before.

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
    if not needs_warm_up(method, problem.kind):
        return
    method.__dict__.setdefault("_warmed_kinds", set()).add(problem.kind)
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

    options = method.resolve(problem, WARM_UP_SECONDS)
    if "rounds" in options:
        options["rounds"] = 1
    options.update(method.warm_up_options)
    trace = Trace(problem.sense, deadline.elapsed, lambda x: verdict(problem, x))
    ctx = SolveContext(deadline, trace, seed=0, threads=1, options=options)
    with contextlib.suppress(CosolveError):
        method.solve(problem, ctx)
    return trace.solution is not None
