"""How fast and lean is reading a large OR-Library set cover file?

    python -m bench.experiments.harness.setcover_load [--rows 10000] [--cols 1000000] [--nnz 10000000] [--seed 0] [--keep DIR]

Generates a random instance (Balas–Ho style), writes it in orlib format to a temporary folder,
then reads it with ``cosolve.io.read`` in a fresh Python process and prints the read's wall time
and the child's peak resident memory (``ru_maxrss``), next to the memory of the same child
after its imports only (the baseline the read adds to).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # the repository root, on the children's PYTHONPATH

READER = """
import json, resource, sys, time
import cosolve.io, cosolve.io.orlib, cosolve.problems
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
p = cosolve.io.read(sys.argv[1])
elapsed = time.perf_counter() - t
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps({"read_s": elapsed, "import_rss_kib": base, "vmhwm_kib": hwm, "sizes": p.sizes()}))
"""


def generate(rows: int, cols: int, nnz: int, seed: int, path: Path) -> None:
    """Generate the instance and write it (run in its own process, see main)."""
    from cosolve.generators.setcover import random_setcover
    from cosolve.io.orlib import write_orlib

    t = time.perf_counter()
    problem = random_setcover(rows, cols, nnz=nnz, seed=seed)
    generated = time.perf_counter() - t
    t = time.perf_counter()
    write_orlib(problem, path)
    written = time.perf_counter() - t
    print(
        f"generated {rows} x {cols}, {nnz} nonzeros in {generated:.2f} s; "
        f"wrote {path.stat().st_size / 1e6:.1f} MB (orlib) in {written:.2f} s",
        flush=True,
    )


def measure_read(path: Path, env: dict[str, str]) -> tuple[dict, float, int]:
    """Read ``path`` in a fresh process: (its JSON report, its wall time, its ru_maxrss in KiB).

    The parent imports no numpy, so the child's ru_maxrss (which Linux carries over from the
    parent at fork/exec) is the child's own peak; ``os.wait4`` gives that child's rusage alone.
    """
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(err.decode())
    return json.loads(out), wall, usage.ru_maxrss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--cols", type=int, default=1_000_000)
    ap.add_argument("--nnz", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", help="write the instance into this folder and keep it")
    ap.add_argument("--generate-only", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.generate_only:
        generate(args.rows, args.cols, args.nnz, args.seed, Path(args.generate_only))
        return 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rand{args.rows}x{args.cols}.txt"
        gen = [
            sys.executable,
            "-m",
            "bench.experiments.harness.setcover_load",
            "--rows",
            str(args.rows),
            "--cols",
            str(args.cols),
            "--nnz",
            str(args.nnz),
            "--seed",
            str(args.seed),
            "--generate-only",
            str(path),
        ]
        subprocess.run(gen, check=True, env=env)
        child, wall, maxrss = measure_read(path, env)
    print(f"read: {child['read_s']:.2f} s (child process {wall:.2f} s with interpreter start and imports)")
    print(
        f"peak RSS of the reading process: {maxrss / 1024:.0f} MiB ru_maxrss, {child['vmhwm_kib'] / 1024:.0f} MiB VmHWM "
        f"(after imports: {child['import_rss_kib'] / 1024:.0f} MiB)"
    )
    print(f"read back: {child['sizes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
