"""``cosolve validate SOLUTION INSTANCE``: check a solution file (cosolve's, or any solver's in the
same layout) against its instance with cosolve's evaluators."""

from __future__ import annotations

import argparse
import json
import math

from cosolve.io import read, read_solution
from cosolve.io.solution import solution_header

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "check a solution file against its instance: feasibility, objective, first violation"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "validate",
        help=SUMMARY,
        description=(
            "Read INSTANCE and SOLUTION (the layout `cosolve solve --output` writes: set cover, the chosen "
            "columns 1-based; graphs, the chosen node labels (MaxCut: side 1); TSP, the tour's cities "
            "1-based or a TSPLIB .tour; MIP, 'name value' lines), evaluate it and print whether it is "
            "feasible, its objective and the first violated constraint. Exit code 0 if feasible, 1 if "
            "not, 2 for a file that cannot be read. For a graph file without --problem, the problem named "
            "in the solution's '# cosolve solution: problem=...' header is used; a header naming another "
            "instance or objective is reported as a warning. A TSP tour that repeats, misses or invents a city "
            "is infeasible (exit 1), not unreadable."
        ),
    )
    p.add_argument("solution", help="solution file")
    p.add_argument("instance", help="instance file")
    p.add_argument("--problem", "-p", help="problem kind (a graph file holds any graph problem; mip keeps an MPS a MIP)")
    p.add_argument("--format", "-f", help="instance file format (default: detected)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def header_mismatch(header: dict[str, str], instance: str, objective: float) -> str | None:
    """What the solution file's header says that disagrees with the instance it is checked
    against (another instance's name, another objective), or None."""
    said = []
    named = header.get("instance")
    if named and instance and named != instance:
        said.append(f"the solution file names instance {named}, not {instance}")
    try:
        stated = float(header.get("objective", "nan"))
    except ValueError:
        stated = math.nan
    if math.isfinite(stated) and math.isfinite(objective) and not math.isclose(stated, objective, rel_tol=1e-9, abs_tol=1e-6):
        said.append(f"its header gives objective {stated:g}, evaluated here as {objective:g}")
    return "; ".join(said) or None


def run(args: argparse.Namespace) -> int:
    kind = args.problem
    header = solution_header(args.solution)
    hinted = (header.get("problem") or None) if kind is None else None
    if hinted is not None:  # a graph file holds several kinds: the solution's own header says which
        from cosolve.io.detect import detect_format, holders

        fmt = detect_format(args.instance, format=args.format)
        if not fmt.tells_kind and hinted in holders(fmt.name):
            kind = hinted
    problem = read(args.instance, format=args.format, problem=kind)
    solution = read_solution(problem, args.solution)
    verdict = problem.evaluate(solution)
    info = {
        "instance": problem.name,
        "problem": problem.kind,
        "solution": args.solution,
        "feasible": bool(verdict.feasible),
        "objective": float(verdict.objective),
        "violation": verdict.violation,
        "warning": header_mismatch(header, problem.name, float(verdict.objective)),
    }
    if args.json:
        print(json.dumps(info))
    else:
        width = max(map(len, info))
        for key, value in info.items():
            if key == "feasible":
                value = "yes" if value else "no"
            if value is not None:
                print(f"{key:<{width}}  {value:g}" if isinstance(value, float) else f"{key:<{width}}  {value}")
    return 0 if verdict.feasible else 1
