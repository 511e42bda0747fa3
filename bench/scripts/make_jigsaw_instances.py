"""Write the bundled jigsaw puzzles of ``instances/jigsaw/`` (needs ``pip install 'cosolve[images]'``).

Each is a scikit-image sample picture, halved in size by 2 x 2 block means (smaller files), cut by
:func:`cosolve.problems.jigsaw.cut` into k x k pieces and shuffled with a fixed seed; the file keeps
the true positions. Running it again rewrites the same files.

    python -m bench.scripts.make_jigsaw_instances --out instances/jigsaw
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

#: (file stem, scikit-image picture, k, shuffle seed)
PUZZLES = [("coffee-4x4", "coffee", 4, 1), ("astronaut-4x4", "astronaut", 4, 2)]


def halve(image: np.ndarray) -> np.ndarray:
    """2 x 2 block means of ``image`` (h, w, c) uint8 -> (h // 2, w // 2, c) uint8."""
    h, w = (image.shape[0] // 2) * 2, (image.shape[1] // 2) * 2
    blocks = image[:h, :w].astype(np.float64).reshape(h // 2, 2, w // 2, 2, -1)
    return np.round(blocks.mean(axis=(1, 3))).astype(np.uint8)


def main(argv: list[str] | None = None) -> int:
    from skimage import data

    from cosolve.io.jigsawfile import write_jigsaw
    from cosolve.problems.jigsaw import cut

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("instances/jigsaw"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, picture, k, seed in PUZZLES:
        problem = cut(halve(getattr(data, picture)()), k, seed=seed, name=stem)
        write_jigsaw(problem, args.out / f"{stem}.npz")
        print(f"{stem}: {problem.pieces.shape[0]} pieces of {problem.pieces.shape[1]} px, "
              f"true discontinuity {problem.discontinuity(problem.truth):.6g}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
