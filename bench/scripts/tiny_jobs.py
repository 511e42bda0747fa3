"""A suite of 1,000 tiny jobs through ``cosolve bench --workers 2``, and a check of what it recorded.

250 generated MIS graphs (12 nodes) x 2 methods (``greedy``, ``greedy`` without improvement) x 2
seeds, 1 s budgets. The suite runs as a user would run it (the CLI in a subprocess); then every
recorded job is checked against the same solve done here in-process (the greedy is
deterministic, so each objective must be equal), the store must hold each job exactly once, and
the report's tables and ``results.csv`` must agree with the store.

    python -m bench.scripts.tiny_jobs --out bench/results/tiny-jobs

Writes ``OUT/run/`` (the bench output) and ``OUT/README.md`` (timings and the checks).
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cosolve

SUITE = """name = "tiny-jobs"
description = "1,000 tiny jobs: the bench machinery at scale, not the methods"
budgets = [1]
seeds = [0, 1]
threads = 1

[[instances]]
name = "er12"
generator = "erdos_renyi"
params = {{ n = 12, p = 0.3 }}
problem = "mis"
count = {count}

[[methods]]
name = "greedy"

[[methods]]
name = "greedy"
label = "greedy-raw"
options = {{ improve = false }}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/tiny-jobs"))
    parser.add_argument("--instances", type=int, default=250, help="generated graphs (4 jobs each)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    run = args.out / "run"
    shutil.rmtree(run, ignore_errors=True)
    suite = args.out / "suite.toml"
    suite.write_text(SUITE.format(count=args.instances))
    expected_jobs = 4 * args.instances

    start = time.perf_counter()
    command = [sys.executable, "-m", "cosolve", "bench", str(suite), "--out", str(run)]
    command += ["--workers", str(args.workers), "--no-progress"]
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return 1

    db = sqlite3.connect(run / "results.sqlite")
    db.row_factory = sqlite3.Row
    jobs = [dict(r) for r in db.execute("SELECT * FROM jobs")]
    integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    db.close()
    checks: list[tuple[str, bool]] = []
    checks.append((f"{expected_jobs} jobs recorded, each key once", len(jobs) == expected_jobs == len({j["key"] for j in jobs})))
    statuses = Counter(j["status"] for j in jobs)
    checks.append(("every job done", statuses == Counter(done=expected_jobs)))
    checks.append(("SQLite integrity_check ok", integrity == "ok"))

    expected: dict[tuple[str, str], float] = {}
    for path in sorted((run / "instances" / "er12").iterdir()):
        problem = cosolve.read(path, problem="mis")
        for label, improve in (("greedy", True), ("greedy-raw", False)):
            result = cosolve.solve(problem, method="greedy", time_limit=1, improve=improve)
            expected[(path.stem, label)] = result.objective
    mismatched = [j for j in jobs if j["objective"] != expected.get((j["instance"], j["label"]))]
    checks.append(("every objective equals the same solve run in-process", not mismatched))

    report = (run / "report.md").read_text()
    table = {}
    for label in ("greedy", "greedy-raw"):
        line = re.search(rf"^\| {re.escape(label)} \| (\d+) \| ([\d.]+)% \|[^|]*\| (\d+) \|", report, re.MULTILINE)
        table[label] = line.groups() if line else None
    best: dict[tuple[str, int], float] = {}
    for j in jobs:
        key = (j["instance"], j["seed"])
        best[key] = max(best.get(key, -1.0), j["objective"])
    wins = Counter(j["label"] for j in jobs if j["objective"] == best[(j["instance"], j["seed"])])
    for label in ("greedy", "greedy-raw"):
        runs = sum(j["label"] == label for j in jobs)
        got = table[label]
        ok = got is not None and int(got[0]) == runs and int(got[2]) == wins[label]
        checks.append((f"report row {label}: runs {runs}, best {wins[label]} (read {got})", ok))
    with open(run / "results.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    checks.append(("results.csv has one row per job", len(csv_rows) == expected_jobs))

    passed = all(ok for _, ok in checks)
    lines = [
        "# 1,000 tiny jobs through `cosolve bench`",
        "",
        f"Command: `python -m bench.scripts.tiny_jobs --out {args.out}` ({args.workers} local workers, "
        f"{expected_jobs} jobs of 1 s budget on 12-node MIS graphs).",
        "",
        f"- wall clock of `cosolve bench`: {wall:.0f} s ({expected_jobs / wall:.2f} jobs/s; each job is a fresh "
        "Python process that imports cosolve, reads its instance, solves and reports)",
        f"- statuses: {dict(statuses)}",
        "",
        "| check | passed |",
        "|---|---|",
        *[f"| {name} | {'yes' if ok else 'NO'} |" for name, ok in checks],
        "",
        f"All checks passed: {'yes' if passed else 'NO'}. The bench output is in `run/` (report.md, results.csv, "
        "results.sqlite; the generated instances are not kept in git).",
    ]
    (args.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
