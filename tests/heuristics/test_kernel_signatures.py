"""The graph kernels' helpers compile once per solve: a literal argument (``0``, ``-1``) or an int32
node index where int64 ones also arrive makes numba compile a helper a second time, which a first
solve after installing (an empty numba cache) pays for in its set-up."""

import json
import os
import subprocess
import sys
from pathlib import Path

GRAPH = Path(__file__).resolve().parents[2] / "instances" / "graphs" / "ba100_m3_s3.col"

_SOLVE_AND_COUNT = """
import json
from cosolve import Solver
from cosolve.heuristics import graphs, heap, vertex_cover_search
for problem in ("mis", "maxcut"):
    Solver("polish", time_limit=0.5, seed=0).solve({graph!r}, problem=problem)
helpers = [graphs._take, heap.heap_fix, heap.heap_push, vertex_cover_search._highest_in_cover]
print(json.dumps({{f.__name__: len(f.signatures) for f in helpers}}))
"""


def test_each_helper_of_the_mis_and_maxcut_kernels_compiles_one_signature(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: every kernel compiles in this process
    out = subprocess.run(
        [sys.executable, "-c", _SOLVE_AND_COUNT.format(graph=str(GRAPH))],
        capture_output=True, text=True, check=True, timeout=300, env=env,
    )  # fmt: skip
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts == {"_take": 1, "heap_fix": 1, "heap_push": 1, "_highest_in_cover": 1}
