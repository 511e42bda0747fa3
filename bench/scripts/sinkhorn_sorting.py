"""Sorting benchmark of the Gumbel–Sinkhorn temperature variants (issue 6).

For every sequence length N, value range, temperature variant and seed: train a
``PermutationLearner`` on unlabelled random sequences (same steps, batch and data for every
variant), then score it on held-out sequences (Kendall tau, proportion of wrong positions,
proportion of sequences with any error). Rows are appended to ``OUT/results.csv`` as runs finish
(a rerun skips rows already there); ``OUT/report.md`` gives the mean and the spread (standard
deviation, min..max) over seeds per N, range and variant.

    python -m bench.scripts.sinkhorn_sorting --n 5 10 50 100 --out bench/results/sinkhorn-sorting
    python -m bench.scripts.sinkhorn_sorting --report-only --out bench/results/sinkhorn-sorting
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
from pathlib import Path

import numpy as np

from bench.scripts.csv_results import git_commit, group_rows, read_rows, run_missing, write_report

FIELDS = [
    "n", "low", "high", "variant", "objective", "seed", "steps", "batch_size", "lr", "train_count", "test_count",
    "kendall_tau", "wrong_positions", "any_error", "train_time", "commit",
]  # fmt: skip


def batch_size_for(n: int) -> int:
    """Sequences per step: 32 up to N = 100, fewer above so a step's cost stays about the same."""
    return int(max(8, min(32, 3200 // n)))


def done_keys(path: Path) -> set[tuple]:
    return {(int(r["n"]), float(r["low"]), r["variant"], r["objective"], int(r["seed"])) for r in read_rows(path)}


def run_one(n: int, low: float, variant: str, objective: str, seed: int, args: argparse.Namespace) -> dict:
    import torch

    from cosolve.methods.sinkhorn.learner import PermutationLearner
    from cosolve.methods.sinkhorn.sorting import random_sequences

    torch.set_num_threads(args.threads)
    train = random_sequences(n, args.train_count, low=low, high=low + 1, seed=1000 + seed)
    test = random_sequences(n, args.test_count, low=low, high=low + 1, seed=2000 + seed)
    batch = args.batch_size or batch_size_for(n)
    learner = PermutationLearner(
        temperature=variant, objective=objective, steps=args.steps, batch_size=batch, lr=args.lr, seed=seed,
        log_every=max(1, args.steps // 10),
    ).fit(train)  # fmt: skip
    score = learner.score(test)
    return {
        "n": n, "low": low, "high": low + 1, "variant": variant, "objective": objective, "seed": seed,
        "steps": learner.steps_done_, "batch_size": batch, "lr": args.lr, "train_count": args.train_count,
        "test_count": args.test_count, "kendall_tau": f"{score['kendall_tau']:.6f}",
        "wrong_positions": f"{score['wrong_positions']:.6f}", "any_error": f"{score['any_error']:.6f}",
        "train_time": f"{learner.train_time_:.2f}", "commit": git_commit(),
    }  # fmt: skip


def report(path: Path, out: Path) -> str:
    groups = group_rows(path, lambda r: (int(r["n"]), float(r["low"]), r["objective"], r["variant"]))
    lines = [
        "# Sorting: Gumbel–Sinkhorn temperature variants",
        "",
        f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}. "
        "Mean over seeds, with the standard deviation and the range across seeds. "
        "Reproduce with `python -m bench.scripts.sinkhorn_sorting` (options in its header).",
        "",
        "| N | values | loss | temperature | seeds | Kendall tau | sd | min..max | wrong positions | any error | train s/seed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (n, low, objective, variant), rs in groups.items():
        tau = np.array([float(r["kendall_tau"]) for r in rs])
        wrong = np.mean([float(r["wrong_positions"]) for r in rs])
        anyerr = np.mean([float(r["any_error"]) for r in rs])
        secs = np.mean([float(r["train_time"]) for r in rs])
        lines.append(
            f"| {n} | U({low:g},{low + 1:g}) | {objective} | {variant} | {len(rs)} | {tau.mean():.4f} | {tau.std():.4f} | "
            f"{tau.min():.4f}..{tau.max():.4f} | {wrong:.4f} | {anyerr:.3f} | {secs:.0f} |"
        )
    return write_report(out, lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[5, 10, 50, 100, 200, 300])
    parser.add_argument("--low", type=float, nargs="+", default=[0.0, 10.0], help="value ranges U(low, low + 1)")
    parser.add_argument("--variants", nargs="+", default=["adaptive", "fixed", "annealed"])
    parser.add_argument("--objectives", nargs="+", default=["unsupervised"], choices=["unsupervised", "supervised"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=0, help="0 = 32 up to N = 100, 3200 / N above (at least 8)")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--train-count", type=int, default=4096)
    parser.add_argument("--test-count", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("bench/results/sinkhorn-sorting"))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        done = done_keys(path)
        grid = itertools.product(args.n, args.low, args.variants, args.objectives, args.seeds)
        run_missing(
            path, FIELDS, [key for key in grid if key not in done],
            lambda n, low, variant, objective, seed: run_one(n, low, variant, objective, seed, args),
            lambda key, row: f"N={key[0]} U({key[1]:g},{key[1] + 1:g}) {key[3]} {key[2]} seed {key[4]}: tau {row['kendall_tau']}",
        )  # fmt: skip
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
