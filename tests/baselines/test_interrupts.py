"""Every exact baseline stops on an interrupt and keeps its incumbent: from another thread
(``Deadline.interrupt``) and by Ctrl-C (SIGINT to a process running a solve). How soon they stop
is measured by bench/scripts/overshoot.py, not here."""

import threading
import time

import pytest

from cosolve import Status, Termination
from cosolve.baselines.cpsat import CpSatMethod
from cosolve.baselines.ortools_routing import OrToolsRouting
from cosolve.baselines.scip import ScipMethod
from cosolve.solver import termination

pytestmark = pytest.mark.slow

# method, options, instance factory, threads
THREADED = [
    (ScipMethod, {}, "hard_maxcut", 1),
    (CpSatMethod, {"log": False}, "hard_maxcut", 2),
    (OrToolsRouting, {}, "hard_tsp", 1),
]
CTRL_C = [("scip", "hard_maxcut", 1), ("cpsat", "hard_setcover", 2), ("ortools-routing", "hard_tsp", 1)]


def interrupt_soon_after_the_first_incumbent(ctx, *, after=0.2, at_most=1.0):
    """Interrupt ``ctx``'s deadline ``after`` seconds after its trace first holds a solution, or
    ``at_most`` seconds from now if none comes by then."""

    def interrupt():
        started = time.monotonic()
        while ctx.trace.solution is None and time.monotonic() - started < at_most:
            time.sleep(0.01)
        time.sleep(after)
        ctx.deadline.interrupt()

    threading.Thread(target=interrupt, daemon=True).start()


@pytest.mark.parametrize(("cls", "config", "instance", "threads"), THREADED, ids=lambda v: getattr(v, "name", None))
def test_interrupt_from_another_thread(helpers, cls, config, instance, threads):
    problem = getattr(helpers, instance)()
    method = cls(config)
    ctx = helpers.context(problem, method=method, threads=threads)  # no time limit: only the interrupt stops it
    interrupt_soon_after_the_first_incumbent(ctx)
    outcome = method.solve(problem, ctx)
    assert termination(outcome, ctx.deadline) is Termination.INTERRUPTED and outcome.proven is None
    assert ctx.trace.solution is not None and problem.evaluate(ctx.trace.solution).feasible


@pytest.mark.parametrize(("method", "instance", "threads"), CTRL_C)
def test_ctrl_c_returns_the_incumbent(helpers, method, instance, threads):
    run = helpers.run_and_interrupt(method, instance, threads=threads, after=0.3)  # the solve runs for 60 s
    print(f"{method}: Result {run.to_result:.2f} s and exit {run.to_exit:.2f} s after SIGINT")
    assert run.result.termination is Termination.INTERRUPTED and run.result.status is Status.FEASIBLE
    assert run.result.objective is not None
    assert "Traceback" not in run.stderr
