"""``cosolve methods``: the registered methods, the problems each solves and its options."""

from __future__ import annotations

import argparse
import json

from cosolve.core.registry import methods as registered


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("methods", help="list methods and the problems each solves", description="List the registered methods.")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    table = registered()
    if args.json:
        out = {
            name: {
                "problems": sorted(cls.problems),
                "summary": cls.summary,
                "options": {k: {"type": o.type.__name__, "default": o.default, "help": o.help} for k, o in cls.options.items()},
            }
            for name, cls in table.items()
        }
        print(json.dumps(out))
        return 0
    width = max(len(name) for name in table)
    for name, cls in table.items():
        print(f"{name:<{width}}  {', '.join(sorted(cls.problems))}")
        if cls.summary:
            print(f"{'':<{width}}  {cls.summary}")
        for key, option in cls.options.items():
            default = "auto" if option.default is None else repr(option.default)
            print(f"{'':<{width}}    --set {key}=<{option.type.__name__}> (default {default}): {option.help}")
    return 0
