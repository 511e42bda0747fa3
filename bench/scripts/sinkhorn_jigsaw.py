"""Jigsaw benchmark of the Gumbel–Sinkhorn temperature variants (issue 6).

Images that scikit-image ships (``pip install 'cosolve[images]'``), cut into k x k pieces and
shuffled (the shuffle seed is the run's seed), reassembled by ``gumbel-sinkhorn`` per instance under
the same wall-clock budget for every variant. Per run: the fraction of pieces in place, whether the
reconstruction is perfect, and the discontinuity against the original's. Rows are appended to
``OUT/results.csv`` (reruns skip rows already there); ``OUT/report.md`` gives means and the spread
over seeds per k and variant.

    python -m bench.scripts.sinkhorn_jigsaw --k 2 3 4 5 --time 5 --out bench/results/sinkhorn-jigsaw
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
import time
from pathlib import Path

import numpy as np

from bench.scripts.csv_results import git_commit, group_rows, read_rows, run_missing, write_report

IMAGES = ["astronaut", "camera", "cat", "coffee", "rocket", "immunohistochemistry", "hubble_deep_field", "brick", "coins", "moon"]
FIELDS = [
    "image",
    "k",
    "variant",
    "seed",
    "time_limit",
    "in_place",
    "perfect",
    "discontinuity",
    "truth_discontinuity",
    "wall",
    "commit",
]


def load(name: str) -> np.ndarray:
    try:
        import skimage.data
    except ImportError:
        sys.exit("the jigsaw benchmark needs scikit-image: pip install 'cosolve[images]'")
    return getattr(skimage.data, name)()


def run_one(image: str, k: int, variant: str, seed: int, time_limit: float) -> dict:
    from cosolve import Solver
    from cosolve.problems.jigsaw import cut

    problem = cut(load(image), k, seed=seed, name=f"{image}-{k}x{k}-s{seed}")
    solver = Solver("gumbel-sinkhorn", time_limit=time_limit, seed=seed, temperature=variant)
    started = time.perf_counter()
    result = solver.solve(problem)
    wall = time.perf_counter() - started
    perm = result.solution
    return {
        "image": image, "k": k, "variant": variant, "seed": seed, "time_limit": time_limit,
        "in_place": f"{problem.pieces_in_place(perm) / problem.n:.4f}", "perfect": int(np.array_equal(perm, problem.truth)),
        "discontinuity": f"{result.objective:.6f}", "truth_discontinuity": f"{problem.discontinuity(problem.truth):.6f}",
        "wall": f"{wall:.2f}", "commit": git_commit(),
    }  # fmt: skip


def report(path: Path, out: Path) -> str:
    groups = group_rows(path, lambda r: (int(r["k"]), float(r["time_limit"]), r["variant"]))
    lines = [
        "# Jigsaw: Gumbel–Sinkhorn temperature variants",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}. Per seed, the mean over the images of the "
        "fraction of pieces in place; the table gives its mean over seeds, the standard deviation and range across "
        "seeds, and the fraction of perfect reconstructions. Reproduce with `python -m bench.scripts.sinkhorn_jigsaw`.",
        "",
        "| k | budget s | temperature | seeds | images | pieces in place | sd over seeds | min..max | perfect |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (k, budget, variant), rs in groups.items():
        seeds = sorted({int(r["seed"]) for r in rs})
        per_seed = np.array([np.mean([float(r["in_place"]) for r in rs if int(r["seed"]) == s]) for s in seeds])
        perfect = np.mean([int(r["perfect"]) for r in rs])
        images = len({r["image"] for r in rs})
        lines.append(
            f"| {k} | {budget:g} | {variant} | {len(seeds)} | {images} | {per_seed.mean():.3f} | {per_seed.std():.3f} | "
            f"{per_seed.min():.3f}..{per_seed.max():.3f} | {perfect:.3f} |"
        )
    return write_report(out, lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", nargs="+", default=IMAGES)
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--variants", nargs="+", default=["adaptive", "fixed", "annealed"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--time", type=float, default=5.0, help="seconds per puzzle")
    parser.add_argument("--out", type=Path, default=Path("bench/results/sinkhorn-jigsaw"))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        done = {(r["image"], int(r["k"]), r["variant"], int(r["seed"]), float(r["time_limit"])) for r in read_rows(path)}
        grid = itertools.product(args.images, args.k, args.variants, args.seeds)
        todo = [key for key in grid if (*key, args.time) not in done]
        run_missing(
            path, FIELDS, todo, lambda image, k, variant, seed: run_one(image, k, variant, seed, args.time),
            lambda key, row: f"{key[0]} {key[1]}x{key[1]} {key[2]} seed {key[3]}: in place {row['in_place']}",
        )  # fmt: skip
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
