"""``cosolve train METHOD (--data DIR | --dist NAME) --time SECONDS --out DIR``: train a learned
method through ``Solver.fit`` and write its checkpoint (``model.pt``) and model card."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from cosolve.core.options import parse_assignments
from cosolve.errors import UsageError

#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "train a learned method on instance files or a distribution"


def _trainable() -> dict[str, type]:
    from cosolve.method_catalog import methods

    return {name: cls for name, cls in methods().items() if cls.trainable()}


def _epilog() -> str:
    from cosolve.cli.methods import option_lines

    lines = ["training options (--set KEY=VALUE), by method:"]
    for name, cls in _trainable().items():
        lines.append(f"  {name} ({', '.join(sorted(cls.problems))}):")
        lines += option_lines(cls.fit_options, "    ")
    return "\n".join(lines)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help=SUMMARY,
        description="Train METHOD without labels for --time seconds on the instance files of --data (a share held "
        "out for validation) or on fresh instances of the distribution --dist (see: cosolve generate --help); "
        "validate every validate_every seconds and keep the best model in OUT/model.pt with its model card "
        "OUT/README.md, and the resumable training state in OUT/training.pt (--resume continues it). Runs under "
        "torchrun for several processes (DistributedDataParallel, gloo on CPU).",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("method", help=f"method to train: {', '.join(_trainable())}")
    p.add_argument("--problem", "-p", help="problem kind (graph files and graph distributions need it)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--data", help="folder of instance files to train on")
    source.add_argument("--dist", "-d", help="distribution to draw fresh training instances from")
    p.add_argument("--time", "-t", type=float, required=True, help="training budget in seconds")
    p.add_argument("--out", "-o", required=True, help="output folder for model.pt, README.md and training.pt")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=1, help="threads per process (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="training option (repeatable; see below)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in OUT (same settings and data)")
    p.add_argument("--overwrite", action="store_true", help="replace a checkpoint (model.pt, README.md) already in OUT")
    p.add_argument("--no-progress", action="store_true", help="log lines instead of a live progress bar")


def _refuse_solve_options(options: dict[str, str], method: type) -> None:
    """A solve option that training does not read would be ignored, and the checkpoint keeps no
    solve options: refuse it (the training options are in ``--help``)."""
    ignored = sorted(k for k in options if k in method.options and k not in method.fit_options and k not in method.fit_reads)
    if ignored:
        raise UsageError(
            f"{', '.join(ignored)}: solve option(s) of {method.name}, which training does not use; give them when "
            "solving (cosolve solve --set), and see cosolve train --help for the training options"
        )


def _data(args: argparse.Namespace, method: type):  # -> Distribution | Path
    from cosolve.generators.distributions import get_distribution

    if args.data is not None:
        folder = Path(args.data)
        if not folder.is_dir():
            raise UsageError(f"--data {folder}: not a folder of instance files")
        return folder
    name = args.dist or getattr(method, "default_distribution", None)
    if name is None:
        raise UsageError(f"{args.method} needs --data FOLDER or --dist NAME (see: cosolve generate --help)")
    return get_distribution(name)


def run(args: argparse.Namespace) -> int:
    from cosolve.solver import Solver, check_fit_out
    from cosolve.training.progress import ProgressDisplay

    trainable = _trainable()
    if args.method not in trainable:
        raise UsageError(f"cannot train method {args.method!r}; trainable: {', '.join(trainable)}")
    if not args.time > 0:
        raise UsageError(f"--time must be a positive number of seconds, got {args.time:g}")
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    out = Path(args.out)
    check_fit_out(out, resume=args.resume, overwrite=args.overwrite)
    options = parse_assignments(args.set)
    _refuse_solve_options(options, trainable[args.method])
    kinds = trainable[args.method].problems
    problem = args.problem or (next(iter(kinds)) if len(kinds) == 1 else None)  # glns: set cover, nothing to ask
    solver = Solver(args.method, problem=problem, train_time=args.time, seed=args.seed, threads=args.threads, **options)
    solver.validate()
    data = _data(args, trainable[args.method])

    import torch.distributed as dist

    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and not dist.is_initialized():
        import torch

        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    command = "cosolve " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["train"] else ""
    if world > 1:
        command = f"torchrun --nproc-per-node {world} -m cosolve.cli.main " + command.removeprefix("cosolve ")
    display = ProgressDisplay(args.time, live=not args.no_progress, summary=False) if rank == 0 else False
    written = (out / "model.pt").stat().st_mtime_ns if (out / "model.pt").is_file() else None
    try:
        solver.fit(data, out=out, resume=args.resume, overwrite=args.overwrite, progress=display, command=command)
    finally:
        if world > 1 and dist.is_initialized():
            dist.destroy_process_group()
    if rank == 0:
        progress = solver.method_.training_
        print(progress.summary())
        if progress.note:
            print(f"note: {progress.note}")
        if (out / "model.pt").is_file() and (out / "model.pt").stat().st_mtime_ns != written:
            print(f"wrote {out / 'model.pt'} and {out / 'README.md'}")
        else:
            print(f"kept {out / 'model.pt'} and {out / 'README.md'}: no validation of this run beat the saved best model")
    return 0
