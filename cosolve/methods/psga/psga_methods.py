"""Methods for one period of K-sparse TCO (problem ``portfolio``): ``psga``, the K-sparse
projection heuristic ``ksparse-projection``, and ``ortools-mip`` (the MILP through OR-Tools)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import ran_out_of_time, time_left
from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination
from cosolve.errors import UsageError


def _starts(text: str) -> tuple[str, ...]:
    from cosolve.methods.psga.psga import STARTS

    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in names if s not in STARTS]
    if not names or bad:
        raise UsageError(f"psga: starts must be a comma-separated list of {', '.join(STARTS)}; got {text!r}")
    return tuple(names)


@register
class PsgaMethod(Method):
    """PSGA (:mod:`cosolve.methods.psga.psga`) from each start in ``starts``, on the DC penalty
    with ``rho = rho_factor * penalty_threshold``; the best result is offered. With ``polish`` the
    final iterate's support (its K largest entries) is re-solved exactly, removing the ADMM
    tolerance; the PSGA fixed point is already optimal on its support, so this only cleans digits.
    ``Result.stats``: ``iterations`` and ``admm_iterations`` (summed over starts), ``converged``
    starts, and ``objectives``: the penalised objective per iteration of the first start."""

    name: ClassVar[str] = "psga"
    problems: ClassVar[frozenset[str]] = frozenset({"portfolio"})
    summary: ClassVar[str] = "proximal subgradient algorithm on the DC exact penalty of K-sparse TCO (ADMM prox)"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "prox": Option(str, "admm", "proximal step by ADMM or exactly (bisection)", choices=("admm", "exact")),
        "rho_factor": Option(float, 1.1, "penalty rho as a multiple of the exact-penalty threshold (> 1)", minimum=1.0),
        "alpha": Option(float, 10.0, "proximal step size", minimum=1e-12),
        "tol": Option(float, 1e-9, "stop when the relative change of b is at most this", minimum=0.0),
        "max_iter": Option(int, 1000, "most proximal steps per start", minimum=1),
        "admm_tol": Option(float, 1e-10, "ADMM residual tolerance (relative)", minimum=0.0),
        "starts": Option(str, "relaxed,previous,uniform", "comma-separated starts: relaxed, previous, uniform"),
        "polish": Option(bool, True, "re-solve the final support exactly"),
    }

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.psga.psga import penalty_threshold, solve_period

        o = ctx.options
        starts = _starts(o["starts"])
        p = problem
        runs = solve_period(
            p.v, p.h, eta=p.eta, lam=p.lam, mu=p.mu, k=p.k, rho_factor=o["rho_factor"], starts=starts, polish=o["polish"],
            stop=lambda: ctx.deadline.stop_requested, alpha=o["alpha"], prox=o["prox"], tol=o["tol"],
            max_iter=o["max_iter"], admm_tol=o["admm_tol"],
        )  # fmt: skip
        for b, _ in runs:
            ctx.trace.offer(b)
        stats = {
            "iterations": sum(run.iterations for _, run in runs),
            "admm_iterations": sum(run.admm_iterations for _, run in runs),
            "converged": sum(run.converged for _, run in runs),
            "starts": len(starts),
            "rho": o["rho_factor"] * penalty_threshold(p.v, p.eta, p.lam, p.mu),
            "objectives": runs[0][1].objectives if runs else [],
        }
        done = stats["converged"] == len(starts)
        return Outcome(Termination.COMPLETED if done else _stopped(ctx), stats=stats)


def _stopped(ctx: SolveContext) -> Termination:
    """Why an unfinished run stopped: the deadline (time limit or interrupt), else its iteration limit."""
    return Termination.TIME_LIMIT if ctx.deadline.stop_requested else Termination.OTHER_LIMIT


@register
class KSparseProjection(Method):
    """The K-sparse projection heuristic: take the optimum without the cardinality constraint,
    keep its ``k`` largest entries (the greedy selector; ties to the lower index, assets with
    the highest prediction fill a support smaller than ``k``), and re-solve exactly on that
    support (a simplex projection of the objective's minimiser there). One shot, no search."""

    name: ClassVar[str] = "ksparse-projection"
    problems: ClassVar[frozenset[str]] = frozenset({"portfolio"})
    summary: ClassVar[str] = "relaxed optimum, keep the K largest entries, re-solve on that support"
    warm_up: ClassVar[bool] = True

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.psga.psga import solve_on_support, top_k_indicator

        p = problem
        relaxed = solve_on_support(p.v, p.h, p.eta, p.lam, p.mu, np.ones(p.n, dtype=np.bool_))
        score = relaxed + 1e-12 * (p.v - p.v.min()) / max(np.ptp(p.v), 1e-300)  # zeros ranked by prediction
        held = top_k_indicator(score, p.k) > 0
        ctx.trace.offer(solve_on_support(p.v, p.h, p.eta, p.lam, p.mu, held))
        return Outcome(Termination.COMPLETED)


@register
class OrtoolsMip(Method):
    """The K-sparse TCO MILP (``mu = 0``; the model of ``PortfolioPeriod.scip_model`` without the
    quadratic term) through OR-Tools' MIP interface (``pywraplp``) with the ``backend`` solver,
    under the time left. Problems with ``mu > 0`` are refused (no quadratic objectives there)."""

    name: ClassVar[str] = "ortools-mip"
    problems: ClassVar[frozenset[str]] = frozenset({"portfolio"})
    summary: ClassVar[str] = "K-sparse TCO as a MILP through OR-Tools' linear solver wrapper (CBC by default)"
    options: ClassVar[dict[str, Option]] = {
        "backend": Option(str, "CBC", "pywraplp backend", choices=("CBC", "SCIP", "HIGHS", "SAT")),
    }

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from ortools.linear_solver import pywraplp

        p = problem
        if p.mu > 0:
            raise UsageError("ortools-mip solves the MILP only (mu = 0); use scip for mu > 0")
        solver = pywraplp.Solver.CreateSolver(ctx.options["backend"])
        if solver is None:
            raise UsageError(f"ortools-mip: backend {ctx.options['backend']} is not available in this OR-Tools build")
        n, inf = p.n, solver.infinity()
        b = [solver.NumVar(0.0, 1.0, f"b{i}") for i in range(n)]
        z = [solver.BoolVar(f"z{i}") for i in range(n)]
        d = [solver.NumVar(0.0, inf, f"d{i}") for i in range(n)]
        solver.Add(solver.Sum(b) == 1)
        solver.Add(solver.Sum(z) <= p.k)
        for i in range(n):
            solver.Add(b[i] <= z[i])
            solver.Add(d[i] >= b[i] - float(p.h[i]))
            solver.Add(d[i] >= float(p.h[i]) - b[i])
        objective = solver.Objective()
        for i in range(n):
            objective.SetCoefficient(b[i], -p.eta * float(p.v[i]))
            objective.SetCoefficient(d[i], p.lam)
        objective.SetMinimization()
        solver.SetNumThreads(max(1, ctx.threads))
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        remaining = time_left(ctx.deadline)
        if remaining is not None:
            solver.SetTimeLimit(max(1, int(remaining * 1000)))
        params = pywraplp.MPSolverParameters()
        params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)  # "optimal" means proven, as for scip
        status = solver.Solve(params)
        if status in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
            values = np.array([x.solution_value() for x in b])
            held = np.array([x.solution_value() > 0.5 for x in z])
            ctx.trace.offer(p.clean(values, held))
        if status == pywraplp.Solver.OPTIMAL:
            ctx.trace.offer_bound(objective.BestBound())
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)
        return Outcome(Termination.TIME_LIMIT if ran_out_of_time(ctx.deadline) else Termination.OTHER_LIMIT)
