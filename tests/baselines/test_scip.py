"""The ``scip`` baseline: exact optima, proofs, time limit and interruption."""

import time

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import Solver, Status, Termination
from cosolve.baselines.scip import ScipMethod
from cosolve.core.result import Sense
from cosolve.method_catalog import methods
from cosolve.problems import MIP, MaximumIndependentSet

INF = np.inf


def test_registered_with_every_exact_family():
    cls = methods()["scip"]
    assert cls is ScipMethod and cls.summary and cls.__doc__
    assert cls.problems == {"setcover", "mis", "maxcut", "maxclique", "mds", "tsp", "mip", "conjoint", "portfolio"}


def test_optimum_matches_brute_force(tiny_case, helpers):
    problem, optimum = tiny_case
    result = Solver("scip", time_limit=30).solve(problem)
    assert result.termination is Termination.COMPLETED
    helpers.assert_optimal(result, optimum)
    assert problem.evaluate(result.solution).feasible


def test_seed_and_threads_are_accepted(helpers):
    problem = helpers.tiny_integer_mip()
    result = Solver("scip", time_limit=30, seed=2**40 + 3, threads=100).solve(problem)
    assert result.status is Status.OPTIMAL and result.objective == pytest.approx(24.0)


def test_infeasible_mip_is_proven_infeasible(helpers):
    result = Solver("scip", time_limit=30).solve(helpers.infeasible_mip())
    assert result.status is Status.INFEASIBLE and result.termination is Termination.COMPLETED
    assert result.solution is None and result.bound is None


def test_unbounded_mip_is_proven_unbounded(helpers):
    result = Solver("scip", time_limit=30).solve(helpers.unbounded_mip())
    assert result.status is Status.UNBOUNDED and result.termination is Termination.COMPLETED


@pytest.mark.parametrize(("rhs", "expected"), [(5.0, Status.INFEASIBLE), (6.0, Status.UNBOUNDED)])
def test_infeasible_or_unbounded_is_resolved(rhs, expected):
    # 2 x1 + 2 x2 == rhs (integer), maximise a free column x3 >= 0 that no row holds: SCIP's
    # presolve says "infeasible or unbounded" before finding any solution.
    problem = MIP(
        np.array([0.0, 0.0, 1.0]),
        sp.csr_array(np.array([[2.0, 2.0, 0.0]])),
        [rhs],
        [rhs],
        [0, 0, 0],
        [10, 10, INF],
        [True, True, True],
        sense=Sense.MAXIMIZE,
    )
    result = Solver("scip", time_limit=30).solve(problem)
    assert result.status is expected and result.termination is Termination.COMPLETED


def test_errors_in_callbacks_are_raised():
    class Broken(MaximumIndependentSet):
        def scip_model(self):
            exact = super().scip_model()

            def decode(values):
                raise RuntimeError("decode failed")

            exact.decode = decode
            return exact

    with pytest.raises(RuntimeError, match="decode failed"):
        Solver("scip", time_limit=30).solve(Broken(4, np.array([[0, 1], [1, 2]])))


def test_no_solve_when_the_deadline_is_already_up(helpers):
    problem = helpers.tiny_setcover(1)
    method = ScipMethod()
    ctx = helpers.context(problem, 1e-6, method=method)
    time.sleep(0.01)
    assert helpers.run(method, problem, ctx) is Termination.TIME_LIMIT
    ctx = helpers.context(problem, method=method)
    ctx.deadline.interrupt()
    assert helpers.run(method, problem, ctx) is Termination.INTERRUPTED
    assert ctx.trace.solution is None


@pytest.mark.slow
def test_time_limit_is_honoured(helpers):
    problem = helpers.hard_setcover()
    result = Solver("scip", time_limit=1).solve(problem)  # its root bound comes within 0.2 s
    print(f"scip: time {result.time:.3f} s for a 1 s limit (overshoot {result.time - 1:+.3f} s)")
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert problem.evaluate(result.solution).feasible
    assert result.bound is not None and 0 < result.gap < 1
    helpers.assert_monotone(result)
