"""The ``ortools-setcover`` baseline: the model OR-Tools receives, optimal answers on tiny
instances, feasible covers only, options, the time limit and interruption."""

import threading
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import Solver, Status, Termination, UsageError
from cosolve.baselines.ortools_setcover import OrToolsSetCover, build_model, model_proto_bytes
from cosolve.io import read
from cosolve.method_catalog import methods
from cosolve.problems import SetCover

SCP41 = Path(__file__).resolve().parents[2] / "instances" / "setcover" / "scp41.txt"


@pytest.fixture(scope="module")
def solver():
    """One warmed-up solver for the module (the warm-up runs a 0.5 s solve)."""
    solver = Solver("ortools-setcover", time_limit=0.3)
    solver.prepare(SetCover(np.ones(2), sp.csr_array(np.eye(2))))
    return solver


def with_empty_and_free_columns() -> SetCover:
    """Columns 1 and 4 cover nothing; column 3 is free; the optimum is {3, 5} at cost 1."""
    a = np.array([[1, 0, 1, 0, 0, 1], [1, 0, 0, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1]])
    return SetCover(np.array([2.0, 1.0, 4.0, 0.0, 1.0, 1.0]), sp.csr_array(a))


def test_registered_for_set_cover_only():
    cls = methods()["ortools-setcover"]
    assert cls is OrToolsSetCover and cls.summary and cls.__doc__
    assert cls.problems == {"setcover"}


def test_model_bytes_are_the_protobuf_encoding():
    from ortools.set_cover import set_cover_pb2

    problem = with_empty_and_free_columns()
    rows = np.arange(70_000)  # row varints of 1, 2 and 3 bytes
    columns = np.random.default_rng(0).integers(0, 3, len(rows))
    tall = sp.csc_array((np.ones(len(rows), dtype=np.int8), (rows, columns)), shape=(len(rows), 3))
    for costs, csc in ((problem.costs, problem.csc), (np.array([0.1, 1e-5, 3e20]), tall)):
        data, kept = model_proto_bytes(costs, csc)
        expected = set_cover_pb2.SetCoverProto()
        for j in kept.tolist():
            expected.subset.add(cost=costs[j], element=csc.indices[csc.indptr[j] : csc.indptr[j + 1]].tolist())
        assert data == expected.SerializeToString()
    assert model_proto_bytes(problem.costs, problem.csc)[1].tolist() == [0, 2, 3, 5]


def test_the_model_holds_the_instance():
    problem = read(SCP41)
    model, kept = build_model(problem)
    assert kept.tolist() == list(range(problem.n_cols))
    assert (model.num_elements, model.num_subsets) == (problem.n_rows, problem.n_cols)
    assert model.subset_costs == problem.costs.tolist()
    csc = problem.csc
    assert model.columns == [csc.indices[csc.indptr[j] : csc.indptr[j + 1]].tolist() for j in range(problem.n_cols)]


@pytest.mark.parametrize("seed", range(4))
def test_tiny_instances_are_solved_to_the_optimum(solver, helpers, seed):
    problem = helpers.tiny_setcover(seed)
    result = solver.solve(problem)
    assert problem.evaluate(result.solution).feasible
    assert result.objective == helpers.brute_force_binary(problem, problem.n_cols)
    assert result.status is Status.FEASIBLE and result.termination is Termination.TIME_LIMIT
    assert result.bound is None and result.gap is None
    helpers.assert_monotone(result)


def test_empty_and_free_columns_map_back(solver):
    problem = with_empty_and_free_columns()
    result = solver.solve(problem)
    assert result.objective == 1.0 and np.flatnonzero(result.solution).tolist() == [3, 5]


def test_every_offered_cover_is_feasible_even_from_guided_local_search(helpers):
    """Guided local search alone (no clear-and-repair): its slices can end on an infeasible
    cover, which must be repaired rather than offered."""
    problem = read(SCP41)
    method = OrToolsSetCover({"lns_fraction": 0.0})
    ctx = helpers.context(problem, 0.5, method=method)
    offered = []
    offer = ctx.trace.offer
    ctx.trace.offer = lambda x, objective=None: offered.append(problem.evaluate(x).feasible) or offer(x, objective)
    outcome = method.solve(problem, ctx)
    assert offered and all(offered)
    assert outcome.stats["gls_slices"] > 0 and outcome.stats["lns_rounds"] == 0
    assert problem.evaluate(ctx.trace.solution).feasible


def test_construction_only_and_both_keeps_the_better_start():
    problem = read(SCP41)
    found = {}
    for construction in ("greedy", "element-degree", "both"):
        options = {"construction": construction, "gls_iterations_per_slice": 0, "lns_fraction": 0.0}
        result = Solver("ortools-setcover", time_limit=5, **options).solve(problem)
        assert result.termination is Termination.COMPLETED and result.status is Status.FEASIBLE
        assert problem.evaluate(result.solution).feasible
        assert 429 <= result.objective <= 1.15 * 429
        found[construction] = result.objective
    assert found["greedy"] != found["element-degree"]  # the option picks a different construction
    assert found["both"] == min(found["greedy"], found["element-degree"])


def test_bad_options_are_usage_errors():
    with pytest.raises(UsageError, match="lns_fraction"):
        Solver("ortools-setcover", lns_fraction=1.5).solve(SCP41)
    with pytest.raises(UsageError, match="construction"):
        Solver("ortools-setcover", construction="random").solve(SCP41)


def test_time_limit_is_honoured(helpers):
    problem = helpers.hard_setcover()
    result = Solver("ortools-setcover", time_limit=0.5).solve(problem)
    print(f"ortools-setcover: time {result.time:.3f} s for a 0.5 s limit, stats {result.stats}")
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert problem.evaluate(result.solution).feasible
    assert result.stats["gls_slices"] > 0 and result.stats["lns_rounds"] > 0
    helpers.assert_monotone(result)


def test_no_solve_when_the_deadline_is_already_up(helpers):
    problem = helpers.tiny_setcover(1)
    method = OrToolsSetCover()
    ctx = helpers.context(problem, 1e-6, method=method)
    time.sleep(0.01)
    assert helpers.run(method, problem, ctx) is Termination.TIME_LIMIT
    assert ctx.trace.solution is None


def test_interrupt_from_another_thread(helpers):
    problem = helpers.hard_setcover()
    method = OrToolsSetCover()
    ctx = helpers.context(problem, method=method)  # no time limit: only the interrupt ends the search
    threading.Timer(0.5, ctx.deadline.interrupt).start()
    assert helpers.run(method, problem, ctx) is Termination.INTERRUPTED
    assert problem.evaluate(ctx.trace.solution).feasible
