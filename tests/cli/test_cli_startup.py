"""Start-up follows the layers: a command imports what it uses, so ``cosolve --help`` and a
subcommand's help do not load the solvers, numba, torch or scipy."""

import subprocess
import sys

import pytest

PROBE = """
import sys
from cosolve.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = sorted(m for m in ("torch", "numba", "scipy.sparse", "pyscipopt", "ortools", "pandas") if m in sys.modules)
print("loaded:" + ",".join(heavy))
"""


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [(["--help"], set()), (["solve", "--help"], set()), (["bench", "--help"], set())],
)
def test_help_imports_no_solver_and_no_numerical_library_it_does_not_use(argv, allowed):
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True)
    (line,) = [line for line in out.stdout.splitlines() if line.startswith("loaded:")]
    loaded = set(filter(None, line.removeprefix("loaded:").split(",")))
    assert loaded <= allowed
