"""``cosolve generate DIST --count N --out DIR``: write instances of a named distribution as files."""

from __future__ import annotations

import argparse
from pathlib import Path

from cosolve.errors import UsageError

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "write random instances of a named distribution (graphs as DIMACS, set covers as OR-Library, TSPs as TSPLIB)"


def add_parser(sub: argparse._SubParsersAction) -> None:
    from cosolve.generators.distributions import DISTRIBUTIONS

    p = sub.add_parser(
        "generate",
        help=SUMMARY,
        description="Write COUNT instances of DIST to OUT/DIST-SEED.EXT, for seeds FIRST..FIRST+COUNT-1, in the native "
        "format of their problem kind (graphs: DIMACS .col; set cover: OR-Library .txt; TSP: TSPLIB .tsp). "
        "The same seed always gives the same instance. Training uses seeds from 1,000,000 and validation from 500,000, "
        "so test seeds below 500,000 never meet a training instance. "
        f"Distributions: {', '.join(DISTRIBUTIONS)} (cosolve.generators.distributions).",
    )
    p.add_argument("dist", help="distribution name")
    p.add_argument("--count", "-n", type=int, default=100, help="number of instances (default 100)")
    p.add_argument("--first-seed", type=int, default=0, help="seed of the first instance (default 0)")
    p.add_argument("--out", "-o", required=True, help="output folder (created if missing)")
    p.add_argument("--overwrite", action="store_true", help="replace files that already exist")


def run(args: argparse.Namespace) -> int:
    from cosolve.generators.distributions import VALIDATION_SEED, get_distribution
    from cosolve.io.formats import ALL_FORMATS
    from cosolve.problems.registry import get_kind

    dist = get_distribution(args.dist)
    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    if args.first_seed < 0:
        raise UsageError(f"--first-seed must be non-negative, got {args.first_seed}")
    seeds = range(args.first_seed, args.first_seed + args.count)
    if seeds[-1] >= VALIDATION_SEED:
        print(f"note: seeds from {VALIDATION_SEED} are used for validation and training; test instances should use lower seeds")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is not a folder")
    kind = dist.kinds[0]  # the file holds the instance whatever kind it is later read as
    fmt = ALL_FORMATS[get_kind(kind).formats[0]]
    paths = [out / f"{args.dist}-{seed}{fmt.suffix}" for seed in seeds]
    existing = [p for p in paths if p.exists()]
    if existing and not args.overwrite:
        raise UsageError(f"{existing[0]} exists ({len(existing)} of the {len(paths)} files do); pass --overwrite to replace them")
    out.mkdir(parents=True, exist_ok=True)
    for seed, path in zip(seeds, paths, strict=True):
        fmt.write(dist.sample(seed, kind), path)
    print(f"wrote {len(paths)} {args.dist} instances ({fmt.name}) to {out}")
    return 0
