"""``cosolve report DIR``: rewrite a benchmark's reports from its database alone."""

from __future__ import annotations

import argparse

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "rewrite a benchmark's CSV, Markdown and plots from DIR/results.sqlite"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help=SUMMARY)
    p.add_argument("folder", help="output folder of a cosolve bench run")


def run(args: argparse.Namespace) -> int:
    from cosolve.harness.report_writer import write_reports

    for path in write_reports(args.folder):
        print(f"wrote {path}")
    return 0
