"""``cosolve generate DIST --count N --out DIR``: write graphs of a named distribution as DIMACS files."""

from __future__ import annotations

import argparse
from pathlib import Path

from cosolve.errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="write random graphs of a named distribution (DIMACS)",
        description="Write COUNT graphs of DIST to OUT/DIST-SEED.col, for seeds FIRST..FIRST+COUNT-1. The same seed always "
        "gives the same graph. Training uses seeds from 1,000,000 and validation from 500,000, so test seeds below "
        "500,000 never meet a training graph. Distributions: rb-small, rb-large, er-700-800, ba-small, ba-large.",
    )
    p.add_argument("dist", help="distribution name")
    p.add_argument("--count", "-n", type=int, default=100, help="number of graphs (default 100)")
    p.add_argument("--first-seed", type=int, default=0, help="seed of the first graph (default 0)")
    p.add_argument("--out", "-o", required=True, help="output folder (created if missing)")
    p.add_argument("--overwrite", action="store_true", help="replace files that already exist")


def run(args: argparse.Namespace) -> int:
    from cosolve.generators.distributions import VALIDATION_SEED, check_distribution, sample_graph
    from cosolve.io.graphfiles import write_dimacs

    check_distribution(args.dist)
    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    if args.first_seed < 0:
        raise UsageError(f"--first-seed must be non-negative, got {args.first_seed}")
    seeds = range(args.first_seed, args.first_seed + args.count)
    if seeds[-1] >= VALIDATION_SEED:
        print(f"note: seeds from {VALIDATION_SEED} are used for validation and training; test graphs should use lower seeds")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is not a folder")
    paths = [out / f"{args.dist}-{seed}.col" for seed in seeds]
    existing = [p for p in paths if p.exists()]
    if existing and not args.overwrite:
        raise UsageError(f"{existing[0]} exists ({len(existing)} of the {len(paths)} files do); pass --overwrite to replace them")
    out.mkdir(parents=True, exist_ok=True)
    for seed, path in zip(seeds, paths, strict=True):
        write_dimacs(sample_graph(args.dist, seed), path)
    print(f"wrote {len(paths)} {args.dist} graphs to {out}")
    return 0
