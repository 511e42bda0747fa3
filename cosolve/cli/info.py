"""``cosolve info PATH``: what was read from a file."""

from __future__ import annotations

import argparse
import json
import time

from cosolve.io import read


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", help="print what a file holds (family, sizes)", description="Read PATH and print its problem family and sizes."
    )
    p.add_argument("path", help="instance file")
    p.add_argument("--problem", help="problem kind for graph files: mis, maxcut, maxclique, mds")
    p.add_argument("--format", help="file format (default: detected)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    problem = read(args.path, format=args.format, problem=args.problem)
    info = {**problem.info(), "path": args.path, "read_time": round(time.perf_counter() - start, 4)}
    if args.json:
        print(json.dumps(info))
    else:
        width = max(map(len, info))
        for key, value in info.items():
            print(f"{key:<{width}}  {value}")
    return 0
