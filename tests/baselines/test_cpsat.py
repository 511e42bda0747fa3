"""The ``cpsat`` baseline: exact optima, proofs, model limits, time limit and interruption."""

import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import InputError, Solver, Status, Termination, UsageError
from cosolve.baselines.cpsat import CpSatMethod
from cosolve.method_catalog import methods
from cosolve.problems import MIP, MaximumIndependentSet, SetCover


def test_registered_with_every_exact_family():
    cls = methods()["cpsat"]
    assert cls is CpSatMethod and cls.summary and cls.__doc__
    assert cls.problems == {"setcover", "mis", "maxcut", "maxclique", "mds", "tsp", "mip", "conjoint"}
    assert set(cls.options) == {"log", "presolve"}


def test_optimum_matches_brute_force(tiny_case, helpers):
    problem, optimum = tiny_case
    if isinstance(problem, MIP) and not problem.integrality.all():
        pytest.skip("CP-SAT takes all-integer MIPs only (see test_continuous_variables_are_rejected_before_any_set_up)")
    result = Solver("cpsat", time_limit=30).solve(problem)
    assert result.termination is Termination.COMPLETED
    helpers.assert_optimal(result, optimum)
    assert problem.evaluate(result.solution).feasible


def test_fractional_costs_use_the_problems_objective(helpers):
    # CP-SAT scales a floating-point objective to integers; the reported objective is the
    # problem's own evaluation of the solution, and the optimum is CP-SAT's.
    base = helpers.tiny_setcover(3)
    costs = np.random.default_rng(3).random(base.n_cols) * 5 + 0.1
    problem = SetCover(costs, base.matrix)
    scip = Solver("scip", time_limit=30).solve(problem)
    result = Solver("cpsat", time_limit=30).solve(problem)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(scip.objective, abs=1e-3)
    assert result.objective == problem.evaluate(result.solution).objective


def test_several_workers_and_a_large_seed(helpers, capfd):
    problem = helpers.tiny_integer_mip()
    result = Solver("cpsat", time_limit=30, threads=2, seed=2**40 + 3, log=True).solve(problem)
    assert result.status is Status.OPTIMAL and result.objective == pytest.approx(24.0)
    log = capfd.readouterr().err
    assert "num_workers: 2" in log and f"random_seed: {(2**40 + 3) % (2**31 - 1)}" in log


def test_infeasible_mip_is_proven_infeasible(helpers):
    result = Solver("cpsat", time_limit=30).solve(helpers.infeasible_mip())
    assert result.status is Status.INFEASIBLE and result.termination is Termination.COMPLETED
    assert result.bound is None
    assert result.solution is None


def test_continuous_variables_are_rejected_before_any_set_up(helpers):
    with pytest.raises(UsageError, match="all-integer"):
        Solver("cpsat", time_limit=30).check_supports(helpers.tiny_mixed_mip())  # what the CLI asks before its output
    with pytest.raises(UsageError, match="all-integer"):
        Solver("cpsat", time_limit=30).solve(helpers.tiny_mixed_mip())
    with pytest.raises(InputError, match="all-integer"):  # the model builder says so too
        helpers.tiny_mixed_mip().cpsat_model()


def test_unbounded_variables_are_rejected(helpers):
    with pytest.raises(UsageError, match="finite bounds"):
        Solver("cpsat", time_limit=30).solve(helpers.unbounded_mip())


def test_log_goes_to_stderr(helpers, capfd):
    result = Solver("cpsat", time_limit=30, log=True).solve(helpers.tiny_setcover(1))
    out, err = capfd.readouterr()
    assert result.status is Status.OPTIMAL
    assert out == "" and "CP-SAT" in err


def test_errors_in_callbacks_are_raised():
    class Broken(MaximumIndependentSet):
        def cpsat_model(self):
            exact = super().cpsat_model()

            def decode(values):
                raise RuntimeError("decode failed")

            exact.decode = decode
            return exact

    with pytest.raises(RuntimeError, match="decode failed"):
        Solver("cpsat", time_limit=30).solve(Broken(4, np.array([[0, 1], [1, 2]])))


def test_no_solve_when_the_deadline_is_already_up(helpers):
    problem = helpers.tiny_setcover(1)
    method = CpSatMethod()
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
    result = Solver("cpsat", time_limit=1).solve(problem)
    print(f"cpsat: time {result.time:.3f} s for a 1 s limit (overshoot {result.time - 1:+.3f} s)")
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert problem.evaluate(result.solution).feasible
    helpers.assert_monotone(result)


def test_the_worker_is_stopped_when_the_waiting_thread_raises():
    # A second Ctrl-C raises KeyboardInterrupt in the waiting thread: the sub-solver must be
    # stopped and joined before it propagates (shared by cpsat and scip).
    from cosolve.baselines.exact_helpers import run_in_worker

    stop = threading.Event()

    class SecondCtrlC:
        @property
        def stop_requested(self):
            raise KeyboardInterrupt

    def solve():
        stop.wait(10)
        return "stopped"

    with pytest.raises(KeyboardInterrupt):
        run_in_worker(solve, stop.set, SecondCtrlC(), "test-worker")
    assert stop.is_set()
    assert not any(t.name == "test-worker" for t in threading.enumerate())


def test_presolve_is_off_for_models_too_large_for_the_time_left(helpers):
    from cosolve.baselines.cpsat import PRESOLVE_TERMS_PER_SECOND, _presolve

    terms = 1_170_000  # a 783 x 200,448 rail cover: CP-SAT's presolve took 3.4 s of a 2.5 s limit

    class Sized:
        def sizes(self):
            return {"nonzeros": terms}

    assert not _presolve("auto", Sized(), 2.5) and _presolve("auto", Sized(), terms / PRESOLVE_TERMS_PER_SECOND)
    assert _presolve("auto", Sized(), None) and _presolve("on", Sized(), 0.1) and not _presolve("off", Sized(), 1e9)
    problem = SetCover(np.array([1.0, 1.0, 3.0]), sp.csr_array(np.array([[1, 0, 1], [0, 1, 1]])))  # optimum 2
    for setting in ("on", "off"):  # either way the optimum is found and proven
        result = Solver("cpsat", time_limit=30, presolve=setting).solve(problem)
        assert result.status is Status.OPTIMAL and result.objective == 2.0
