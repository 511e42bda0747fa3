"""``cosolve methods``: the registered methods, the problems each solves, their options, and the
default method (``auto``) of each problem kind."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cosolve.core.options import Option
from cosolve.core.registry import AUTO
from cosolve.method_catalog import methods as registered

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "list methods, the problems each solves, and each problem's default"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "methods",
        help=SUMMARY,
        description="List the registered methods with their options (training options too, for the methods "
        "`cosolve train` trains), the method `--method auto` picks for each problem kind, and the kinds "
        "`--plot` draws.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _options(options: dict[str, Option]) -> dict[str, Any]:
    return {k: {"type": o.type.__name__, "default": o.default, "help": o.help} for k, o in options.items()}


def option_lines(options: dict[str, Option], indent: str) -> list[str]:
    """One ``--set`` line per option."""
    return [f"{indent}--set {k}=<{o.type.__name__}> (default {o.describe_default()}): {o.help}" for k, o in options.items()]


def run(args: argparse.Namespace) -> int:
    from cosolve.cli.plots import plottable
    from cosolve.problems.registry import problem_kinds

    table = registered()
    kinds = problem_kinds()
    if args.json:
        out: dict[str, Any] = {
            name: {
                "problems": sorted(cls.problems),
                "summary": cls.summary,
                "options": _options(cls.options),
                "fit_options": _options(cls.fit_options),
            }
            for name, cls in table.items()
        }
        out[AUTO] = {"defaults": {k: {"method": v.default_method, "why": v.default_why} for k, v in kinds.items()}}
        out[AUTO]["plots"] = plottable()
        print(json.dumps(out))
        return 0
    width = max(len(name) for name in [*table, AUTO])
    print(f"{AUTO:<{width}}  the default (--method auto): per problem kind, the best method its benchmarks measured")
    kind_width = max(map(len, kinds))
    for name, kind in kinds.items():
        print(f"{'':<{width}}    {name:<{kind_width}}  {kind.default_method}: {kind.default_why}")
    for name, cls in table.items():
        print(f"{name:<{width}}  {', '.join(sorted(cls.problems))}")
        if cls.summary:
            print(f"{'':<{width}}  {cls.summary}")
        for line in option_lines(cls.options, f"{'':<{width}}    "):
            print(line)
        if cls.fit_options:
            print(f"{'':<{width}}  training options (fit, cosolve train {name}):")
            for line in option_lines(cls.fit_options, f"{'':<{width}}    "):
                print(line)
    print(f"\n`cosolve solve --plot FILE` draws the solutions of: {', '.join(plottable())}")
    return 0
