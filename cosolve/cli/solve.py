"""``cosolve solve PATH --method NAME --time SECONDS``: solve one instance file."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from cosolve.cli.common import fmt_gap, fmt_value
from cosolve.core.options import parse_assignments
from cosolve.core.registry import AUTO
from cosolve.core.result import Result, TracePoint, relative_gap
from cosolve.errors import CosolveError, UsageError
from cosolve.problems.registry import report_extras
from cosolve.solver import Solver

if TYPE_CHECKING:
    from cosolve.core.problem import Problem


#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "solve one instance file"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help=SUMMARY,
        description="Solve PATH with one method under a wall-clock budget, which counts the method's one-time set-up "
        "(times in the log and the summary count from its start). "
        "Logs one line per improvement, then a summary (or one JSON object with --json).",
    )
    p.add_argument("path", help="instance file (OR-Library, rail, MPS, LP, DIMACS, rudy, METIS, edge list, TSPLIB, jigsaw .npz)")
    p.add_argument(
        "--method", "-m", default=AUTO, help="method name (see: cosolve methods); default auto: the best measured for the problem"
    )
    p.add_argument(
        "--time",
        "-t",
        type=float,
        default=10.0,
        help="wall-clock budget in seconds for the method's set-up (model loading, warm-up) and its solve together; "
        "the solve gets at least half of it (default 10)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=1, help="threads the method may use (default 1)")
    p.add_argument(
        "--problem", "-p", help="problem kind (see: cosolve methods); needed where several kinds share a format (graphs)"
    )
    p.add_argument("--format", "-f", help="file format (default: detected from name and content)")
    p.add_argument("--output", "-o", help="write the solution to this file (one line per item)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="method option (repeatable)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout, no log")
    p.add_argument("--plot", metavar="FILE", help="write a picture of the solution (for kinds that have one: cosolve methods)")


def check_output(path: str | None, source: str, label: str = "--output") -> None:
    """Fail before solving, not after, if ``path`` could not be written or is the input ``source``."""
    if path is None:
        return
    if not path:
        raise UsageError(f"{label}: empty file name")
    if os.path.isdir(path):
        raise UsageError(f"{label} {path}: is a directory")
    if os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
        raise UsageError(f"{label} {path}: is the input file; refusing to overwrite it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        what = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise UsageError(f"{label} {path}: {parent} {what}")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{label} {path}: folder {parent} is not writable")


def run(args: argparse.Namespace) -> int:
    from cosolve.core.numba_compile import on_first_compile
    from cosolve.io import read, write_solution

    if not args.time > 0:
        raise UsageError(f"--time must be a positive number of seconds, got {args.time:g}")
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    if args.seed < 0:
        raise UsageError(f"--seed must be non-negative, got {args.seed}")
    check_output(args.output, args.path)
    check_output(args.plot, args.path, "--plot")
    options = parse_assignments(args.set)
    solver = Solver(
        args.method,
        problem=args.problem,
        time_limit=args.time,
        seed=args.seed,
        threads=args.threads,
        setup_in_budget=True,  # --time bounds the command: the set-up is part of it
        **options,
    )
    solver.validate()  # unknown method or option: fail before reading a large file
    if args.plot:
        from cosolve.cli.plots import check_plot_format

        check_plot_format(args.plot)

    start = time.perf_counter()
    problem = read(args.path, format=args.format, problem=args.problem)
    read_time = time.perf_counter() - start
    solver.check_supports(problem)  # for auto: also the options of the method the kind picks
    method = solver.method_name(problem.kind)
    if args.plot:
        from cosolve.cli.plots import check_plottable

        check_plottable(problem)
    if not args.json:
        sizes = ", ".join(f"{k} {v}" for k, v in problem.sizes().items())
        print(f"{problem.name}: {problem.kind} ({sizes}), read in {read_time:.2f} s")
    notice = "compiling numba kernels (a first run; later runs load them from the cache) ..."
    withdraw = on_first_compile(lambda: print(notice, flush=True)) if not args.json else lambda: None
    try:
        result = _set_up_and_solve(solver, problem, args, method)
    finally:
        withdraw()
    unwritten: dict[str, CosolveError] = {}  # files that could not be written; reported after the summary
    if args.output and result.solution is not None:
        try:
            write_solution(problem, result.solution, args.output)
        except CosolveError as e:
            unwritten["output"] = e
    if args.plot and result.solution is not None:
        from cosolve.cli.plots import plot_solution

        try:
            title = f"{problem.name}: {method}, objective {fmt_value(result.objective)}"
            plot_solution(problem, result.solution, args.plot, title=title)
        except CosolveError as e:
            unwritten["plot"] = e

    extras = report_extras(problem, result.solution)
    if args.json:
        out = result.to_dict(with_solution=False)
        out.update(path=args.path, read_time=read_time)
        written = result.solution is not None  # nothing is written or drawn without a solution
        out.update(
            output=args.output if written and "output" not in unwritten else None,
            plot=args.plot if written and "plot" not in unwritten else None,
        )
        out.update(extras)
        print(json.dumps(out))
    else:
        print(f"status       {result.status.value}")
        print(f"termination  {result.termination.value}")
        print(f"objective    {fmt_value(result.objective)}")
        print(f"bound        {fmt_value(result.bound)}")
        print(f"gap          {fmt_gap(result.gap)}")
        compiled = ""
        if result.compile_time >= 0.05:
            compiled = f"; numba compiled kernels for {result.compile_time:.2f} s of it, cached for later runs"
        print(f"time         {result.time:.2f} s (set-up {result.setup_time:.2f} s{compiled})")
        for key, value in extras.items():
            print(f"{key:<12} {value}")
        if result.stats:
            print("stats        " + "  ".join(f"{k} {_stat(v)}" for k, v in result.stats.items()))
        if args.output:
            shown = "(not written, see the error)" if "output" in unwritten else args.output
            print(f"solution     {shown if result.solution is not None else '(none found, nothing written)'}")
        if args.plot:
            shown = "(not written, see the error)" if "plot" in unwritten else args.plot
            print(f"plot         {shown if result.solution is not None else '(no solution, nothing drawn)'}")
    sys.stdout.flush()
    if unwritten:
        raise next(iter(unwritten.values()))
    return 0


def _set_up_and_solve(solver: Solver, problem: Problem, args: argparse.Namespace, method: str) -> Result:
    """The solver's set-up and solve, logging each improvement unless ``--json``."""
    setup_time = solver.prepare(problem)
    if not args.json:
        limits = f"time limit {args.time:g} s with the set-up, {args.threads} thread(s), seed {args.seed}"
        chosen = f"{method} (auto: the default for {problem.kind})" if args.method == AUTO else method
        print(f"{chosen}: {limits}; set up in {setup_time:.2f} s")
        print(f"{'time':>9}  {'objective':>14}  {'bound':>14}  {'gap':>8}")

    return solver.solve(problem, on_improvement=None if args.json else incumbent_log(method))


def incumbent_log(method: str) -> Callable[[TracePoint], None]:
    """A trace listener printing a line per event (time, objective, bound, gap, ``method``), except
    that a move of the bound alone within a second of the last line is not printed."""
    shown: dict[str, float | None] = {}  # the last line's time and objective

    def log(point: TracePoint) -> None:
        if shown and point.objective == shown["objective"] and point.time - shown["time"] < 1.0:
            return
        shown.update(time=point.time, objective=point.objective)
        gap = fmt_gap(relative_gap(point.objective, point.bound))
        print(
            f"{point.time:8.2f}s  {fmt_value(point.objective):>14}  {fmt_value(point.bound):>14}  {gap:>8}  {method}",
            flush=True,
        )

    return log


def _stat(value: object) -> str:
    """A counter of ``Result.stats`` as the summary shows it: floats to 4 digits, NaN (not
    reached, e.g. a phase that did not run) as ``-``, as the JSON's null."""
    if isinstance(value, float):
        return "-" if value != value else f"{value:.4g}"
    return str(value)
