"""``cosolve train cam --problem mis --dist rb-small --time 1800 --out DIR``: train a CAM policy;
``cosolve train glns --time 3600 --out DIR``: train GLNS's set cover policy."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from cosolve.core.options import parse_assignments
from cosolve.errors import UsageError

TRAINABLE = ("cam", "glns")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a learned method (cam on a graph distribution, glns on random set cover)",
        description="Train METHOD without labels on fresh instances for --time seconds (cam: graphs of --dist; glns: "
        "Balas-Ho style random set cover); validate every validate_every seconds on held-out instances and keep the best "
        "checkpoint in OUT/model.pt with a model card OUT/README.md. cam also runs under torchrun for several processes "
        "(DistributedDataParallel, gloo on CPU).",
    )
    p.add_argument("method", help=f"method to train: {', '.join(TRAINABLE)}")
    p.add_argument("--problem", "-p", help="cam: mis, maxcut, maxclique or mds (glns: setcover, the default)")
    p.add_argument("--dist", "-d", help="cam: graph distribution: rb-small, rb-large, er-700-800, ba-small, ba-large")
    p.add_argument("--time", "-t", type=float, required=True, help="training budget in seconds")
    p.add_argument("--out", "-o", required=True, help="output folder for model.pt and README.md")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per process (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="hyperparameter, e.g. hidden=64 (repeatable)")
    p.add_argument("--overwrite", action="store_true", help="replace a checkpoint (model.pt, README.md) already in OUT")
    p.add_argument("--no-progress", action="store_true", help="log lines instead of a live progress bar")


def _config(args: argparse.Namespace):  # -> CAMConfig | GLNSConfig
    if args.method not in TRAINABLE:
        raise UsageError(f"cannot train method {args.method!r}; trainable: {', '.join(TRAINABLE)}")
    if not args.time > 0:
        raise UsageError(f"--time must be a positive number of seconds, got {args.time:g}")
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    if args.method == "glns":
        from cosolve.methods.glns.train import GLNSConfig

        if args.problem not in (None, "setcover"):
            raise UsageError(f"glns trains on set cover, not {args.problem!r}")
        if args.dist is not None:
            raise UsageError("glns trains on its own random set cover distribution; drop --dist")
        return GLNSConfig(**_settings(args, GLNSConfig, ()))

    from cosolve.diffusion.cam import CAMConfig
    from cosolve.generators.distributions import check_distribution
    from cosolve.problems.graphs import GRAPH_PROBLEMS

    if args.problem is None or args.dist is None:
        raise UsageError("cam needs --problem and --dist")
    if args.problem not in GRAPH_PROBLEMS:
        raise UsageError(f"unknown graph problem {args.problem!r}; valid: {', '.join(GRAPH_PROBLEMS)}")
    check_distribution(args.dist)
    return CAMConfig(problem=args.problem, distribution=args.dist, **_settings(args, CAMConfig, ("problem", "distribution")))


def _settings(args: argparse.Namespace, config: type, reserved: tuple[str, ...]) -> dict:
    """The ``--set`` hyperparameters, typed by the fields of the dataclass ``config``."""
    from dataclasses import fields

    types = {f.name: type(f.default) for f in fields(config)}
    settings = {}
    for key, value in parse_assignments(args.set).items():
        if key in reserved or key not in types:
            valid = ", ".join(k for k in types if k not in reserved)
            raise UsageError(f"--set {key}: unknown hyperparameter; valid: {valid}")
        try:
            settings[key] = types[key](value)
        except ValueError:
            raise UsageError(f"--set {key}={value}: expected {types[key].__name__}") from None
    return settings


def run(args: argparse.Namespace) -> int:
    config = _config(args)
    out = Path(args.out)
    if (out / "model.pt").exists() and not args.overwrite:
        raise UsageError(f"--out {out}: already holds a checkpoint (model.pt); pass --overwrite to replace it")
    if (out / "README.md").exists() and not args.overwrite:
        raise UsageError(f"--out {out}: holds a README.md the model card would replace; pass --overwrite to replace it")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is not a folder")

    import torch
    import torch.distributed as dist

    if args.method == "glns":
        from cosolve.methods.glns.train import train
    else:
        from cosolve.diffusion.cam import train

    torch.set_num_threads(args.threads)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and args.method != "cam":
        raise UsageError(f"{args.method} trains in one process; run it without torchrun")
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    command = "cosolve " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["train"] else ""
    if world > 1:
        command = f"torchrun --nproc-per-node {world} -m cosolve.cli.main " + command.removeprefix("cosolve ")
    try:
        with _Display(args.time, enabled=rank == 0, live=not args.no_progress and sys.stderr.isatty()) as display:
            _, progress = train(config, time_limit=args.time, out=out if rank == 0 else None, seed=args.seed,
                                on_progress=display.update, command=command)  # fmt: skip
    finally:
        if world > 1 and dist.is_initialized():
            dist.destroy_process_group()
    if rank == 0 and progress.best is not None:
        print(
            f"trained {progress.iteration} iterations in {progress.elapsed:.0f} s; best validation objective "
            f"{progress.best.objective:.4f} (energy {progress.best.energy:.4f}); wrote {out / 'model.pt'} and {out / 'README.md'}"
        )
    return 0


class _Display:
    """A rich progress bar over the training budget (or a log line per validation)."""

    def __init__(self, budget: float, *, enabled: bool, live: bool) -> None:
        self.budget, self.enabled, self.live = budget, enabled, live
        self.bar = None
        self.validations = 0

    def __enter__(self) -> _Display:
        if self.enabled and self.live:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("training"), BarColumn(), TimeElapsedColumn(), TextColumn("{task.description}"))
            self.bar.start()
            self.task = self.bar.add_task("", total=self.budget)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, p) -> None:  # p: cosolve.diffusion.cam.Progress
        if not self.enabled:
            return
        best = f"best val {p.best.objective:.3f}" if p.best else "no validation yet"
        text = f"it {p.iteration}  tau {p.tau:.3f}  loss {p.loss:+.4f}  train energy {p.train_energy:.2f}  {best}"
        if self.bar is not None:
            self.bar.update(self.task, completed=min(p.elapsed, self.budget), description=text)
        elif len(p.history) > self.validations:
            self.validations = len(p.history)
            v = p.history[-1]
            line = (
                f"[{v['seconds']:7.0f} s] it {v['iteration']}  val objective {v['objective']:.4f}  val energy {v['energy']:.3f}"
            )
            print(f"{line}  tau {p.tau:.3f}  ({best})", flush=True)
