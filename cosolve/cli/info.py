"""``cosolve info PATH``: what was read from a file."""

from __future__ import annotations

import argparse
import json
import time

from cosolve.io import read
from cosolve.io.detect import detect_format, holders

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "print what a file holds (format, family, sizes)"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info",
        help=SUMMARY,
        description="Read PATH and print its format, problem family and sizes.",
    )
    p.add_argument("path", help="instance file")
    p.add_argument("--problem", "-p", help="problem kind (a graph file holds any graph problem; mip keeps an MPS a MIP)")
    p.add_argument("--format", "-f", help="file format (default: detected)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    fmt = detect_format(args.path, format=args.format, problem=args.problem)
    kinds = holders(fmt.name)
    open_kind = args.problem is None and not fmt.tells_kind and len(kinds) > 1  # the file does not say which
    problem = read(args.path, format=args.format, problem=kinds[0] if open_kind else args.problem)
    shown = " or ".join(fmt.either) if fmt.either else fmt.name  # a layout told apart by reading
    info = {**problem.info(), "format": shown, "path": args.path, "read_time": round(time.perf_counter() - start, 4)}
    if open_kind:
        info["problem"], info["sense"] = f"any of {', '.join(kinds)} (choose with --problem)", None
    if args.json:
        print(json.dumps(info))
    else:
        width = max(map(len, info))
        for key, value in info.items():
            if value is not None:
                print(f"{key:<{width}}  {value}")
    return 0
