"""Every exact baseline stops promptly on an interrupt and keeps its incumbent: from another
thread (``Deadline.interrupt``) and by Ctrl-C (SIGINT to a process running a solve)."""

import threading
import time

import pytest

from cosolve import Status, Termination
from cosolve.baselines.cpsat import CpSatMethod
from cosolve.baselines.routing import OrToolsRouting
from cosolve.baselines.scip import ScipMethod

pytestmark = pytest.mark.slow

# method, instance factory, threads, allowed seconds from the interrupt request to the return
THREADED = [
    (ScipMethod, {}, "hard_maxcut", 1, 2.5),
    (CpSatMethod, {"log": False}, "hard_maxcut", 2, 2.0),
    (OrToolsRouting, {}, "hard_tsp", 1, 2.5),
]
CTRL_C = [("scip", "hard_maxcut", 1), ("cpsat", "hard_setcover", 2), ("ortools-routing", "hard_tsp", 1)]


@pytest.mark.parametrize(("cls", "config", "instance", "threads", "allowed"), THREADED, ids=lambda v: getattr(v, "name", None))
def test_interrupt_from_another_thread(helpers, cls, config, instance, threads, allowed):
    problem = getattr(helpers, instance)()
    ctx = helpers.context(problem, threads=threads)
    threading.Timer(1.0, ctx.deadline.interrupt).start()
    start = time.perf_counter()
    outcome = cls(config).solve(problem, ctx)
    elapsed = time.perf_counter() - start
    assert outcome.termination is Termination.INTERRUPTED and outcome.proven is None
    assert elapsed < allowed
    assert ctx.trace.solution is not None and problem.evaluate(ctx.trace.solution).feasible


@pytest.mark.parametrize(("method", "instance", "threads"), CTRL_C)
def test_ctrl_c_returns_the_incumbent(helpers, method, instance, threads):
    run = helpers.run_and_interrupt(method, instance, threads=threads)
    print(f"{method}: Result {run.to_result:.2f} s and exit {run.to_exit:.2f} s after SIGINT")
    assert run.result.termination is Termination.INTERRUPTED and run.result.status is Status.FEASIBLE
    assert run.result.objective is not None and run.to_exit < 5
    assert "Traceback" not in run.stderr
