"""SCIP on the problem's own exact MIP model (``Problem.scip_model``), default settings."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import (
    CallbackGuard,
    build_within,
    interrupted_or_overdue,
    ran_out_of_time,
    run_in_worker,
    seed32,
    time_left,
)
from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import ExactModel, Problem
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination
from cosolve.problems.registry import kinds_with_model

#: The most threads SCIP's thread parameters accept.
_MAX_THREADS = 64

#: SCIP statuses that mean a limit other than time (or a user interrupt) stopped the search.
_OTHER_LIMITS = frozenset(
    {
        "nodelimit",
        "totalnodelimit",
        "stallnodelimit",
        "gaplimit",
        "memlimit",
        "sollimit",
        "bestsollimit",
        "restartlimit",
        "primallimit",
        "duallimit",
    }
)


def _solution_values(model: Any, solution: Any, variables: Any) -> np.ndarray:
    return np.fromiter((model.getSolVal(solution, v) for v in variables), dtype=np.float64, count=len(variables))


def _offer_best(model: Any, exact: ExactModel, ctx: SolveContext) -> None:
    """Decode SCIP's best solution and offer it (SCIP's objective is in the original space,
    including any ``addObjoffset``; ``exact.objective_offset`` is what the model leaves out)."""
    solution = model.getBestSol()
    if solution is None:
        return
    values = _solution_values(model, solution, exact.variables)
    claimed = model.getSolObjVal(solution) + exact.objective_offset if exact.objective_is_exact else None
    ctx.trace.offer(exact.decode(values), claimed)


def _offer_bound(model: Any, exact: ExactModel, ctx: SolveContext) -> None:
    """Offer SCIP's dual bound unless it is still SCIP's infinity (no bound proven yet)."""
    bound = model.getDualbound()
    if abs(bound) < model.infinity():
        ctx.trace.offer_bound(bound + exact.objective_offset)


def _make_watcher(exact: ExactModel, ctx: SolveContext, guard: CallbackGuard) -> Any:
    """An event handler that reports incumbents and dual bounds, and stops SCIP when the
    deadline is interrupted (Ctrl-C or another thread) or expired."""
    from pyscipopt import SCIP_EVENTTYPE, Eventhdlr

    best, dual = SCIP_EVENTTYPE.BESTSOLFOUND, SCIP_EVENTTYPE.DUALBOUNDIMPROVED
    caught = (best, dual, SCIP_EVENTTYPE.NODESOLVED, SCIP_EVENTTYPE.LPEVENT, SCIP_EVENTTYPE.PRESOLVEROUND)

    class Watcher(Eventhdlr):
        report = True  # False while solving an auxiliary problem (see _resolve_inforunbd)

        def eventinit(self) -> None:
            for kind in caught:
                self.model.catchEvent(kind, self)

        def eventexec(self, event: Any) -> None:
            try:
                kind = event.getType()
                if self.report and kind == best:
                    _offer_best(self.model, exact, ctx)
                elif self.report and kind == dual:
                    _offer_bound(self.model, exact, ctx)
                if interrupted_or_overdue(ctx.deadline):
                    self.model.interruptSolve()
            except BaseException as error:  # re-raised after the solve
                guard.record(error)
                self.model.interruptSolve()

    return Watcher()


def _optimize(model: Any, ctx: SolveContext, thread_safe: bool = True) -> None:
    """``model.optimizeNogil()`` in a worker thread; the calling thread interrupts SCIP when the
    deadline is interrupted (see :func:`run_in_worker`). A model that is not ``thread_safe``
    (nonlinear constraints, see :class:`ExactModel`) is solved in the calling thread instead: the
    watcher's event handler then stops it, and Ctrl-C reaches the Solver's handler whenever SCIP
    calls back into Python."""
    if not thread_safe:
        model.optimize()
        return

    def interrupt() -> None:
        # SCIP refuses interruptSolve outside its solving stages (e.g. while it sets up or frees
        # the transformed problem); the caller keeps asking until the worker has returned.
        with contextlib.suppress(Exception):
            model.interruptSolve()

    # SCIP stops itself at its time limit; interrupting it at the very moment it expires can
    # catch it while it sets up the solve, which leaves the model in a stage it cannot free.
    run_in_worker(
        model.optimizeNogil, interrupt, ctx.deadline, "cosolve-scip", should_stop=lambda: interrupted_or_overdue(ctx.deadline)
    )


def _resolve_inforunbd(model: Any, watcher: Any, ctx: SolveContext) -> Status | None:
    """After SCIP's "infeasible or unbounded" without a solution: drop the objective and solve
    the feasibility problem in the time left. Feasible means unbounded, infeasible infeasible;
    ``None`` if that solve is stopped too."""
    remaining = time_left(ctx.deadline)
    if ctx.deadline.stop_requested:
        return None
    model.freeTransform()
    model.setObjective(0.0)  # clears every coefficient and the offset
    if remaining is not None:
        model.setParam("limits/time", ctx.deadline.remaining())
    watcher.report = False
    _optimize(model, ctx)
    status = model.getStatus()
    if status == "optimal":
        return Status.UNBOUNDED
    if status == "infeasible":
        return Status.INFEASIBLE
    return None


@register
class ScipMethod(Method):
    """SCIP (via PySCIPOpt) on the problem's exact model from :meth:`Problem.scip_model`.

    Models: set cover, MIS, MaxClique and MDS as pure 0/1 programs, MaxCut with edge
    indicators and the four XOR inequalities, TSP as the symmetric DFJ model with subtour
    cuts added lazily by a constraint handler, MIP as given. SCIP runs with its default
    settings; only these parameters are set: ``limits/time`` (the time left *after* building
    the model), ``randomization/randomseedshift`` (the seed, modulo 2^31-1),
    ``parallel/maxnthreads`` and ``lp/threads`` (the thread budget, at most 64),
    ``misc/catchctrlc`` (off, see below) and quiet output. SCIP's branch-and-bound is
    single-threaded: the thread parameters only matter for a concurrent solve (not used) and
    for LP solvers that thread (SoPlex does not), so SCIP uses one core whatever ``threads``
    says.

    Anytime trace: an event handler reports every new best solution (``BESTSOLFOUND``) and
    every dual bound improvement (``DUALBOUNDIMPROVED``).

    Interruption: SCIP's own Ctrl-C handling (``misc/catchctrlc``) is switched off, since it
    bypasses the Solver's handler and prints to stdout. SCIP runs without the GIL
    (``optimizeNogil``) in a worker thread while the calling thread waits in short steps, so
    Ctrl-C reaches the Solver's handler at once; when the deadline is interrupted (by it or
    by ``Deadline.interrupt()`` from any thread) the waiting thread calls ``interruptSolve``,
    which SCIP honours within milliseconds, and the incumbent is kept.

    Statuses: optimal is proven optimal, infeasible proven infeasible, unbounded proven
    unbounded. For SCIP's "infeasible or unbounded": with an incumbent the problem is
    unbounded; without one, the objective is dropped and the feasibility problem solved in
    the time left (feasible: unbounded, infeasible: infeasible; stopped: nothing proven).
    """

    name: ClassVar[str] = "scip"
    problems: ClassVar[frozenset[str]] = kinds_with_model("scip")
    summary: ClassVar[str] = "SCIP branch-and-cut on the problem's exact MIP model, default settings (one core)"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {}

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        exact = build_within(ctx, problem.scip_model)
        if exact is None:  # the budget ran out while building the model
            return Outcome(Termination.TIME_LIMIT, stats={"model_built": False})
        model = exact.model
        if exact.watch is not None:  # model callbacks (e.g. TSP separation) skip work past the deadline
            exact.watch(lambda: ctx.deadline.stop_requested)
        model.hideOutput()
        model.setParam("misc/catchctrlc", False)
        model.setParam("randomization/randomseedshift", seed32(ctx.seed))
        threads = min(ctx.threads, _MAX_THREADS)
        model.setParam("parallel/maxnthreads", threads)
        model.setParam("lp/threads", threads)
        guard = CallbackGuard()
        watcher = _make_watcher(exact, ctx, guard)
        model.includeEventhdlr(watcher, "cosolve-watcher", "reports incumbents and bounds, polls the deadline")

        remaining = time_left(ctx.deadline)  # measured after building the model
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        if remaining is not None:
            model.setParam("limits/time", remaining)
        _optimize(model, ctx, exact.thread_safe)
        guard.reraise()

        status = model.getStatus()
        if model.getNSols() > 0:
            _offer_best(model, exact, ctx)
        if status not in ("infeasible", "unbounded", "inforunbd"):
            _offer_bound(model, exact, ctx)
        outcome = self._outcome(status, ctx)
        if status == "inforunbd":
            proven = Status.UNBOUNDED if model.getNSols() > 0 else _resolve_inforunbd(model, watcher, ctx)
            guard.reraise()
            outcome = Outcome(Termination.COMPLETED, proven) if proven else Outcome(Termination.TIME_LIMIT)
        return outcome

    @staticmethod
    def _outcome(status: str, ctx: SolveContext) -> Outcome:
        if status == "optimal":
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)
        if status == "infeasible":
            return Outcome(Termination.COMPLETED, Status.INFEASIBLE)
        if status == "unbounded":
            return Outcome(Termination.COMPLETED, Status.UNBOUNDED)
        if status == "timelimit":
            return Outcome(Termination.TIME_LIMIT)
        if status in _OTHER_LIMITS:
            return Outcome(Termination.OTHER_LIMIT)
        if status == "userinterrupt":  # our watcher stopped it: for an interrupt or the deadline
            return Outcome(Termination.TIME_LIMIT)
        # "unknown" (e.g. SIGTERM) or "inforunbd" (resolved by the caller)
        if ctx.deadline.interrupted or ran_out_of_time(ctx.deadline):
            return Outcome(Termination.TIME_LIMIT)
        return Outcome(Termination.OTHER_LIMIT)
