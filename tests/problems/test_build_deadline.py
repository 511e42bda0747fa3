"""Model building stops at the deadline, so a huge model cannot overrun a solve's budget."""

import json
import subprocess
import sys

import pytest

from cosolve import Solver, Status, Termination
from cosolve.core.problem import BuildStopped, build_deadline, build_range
from cosolve.generators.setcover import random_setcover


def test_build_range_checks_the_active_deadline():
    assert list(build_range(5)) == [0, 1, 2, 3, 4]  # no deadline: a plain range
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 2

    with build_deadline(stop), pytest.raises(BuildStopped):
        list(build_range(100, every=10))
    assert len(calls) == 3
    assert list(build_range(3)) == [0, 1, 2]  # the deadline ends with its block


@pytest.mark.parametrize("kind", ["scip_model", "cpsat_model"])
def test_builders_stop(kind):
    problem = random_setcover(50, 500, density=0.05, seed=1)
    with build_deadline(lambda: True), pytest.raises(BuildStopped):
        getattr(problem, kind)()


_TOO_BIG = """
import json
from cosolve import Solver
from cosolve.generators.setcover import random_setcover
problem = random_setcover(2000, 100_000, nnz=1_000_000, seed=0)  # 1.0-1.5 s to build either model here
result = Solver({method!r}, time_limit=0.1).solve(problem)
print(json.dumps(result.to_dict(with_solution=False)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("method", ["scip", "cpsat"])
def test_a_model_too_big_for_the_budget_stops_building_at_the_deadline(method):
    # In a fresh process, as benchmark jobs run. The budget is a tenth of the build: with a budget of
    # 0.5 s the CI machine once built the CP-SAT model in time (and failed this test).
    out = subprocess.run(
        [sys.executable, "-c", _TOO_BIG.format(method=method)], capture_output=True, text=True, check=True, timeout=120
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["termination"] == Termination.TIME_LIMIT.value and result["status"] == Status.NO_SOLUTION.value
    assert result["stats"] == {"model_built": False}


@pytest.mark.parametrize("deadline_passed", [False, True])
def test_scip_tsp_separation_yields_to_the_deadline(deadline_passed):
    from cosolve.generators.tsp import random_tsp

    exact = random_tsp(30, seed=2).scip_model()
    exact.watch(lambda: deadline_passed)  # what the scip baseline hands over: its deadline's stop test
    exact.model.hideOutput()
    exact.model.setParam("limits/nodes", 1)
    exact.model.optimize()
    handler = exact.model.data["subtour_handler"]
    if deadline_passed:  # fractional separation never ran; enforcement still cut off subtours
        assert handler.separated == 0 and handler.skipped > 0
    else:
        assert handler.separated > 0 and handler.skipped == 0


@pytest.mark.slow
def test_scip_on_a_large_tsp_stops_at_its_time_limit():
    from cosolve.generators.tsp import random_tsp

    result = Solver("scip", time_limit=2).solve(random_tsp(400, seed=2))  # above the exact-separation size
    assert result.termination is Termination.TIME_LIMIT
