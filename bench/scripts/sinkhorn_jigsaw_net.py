"""Jigsaw benchmark of the *trained* jigsaw network (issue 6): temperature variants compared like with like.

Data: the 100 aligned face images of scikit-image's LFW subset (``skimage.data.lfw_subset()``,
25 x 25 grey; ``pip install 'cosolve[images]'``), cropped to 24 x 24 for k = 2, 3, 4 and kept at
25 x 25 for k = 5. Faces 0-79 train, faces 80-99 are held out; every puzzle is shuffled with its own
fixed seed (training puzzles and test puzzles never share an image). Per k, variant and seed, a
``PermutationLearner(task="jigsaw")`` is trained without labels (the expected discontinuity of the
soft arrangement) for ``--steps`` Adam steps, and scored on the 20 held-out puzzles: the network
alone (Hungarian decoding of its logits) and the network followed by the swap search that
``cosolve solve`` runs after it. The seed sets the network's initialisation and the Gumbel noise.

Rows are appended to ``OUT/results.csv`` (reruns skip rows already there); ``OUT/report.md`` gives,
per k and variant, the mean over seeds of the fraction of pieces in place, its spread over seeds,
and the fraction of perfect reconstructions.

    python -m bench.scripts.sinkhorn_jigsaw_net --k 2 3 4 5 --out bench/results/sinkhorn-jigsaw-net
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
    "k", "variant", "seed", "steps", "train_puzzles", "test_puzzles", "train_seconds",
    "net_in_place", "net_perfect", "polished_in_place", "polished_perfect", "untrained_in_place", "commit",
]  # fmt: skip
TRAIN, TEST = range(0, 80), range(80, 100)


def faces() -> np.ndarray:
    try:
        import skimage.data
    except ImportError:
        sys.exit("the jigsaw network benchmark needs scikit-image: pip install 'cosolve[images]'")
    return skimage.data.lfw_subset()[:100]  # the first 100 are the faces, the rest non-faces


def puzzles(images: np.ndarray, k: int, indices: range, offset: int) -> list:
    from cosolve.problems.jigsaw import cut

    size = 25 if k == 5 else 24
    return [cut(np.clip(images[i][:size, :size], 0.0, 1.0), k, seed=offset + i, name=f"lfw{i}-{k}x{k}") for i in indices]


def run_one(images: np.ndarray, k: int, variant: str, seed: int, steps: int, objective: str = "unsupervised") -> dict:
    import torch

    from cosolve.methods.sinkhorn import permutation_metrics as metrics
    from cosolve.methods.sinkhorn.jigsaw import swap_search
    from cosolve.methods.sinkhorn.learner import PermutationLearner, untrained_score

    torch.set_num_threads(1)
    train, test = puzzles(images, k, TRAIN, 0), puzzles(images, k, TEST, 100_000)
    learner = PermutationLearner(task="jigsaw", temperature=variant, steps=steps, seed=seed, objective=objective).fit(train)
    net = learner.score(test)
    polished = np.stack([swap_search(p, q) for p, q in zip(test, learner.predict(test), strict=True)])
    truth = np.stack([p.truth for p in test])
    placed, perfect = metrics.in_place(polished, truth), metrics.perfect(polished, truth)
    return {
        "k": k, "variant": variant, "seed": seed, "steps": steps, "train_puzzles": len(train), "test_puzzles": len(test),
        "train_seconds": f"{learner.train_time_:.1f}", "net_in_place": f"{net['pieces_in_place']:.4f}",
        "net_perfect": f"{net['perfect']:.4f}", "polished_in_place": f"{placed:.4f}", "polished_perfect": f"{perfect:.4f}",
        "untrained_in_place": f"{untrained_score(test, seed=seed):.4f}", "commit": git_commit(),
    }  # fmt: skip


def report(path: Path, out: Path, objective: str = "unsupervised") -> str:
    groups = group_rows(path, lambda r: (int(r["k"]), int(r["steps"]), r["variant"]))
    lines = [
        "# Jigsaw: the trained network, Gumbel–Sinkhorn temperature variants"
        + ("" if objective == "unsupervised" else f" ({objective} loss: the true positions as labels)"),
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, 1 thread. LFW faces (scikit-image), "
        "80 training and 20 held-out puzzles per k; per seed the fraction of the held-out pieces in place; mean over "
        "seeds (sd over seeds, min..max) and the fraction of perfect reconstructions, for the network alone "
        "(Hungarian decoding) and followed by the swap search. Reproduce with `python -m bench.scripts.sinkhorn_jigsaw_net`.",
        "",
        "| k | steps | temperature | seeds | network: in place | sd | min..max | perfect | + swap search: in place | "
        "perfect | untrained | train s/seed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (k, steps, variant), rs in groups.items():
        net = np.array([float(r["net_in_place"]) for r in rs])
        cols = {f: np.mean([float(r[f]) for r in rs]) for f in ("net_perfect", "polished_in_place", "polished_perfect")}
        untrained = np.mean([float(r["untrained_in_place"]) for r in rs])
        seconds = np.mean([float(r["train_seconds"]) for r in rs])
        lines.append(
            f"| {k} | {steps} | {variant} | {len(rs)} | {net.mean():.3f} | {net.std():.3f} | {net.min():.3f}..{net.max():.3f} | "
            f"{cols['net_perfect']:.3f} | {cols['polished_in_place']:.3f} | {cols['polished_perfect']:.3f} | "
            f"{untrained:.3f} | {seconds:.0f} |"
        )
    return write_report(out, lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--variants", nargs="+", default=["adaptive", "fixed", "annealed"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=1000, help="Adam steps of each training run")
    parser.add_argument("--out", type=Path, default=Path("bench/results/sinkhorn-jigsaw-net"))
    parser.add_argument(
        "--objective", default="unsupervised", choices=["unsupervised", "supervised"],
        help="the training loss (supervised: the labelled reference; use its own --out folder)",
    )  # fmt: skip
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        images = faces()
        done = {(int(r["k"]), r["variant"], int(r["seed"]), int(r["steps"])) for r in read_rows(path)}
        todo = [key for key in itertools.product(args.k, args.variants, args.seeds) if (*key, args.steps) not in done]
        run_missing(
            path, FIELDS, todo, lambda k, variant, seed: run_one(images, k, variant, seed, args.steps, args.objective),
            lambda key, row: f"{key[0]}x{key[0]} {key[1]} seed {key[2]}: network {row['net_in_place']}, "
            f"+ swaps {row['polished_in_place']}",
        )  # fmt: skip
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md", args.objective))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
