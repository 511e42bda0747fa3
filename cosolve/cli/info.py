"""``cosolve info PATH``: what was read from a file."""

from __future__ import annotations

import argparse
import json
import time

from cosolve.io import read
from cosolve.io.detect import format_from_extension, sniff_format

GRAPH_FORMATS = ("dimacs", "edgelist")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info",
        help="print what a file holds (format, family, sizes)",
        description="Read PATH and print its format, problem family and sizes.",
    )
    p.add_argument("path", help="instance file")
    p.add_argument(
        "--problem", "-p", help="problem kind (graph files hold any of mis, maxcut, maxclique, mds; mip keeps an MPS a MIP)"
    )
    p.add_argument("--format", "-f", help="file format (default: detected)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    fmt = args.format or format_from_extension(args.path) or sniff_format(args.path, args.problem)
    graph_only = fmt in GRAPH_FORMATS and args.problem is None
    problem = read(args.path, format=args.format, problem="mis" if graph_only else args.problem)
    info = {**problem.info(), "format": fmt, "path": args.path, "read_time": round(time.perf_counter() - start, 4)}
    if graph_only:
        info["problem"], info["sense"] = "graph (choose with --problem: mis, maxcut, maxclique, mds)", None
    if args.json:
        print(json.dumps(info))
    else:
        width = max(map(len, info))
        for key, value in info.items():
            if value is not None:
                print(f"{key:<{width}}  {value}")
    return 0
