"""``cosolve export PATH OUTPUT``: write any instance as an exact model file (MPS, LP, CIP)."""

from __future__ import annotations

import argparse

from cosolve.cli.solve import check_output
from cosolve.io import read, write_mps

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "write an instance's exact model as .mps/.lp"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help=SUMMARY,
        description="Read PATH and write its exact MIP model (the one the scip baseline solves; for TSP the "
        "compact Miller-Tucker-Zemlin model) to OUTPUT; the format follows OUTPUT's extension "
        "(.mps, .mps.gz, .lp, .cip).",
    )
    p.add_argument("path", help="instance file")
    p.add_argument("output", help="model file to write")
    p.add_argument("--problem", "-p", help="problem kind; needed where several kinds share a format (graph files)")
    p.add_argument("--format", "-f", help="input file format (default: detected)")


def run(args: argparse.Namespace) -> int:
    check_output(args.output, args.path, label="output")
    problem = read(args.path, format=args.format, problem=args.problem)
    write_mps(problem, args.output)
    print(f"wrote {problem.kind} model of {problem.name} to {args.output}")
    return 0
