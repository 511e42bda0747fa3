"""What a first solve after installing (an empty numba cache) compiles in its set-up: the graph
kernels' helpers once each (a literal argument, ``0`` or ``-1``, or an int32 node index where int64
ones also arrive makes numba compile a helper a second time), and no kernel assigns an array to a
slice (numba then compiles a shape-error message formatter, about 1.5 s)."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRAPH = ROOT / "instances" / "graphs" / "ba100_m3_s3.col"

_SOLVE_AND_COUNT = """
import json
from cosolve import Solver
from cosolve.heuristics import heap
from cosolve.heuristics.graphs import greedy_constructions, numvc
for problem in ("mis", "maxcut"):
    Solver("polish", time_limit=0.5, seed=0).solve({graph!r}, problem=problem)
helpers = [greedy_constructions._take, heap.heap_fix, heap.heap_push, numvc._highest_in_cover]
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


def _slice_assignments_from_arrays(source: str) -> list[str]:
    """``a[i:j] = b`` statements (b not a constant) inside the ``@njit`` functions of ``source``."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef) or not any("njit" in ast.unparse(d) for d in fn.decorator_list):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign) or isinstance(node.value, ast.Constant):
                continue
            if isinstance(node.value, ast.UnaryOp) and isinstance(node.value.operand, ast.Constant):
                continue
            for target in node.targets:
                if isinstance(target, ast.Subscript) and any(isinstance(s, ast.Slice) for s in ast.walk(target.slice)):
                    found.append(f"{fn.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_a_slice_assigned_from_an_array_but_not_from_a_constant():
    source = "@njit(cache=True)\ndef f(a, b):\n    a[:] = 0\n    a[:] = -1\n    a[1:3] = b[:2]\n"
    assert _slice_assignments_from_arrays(source) == ["f:5: a[1:3] = b[:2]"]


def test_no_kernel_assigns_an_array_to_a_slice():
    found = {
        str(path.relative_to(ROOT)): hits
        for path in sorted((ROOT / "cosolve").rglob("*.py"))
        if (hits := _slice_assignments_from_arrays(path.read_text()))
    }
    assert found == {}, "use cosolve.heuristics.kernel_arrays.copy_into or a loop"


def test_every_kernel_module_takes_njit_from_the_module_that_counts_compile_seconds():
    """A module importing numba itself would compile without being counted in ``compile_time``."""
    direct = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "cosolve").rglob("*.py"))
        if path.name != "numba_compile.py"
        and any(
            (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba")
            or (isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "numba" for alias in node.names))
            for node in ast.walk(ast.parse(path.read_text()))
        )
    ]
    assert direct == []


def test_a_first_compile_callback_runs_once_and_a_withdrawn_one_never():
    from cosolve.core.numba_compile import njit, on_first_compile

    calls = []
    withdraw = on_first_compile(lambda: calls.append("withdrawn"))
    withdraw()
    on_first_compile(lambda: calls.append("kept"))

    def add_one(x):
        return x + 1

    def add_two(x):
        return x + 2

    assert njit(add_one)(1) == 2 and njit(add_two)(1) == 3  # two compiles, not cached
    assert calls == ["kept"]
