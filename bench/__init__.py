"""cosolve's benchmarks: suites, the table makers, benchmark scripts, experiments and recorded results.

Run the table makers and scripts as modules from the repository root (``python -m bench.tables.glns
bench/results/glns``); bench/README.md lists them. The folders, for the modules that read or write them:
"""

from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent  # the repository root
SUITES = BENCH / "suites"  # the suites behind the recorded tables
RESULTS = BENCH / "results"  # the recorded (published) results
EXPERIMENTS = BENCH / "experiments"  # probes and runs behind no published table, by topic
