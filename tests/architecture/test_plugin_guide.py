"""docs/architecture.md's guide, followed: a toy problem kind (with a file format) and a toy method
added as a plugin module through the public registries only, then solved from Python and from the
command line, and checked by brute force."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = '''
"""A toy plugin: choose at most ``capacity`` of n items to maximise their total value."""

import numpy as np

from cosolve.core.method import Method, Outcome
from cosolve.core.problem import Evaluation, Problem, as_binary_vector
from cosolve.core.registry import register
from cosolve.core.result import Sense, Termination
from cosolve.errors import InputError
from cosolve.io.formats import ALL_FORMATS, Format
from cosolve.problems.registry import ProblemKind, register_kind


class PickAtMost(Problem):
    kind = "pick-at-most"
    sense = Sense.MAXIMIZE

    def __init__(self, values, capacity, name=""):
        self.values = np.asarray(values, dtype=float)
        self.capacity = int(capacity)
        self.name = name

    @property
    def n(self):
        return self.values.size

    def evaluate(self, solution):
        x = as_binary_vector(solution, self.n, "pick-at-most")
        value = float(self.values @ x)
        if x.sum() > self.capacity:
            return Evaluation(value, False, f"{int(x.sum())} items picked, at most {self.capacity} allowed")
        return Evaluation(value, True)

    def sizes(self):
        return {"items": self.n, "capacity": self.capacity}


def read_pick(path, problem=None):
    """A ``.pick`` file: the capacity on the first line, then one item value per line."""
    lines = [line for line in open(path).read().split() if line]
    if not lines:
        raise InputError("empty file", where=str(path))
    return PickAtMost([float(v) for v in lines[1:]], int(lines[0]), name=str(path))


ALL_FORMATS.register(Format("pick", "toy: capacity, then one value per line", f"{__name__}:read_pick", extensions=(".pick",)))
register_kind(
    ProblemKind(
        "pick-at-most",
        "pick at most k items",
        formats=("pick",),
        tiny=lambda: PickAtMost([3.0, 1.0, 2.0], 2, name="warm-up"),
        default_method="largest-first",
    )
)


@register
class LargestFirst(Method):
    name = "largest-first"
    problems = frozenset({"pick-at-most"})
    summary = "take the largest positive values, up to the capacity"
    warm_up = True

    def solve(self, problem, ctx):
        x = np.zeros(problem.n, np.int8)
        order = np.argsort(-problem.values, kind="stable")[: problem.capacity]
        x[order[problem.values[order] > 0]] = 1
        ctx.trace.offer(x)
        return Outcome(Termination.COMPLETED)
'''

SOLVE = """
import json
from cosolve import Solver
from cosolve.method_catalog import methods
from cosolve.problems.registry import problem_kinds
from toy_plugin import PickAtMost

assert "largest-first" in methods() and "pick-at-most" in problem_kinds()
result = Solver(time_limit=5).solve(PickAtMost([4.0, -1.0, 7.0, 2.0, 5.0], 3))  # auto: the kind's default method
print(json.dumps({"method": result.method, "objective": result.objective, "solution": result.solution.tolist(),
                  "status": result.status.value, "setup": result.setup_time}))
"""


def _environment(folder: Path) -> dict[str, str]:
    root = Path(__file__).resolve().parents[2]
    path = os.pathsep.join(filter(None, [str(folder), str(root), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "COSOLVE_PLUGINS": "toy_plugin", "PYTHONPATH": path}


def _brute_force(values: list[float], capacity: int) -> float:
    return max(
        sum(values[i] for i in chosen) for k in range(capacity + 1) for chosen in itertools.combinations(range(len(values)), k)
    )


def test_a_plugin_kind_and_method_solve_an_instance_from_python(tmp_path):
    (tmp_path / "toy_plugin.py").write_text(textwrap.dedent(PLUGIN))
    run = subprocess.run([sys.executable, "-c", SOLVE], capture_output=True, text=True, env=_environment(tmp_path), check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["method"] == "largest-first"
    assert result["objective"] == _brute_force([4.0, -1.0, 7.0, 2.0, 5.0], 3) == 16.0
    assert result["solution"] == [1, 0, 1, 0, 1] and result["status"] == "feasible"
    assert result["setup"] > 0  # the warm-up solved the kind's tiny instance


def test_a_plugin_format_is_read_and_solved_by_the_command_line(tmp_path):
    (tmp_path / "toy_plugin.py").write_text(textwrap.dedent(PLUGIN))
    instance = tmp_path / "items.pick"
    instance.write_text("2\n1.5\n-3\n4\n2.5\n")
    run = subprocess.run(
        [sys.executable, "-m", "cosolve", "solve", str(instance), "--time", "5", "--json"],
        capture_output=True,
        text=True,
        env=_environment(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["problem"], result["method"]) == ("pick-at-most", "largest-first")
    assert result["objective"] == _brute_force([1.5, -3.0, 4.0, 2.5], 2) == 6.5
