"""OR-Tools CP-SAT on the problem's own exact model (``Problem.cpsat_model``), default settings but
the presolve of models too large for the time left."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import (
    CallbackGuard,
    build_within,
    run_in_worker,
    seed32,
    time_left,
)
from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import ExactModel, Problem
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination
from cosolve.errors import InputError
from cosolve.problems.registry import kinds_with_model

#: Linear terms per second of the time left up to which ``presolve=auto`` presolves: CP-SAT's
#: presolve ignores its time limit, and took 3.4 s of a 2.5 s limit on a 783 x 200,448 set cover
#: with 1.17 million terms (about 350,000 a second; this keeps a factor 2 of room)
PRESOLVE_TERMS_PER_SECOND = 150_000


def _presolve(setting: str, problem: Problem, remaining: float | None) -> bool:
    """Whether CP-SAT presolves the model of ``problem`` with ``remaining`` seconds (None: no
    limit) left; ``auto`` reads the size from the problem's ``nonzeros`` (the constraint matrix's,
    for set covers and MIPs; presolve stays on for kinds that do not give one). The model's proto
    is not read: touching its constraints from Python in ortools 9.15 empties them."""
    if setting != "auto":
        return setting == "on"
    terms = problem.sizes().get("nonzeros")
    return remaining is None or terms is None or terms <= PRESOLVE_TERMS_PER_SECOND * remaining


class _Decoder:
    """Maps CP-SAT's solution vector (one value per model variable) to the problem's solution,
    and CP-SAT's objective values to the problem's.

    With non-integral objective coefficients CP-SAT optimises a scaled integer objective and
    reports approximate values; :meth:`objective` then gives ``None`` so that the trace uses
    its own evaluation of the solution.
    """

    def __init__(self, exact: ExactModel) -> None:
        index = np.array([v.index for v in exact.variables], dtype=np.int64)
        self.exact = exact
        self.exact_objective = not exact.model.proto.has_floating_point_objective()
        self.negated = index < 0  # a negated Boolean literal ``x.Not()`` has index ``-x.index - 1``
        self.index = np.where(self.negated, -index - 1, index)

    def __call__(self, solution: Any) -> np.ndarray:
        values = np.asarray(solution, dtype=np.int64)[self.index]
        values = np.where(self.negated, 1 - values, values)
        return self.exact.decode(values.astype(np.float64))

    def objective(self, value: float) -> float | None:
        return value + self.exact.objective_offset if self.exact_objective else None


def _make_callback(decoder: _Decoder, ctx: SolveContext, guard: CallbackGuard) -> Any:
    from ortools.sat.python import cp_model

    offset = decoder.exact.objective_offset

    class Incumbents(cp_model.CpSolverSolutionCallback):
        """Offers each solution CP-SAT finds (called from CP-SAT's threads) with its bound."""

        def on_solution_callback(self) -> None:
            try:
                ctx.trace.offer(decoder(self.response_proto.solution), decoder.objective(self.objective_value))
                ctx.trace.offer_bound(self.best_objective_bound + offset)
            except BaseException as error:  # re-raised after the solve
                guard.record(error)
                self.stop_search()

    return Incumbents()


@register
class CpSatMethod(Method):
    """OR-Tools CP-SAT on the problem's exact model from :meth:`Problem.cpsat_model`.

    Models: Boolean variables with ``add_bool_or`` (set cover, MDS) or ``add_at_most_one``
    (MIS, MaxClique) rows, MaxCut with ``add_bool_xor`` edge literals, TSP with the global
    ``add_circuit`` constraint on arc literals, MIP only when every variable is integer with
    finite bounds and every coefficient integral (refused before the set-up otherwise).
    CP-SAT runs with its default parameters except ``num_workers`` (the thread budget),
    ``random_seed`` (the seed, modulo 2^31-1), ``max_time_in_seconds`` (the time left *after*
    building the model), ``catch_sigint_signal`` (off) and, with ``presolve=auto`` (the
    default), ``cp_model_presolve`` off for a model too large for the time left: CP-SAT's presolve
    does not stop at the time limit (on a 783 x 200,448 rail cover at 3 s it ran 4.2 s and found
    no cover; without it, cover 260 in 3.1 s).

    Anytime trace: a solution callback offers every solution CP-SAT finds and the bound at
    that moment; ``best_bound_callback`` reports each bound improvement. With non-integral
    objective coefficients (weighted MaxCut, set cover with fractional costs) CP-SAT optimises
    a scaled integer objective: objectives are then the problem's own evaluation, and the
    optimum and bounds are accurate to CP-SAT's gap tolerance only.

    Interruption: CP-SAT runs in a worker thread (it releases the GIL) while the calling
    thread waits in short steps, so Ctrl-C reaches the Solver's handler at once, which
    interrupts the deadline; the waiting thread then calls ``stop_search`` and the incumbent
    is kept. ``Deadline.interrupt()`` from any other thread works the same way.
    Statuses: OPTIMAL and INFEASIBLE are proofs; FEASIBLE/UNKNOWN give ``time_limit`` (the
    only limit set; ``interrupted`` after an interrupt), and with UNKNOWN CP-SAT's bound is a
    placeholder, not reported; MODEL_INVALID raises an :class:`InputError` with CP-SAT's reason.
    """

    name: ClassVar[str] = "cpsat"
    problems: ClassVar[frozenset[str]] = kinds_with_model("cpsat")
    summary: ClassVar[str] = "OR-Tools CP-SAT on the problem's exact model, default parameters (threads = workers)"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "log": Option(bool, False, "print CP-SAT's search log to stderr"),
        "presolve": Option(
            str,
            "auto",
            "CP-SAT's presolve: on, off, or auto (off when the model's linear terms exceed "
            f"{PRESOLVE_TERMS_PER_SECOND:,} per second of the time left: CP-SAT's presolve does not stop at its time limit)",
            choices=("auto", "on", "off"),
        ),
    }

    def refusal(self, problem: Problem) -> str | None:
        return problem.cpsat_refusal()

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from ortools.sat.python import cp_model

        exact = build_within(ctx, problem.cpsat_model)
        if exact is None:  # the budget ran out while building the model
            return Outcome(Termination.TIME_LIMIT, stats={"model_built": False})
        decoder = _Decoder(exact)
        offset = exact.objective_offset
        guard = CallbackGuard()
        solver = cp_model.CpSolver()
        params = solver.parameters
        params.num_workers = ctx.threads
        params.random_seed = seed32(ctx.seed)
        params.catch_sigint_signal = False
        if ctx.options["log"]:
            params.log_search_progress = True
            params.log_to_stdout = False
            solver.log_callback = lambda line: print(line, file=sys.stderr, flush=True)

        def on_bound(bound: float) -> None:
            try:
                ctx.trace.offer_bound(bound + offset)
            except BaseException as error:  # re-raised after the solve
                guard.record(error)
                solver.stop_search()

        solver.best_bound_callback = on_bound
        callback = _make_callback(decoder, ctx, guard)

        remaining = time_left(ctx.deadline)  # measured after building the model
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        if remaining is not None:
            params.max_time_in_seconds = remaining
        params.cp_model_presolve = _presolve(ctx.options["presolve"], problem, remaining)
        status = run_in_worker(lambda: solver.solve(exact.model, callback), solver.stop_search, ctx.deadline, "cosolve-cpsat")
        guard.reraise()

        if status == cp_model.MODEL_INVALID:
            reason = exact.model.validate() or solver.solution_info() or "no reason given"
            raise InputError(f"cpsat: CP-SAT rejected the model of {problem.name or problem.kind}: {reason}")
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            ctx.trace.offer(decoder(solver.response_proto.solution), decoder.objective(solver.objective_value))
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):  # with UNKNOWN the bound is a placeholder (0)
            ctx.trace.offer_bound(solver.best_objective_bound + offset)
        if status == cp_model.OPTIMAL:
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)
        if status == cp_model.INFEASIBLE:
            return Outcome(Termination.COMPLETED, Status.INFEASIBLE)
        # FEASIBLE or UNKNOWN: CP-SAT stopped before a proof; its time limit is the only limit set
        return Outcome(Termination.TIME_LIMIT)
