"""The ``lkh`` baseline: Helsgaun's LKH-3 (Lin–Kernighan–Helsgaun) for TSP, through ``elkai``.

LKH-3 (K. Helsgaun, version 3.0.8 as bundled by the ``elkai`` package) builds alpha-nearness
candidate sets from a subgradient ascent on 1-trees, then runs Lin–Kernighan trials with 5-opt
moves; successive runs are merged with the best tour (IPT). Install it with
``pip install 'cosolve[lkh]'``. Licence: LKH and elkai are for academic and non-commercial use
only (the README of the extra says so); cosolve calls them, it does not contain them.

The instance goes to LKH as TSPLIB text in its own metric (EUC_2D, CEIL_2D, ATT and GEO
coordinates as LKH computes them; EXPLICIT weights as FULL_MATRIX, the one format elkai's LKH
reads), with these parameters:
``RUNS`` (the ``runs`` option; by default as many as the budget allows), ``SEED`` (the solve's
seed), ``TOTAL_TIME_LIMIT`` (the time left less a margin for what follows), ``TRACE_LEVEL = 0``
and, where distances are so large that LKH's ``PRECISION * distance`` would overflow its ints (its
assertions then abort the process), a ``PRECISION`` below its default 100 that keeps them clear
(distances above about 5 * 10^8 are refused).
LKH checks its time limit between trials, and measures it in CPU time of the process (``clock()``):
on a machine where the solve gets less than a whole core, it runs over the wall-clock budget by
what it was denied. Reading the problem and building the candidate sets (about n^2 work for the
ascent) are not interruptible, so on very large instances the first seconds may run over a short
budget. elkai holds the GIL while LKH runs and has no way to be
stopped: an interrupt (Ctrl-C) is seen when it returns. The tour is offered when LKH returns and
evaluated with cosolve's distances (which are TSPLIB's, as LKH's are). Nothing is proven: no
bound is reported. ``threads`` is ignored (LKH is sequential).
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import seed32, time_left
from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination
from cosolve.errors import UsageError

MISSING = "lkh needs the optional package elkai: pip install 'cosolve[lkh]'"
#: LKH's largest EXPLICIT matrix (elkai sets MaxMatrixDimension to 20,000).
MAX_EXPLICIT = 20_000
#: RUNS when a time limit ends the search (LKH stops at TOTAL_TIME_LIMIT long before).
UNBOUNDED_RUNS = 1_000_000
#: LKH's PRECISION by default: it works with ``PRECISION * distance + pi_i + pi_j`` in C ints
LKH_PRECISION = 100
#: The largest ``PRECISION * distance`` kept clear of int overflow (a quarter of 2^31 leaves room for
#: the pi values; beyond it LKH's assertions abort the whole process)
LKH_LIMIT = 2**31 // 4


def lkh_precision(largest: float) -> int:
    """LKH's PRECISION for an instance whose distances are at most ``largest``: its default, or
    less where that would overflow LKH's ints; a :class:`UsageError` where even 1 would."""
    if largest * LKH_PRECISION <= LKH_LIMIT:
        return LKH_PRECISION
    if largest > LKH_LIMIT:
        raise UsageError(
            f"lkh: distances up to {largest:.3g} overflow LKH's integers (at most {LKH_LIMIT}); rescale the instance"
        )
    return int(LKH_LIMIT // largest)


def import_elkai() -> ModuleType:
    """elkai's compiled module, or a :class:`UsageError` saying how to install it."""
    try:
        from elkai import _elkai
    except ImportError:
        raise UsageError(MISSING) from None
    return _elkai


def margin(remaining: float, n: int) -> float:
    """Seconds kept back from LKH's time limit: 0.02 s, 5% of the time left and 2 us a city. LKH
    counts CPU seconds: with 1% kept back, jobs of two workers on two cores (bench/results/tsp) ran
    up to 0.49 s over 10 s and 2.6 s over 60 s of wall clock, the CPU time they were denied."""
    return 0.02 + 0.05 * remaining + 2e-6 * n


def lkh_parameters(*, runs: int, seed: int, time_limit: float | None, precision: int = LKH_PRECISION) -> str:
    """The LKH parameter text (the problem itself is passed as TSPLIB text)."""
    lines = [f"RUNS = {runs}", f"SEED = {seed}", "TRACE_LEVEL = 0", "PROBLEM_FILE = :stdin:"]
    if precision != LKH_PRECISION:
        lines.append(f"PRECISION = {precision}")
    if time_limit is not None:
        lines.append(f"TOTAL_TIME_LIMIT = {time_limit:.6f}")
    return "\n".join(lines) + "\n"


@register
class Lkh(Method):
    """LKH-3 through elkai (see the module doc)."""

    name: ClassVar[str] = "lkh"
    problems: ClassVar[frozenset[str]] = frozenset({"tsp"})
    summary: ClassVar[str] = (
        "LKH-3 (Helsgaun's Lin-Kernighan heuristic via elkai; pip install 'cosolve[lkh]', non-commercial licence): "
        "alpha-nearness candidates, 5-opt trials, runs merged until the time limit"
    )
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "runs": Option(
            int, 0, "LKH runs (0: as many as the time limit allows; 10, LKH's default, without a time limit)", minimum=0
        ),
    }

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.io.tsplib import tsplib_text
        from cosolve.problems.tsp import TSP

        elkai = import_elkai()
        precision = lkh_precision(problem.largest_distance())
        if problem.weights is not None and problem.n > MAX_EXPLICIT:
            raise UsageError(f"lkh (elkai) takes EXPLICIT matrices of at most {MAX_EXPLICIT} cities; this one has {problem.n}")
        deadline = ctx.deadline
        if problem.weights is not None:  # display coordinates crash elkai's reader: the matrix alone
            problem = TSP(metric="EXPLICIT", weights=problem.weights, name=problem.name)
        text = tsplib_text(problem)
        remaining = time_left(deadline)
        limit = None if remaining is None else remaining - margin(remaining, problem.n)
        if deadline.stop_requested or (limit is not None and limit <= 0):
            return Outcome(Termination.TIME_LIMIT)
        runs = ctx.options["runs"] or (10 if limit is None else UNBOUNDED_RUNS)
        seed = seed32(ctx.seed) + 1  # LKH reads SEED = 0 as "from the clock"
        params = lkh_parameters(runs=runs, seed=seed, time_limit=limit, precision=precision)
        start = time.perf_counter()
        order = elkai.solve_problem(params, text)
        seconds = time.perf_counter() - start
        stats: dict[str, Any] = {"lkh_seconds": round(seconds, 4), "runs_asked": runs}
        tour = np.asarray(order, dtype=np.int64) - 1
        if tour.shape != (problem.n,) or not np.array_equal(np.sort(tour), np.arange(problem.n)):
            if limit is not None and seconds >= 0.9 * limit:  # its time ran out before the first tour (seen on
                stats["returned_cities"] = int(tour.size)  # pr1002 at 1 s: 10 cities back)
                return Outcome(Termination.TIME_LIMIT, stats=stats)
            raise RuntimeError(f"LKH returned {tour.size} cities, not a permutation of the {problem.n}")
        ctx.trace.offer(tour, problem.tour_length(tour))
        if limit is not None and seconds >= 0.9 * limit:
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        return Outcome(Termination.COMPLETED, stats=stats)
