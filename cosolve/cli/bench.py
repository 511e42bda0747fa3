"""``cosolve bench SUITE.toml``: run a benchmark suite, store results, write reports."""

from __future__ import annotations

import argparse
from pathlib import Path

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "run a benchmark suite under equal wall-clock budgets"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help=SUMMARY,
        description="Run every job of SUITE (instances x methods x budgets x seeds), each in its own process on a Dask "
        "cluster, record each finished job in OUT/results.sqlite at once, then write OUT/results.csv, "
        "OUT/report.md and PNG plots. Suites: see bench/README.md.",
    )
    p.add_argument("suite", help="suite file (TOML), e.g. bench/suites/quick.toml")
    p.add_argument("--out", "-o", help="output folder (default: bench/out/SUITE_NAME)")
    p.add_argument("--workers", "-w", type=int, default=1, help="concurrent jobs on a local Dask cluster (default 1)")
    p.add_argument("--scheduler", help="address of an existing Dask scheduler, e.g. tcp://host:8786 (instead of --workers)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run: skip the jobs already recorded in OUT")
    p.add_argument("--oversubscribe", action="store_true", help="allow workers x threads above the machine's cores")
    p.add_argument("--no-progress", action="store_true", help="no live progress bar")


def run(args: argparse.Namespace) -> int:
    from cosolve.errors import UsageError
    from cosolve.harness.report_writer import write_reports
    from cosolve.harness.runner import run_suite
    from cosolve.harness.suite import load_suite

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    suite = load_suite(args.suite)
    out = Path(args.out) if args.out else Path("bench") / "out" / suite.name
    counts = run_suite(
        suite, out, workers=args.workers, scheduler=args.scheduler, resume=args.resume, oversubscribe=args.oversubscribe,
        progress=not args.no_progress,
    )  # fmt: skip
    print(
        f"{suite.name}: {counts['total']} jobs ({counts['skipped']} already recorded), ran {counts['done']} done, "
        f"{counts['killed']} killed, {counts['failed']} failed in {counts['wall']:.1f} s"
    )
    for path in write_reports(out):
        print(f"wrote {path}")
    return 0
