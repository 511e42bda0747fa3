from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import Solver, Status, Termination, UsageError, solve
from cosolve.core.method import Method, Option, Outcome
from cosolve.core.registry import METHODS
from cosolve.method_catalog import get_method, methods
from cosolve.problems import MaximumIndependentSet, SetCover


class Enumerate(Method):
    """Test method: enumerate all 0/1 vectors in Gray-code order until the deadline."""

    name = "test-enumerate"
    problems = frozenset({"setcover", "mis"})
    options: ClassVar[dict[str, Option]] = {"prove": Option(bool, True, "claim optimality after a full enumeration")}

    def solve(self, problem, ctx):
        n = problem.n_cols if problem.kind == "setcover" else problem.n
        for k in range(2**n):
            if ctx.deadline.stop_requested:
                return Outcome(Termination.TIME_LIMIT)
            ctx.trace.offer(np.array([(k >> i) & 1 for i in range(n)], dtype=np.int8))
        return Outcome(Termination.COMPLETED, Status.OPTIMAL if ctx.options["prove"] else None)


@pytest.fixture(autouse=True)
def _registered():
    METHODS._items[Enumerate.name] = Enumerate
    yield
    METHODS._items.pop(Enumerate.name, None)


def tiny_cover():
    # rows x cols; optimum picks columns 0 and 2 (cost 2+2 = 4) against 5 for column 3 + 1
    a = sp.csr_array(np.array([[1, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [0, 1, 1, 0]]))
    return SetCover(np.array([2.0, 3.0, 2.0, 5.0]), a, name="tiny")


def test_solver_returns_the_optimum_with_its_trace():
    result = Solver("test-enumerate", time_limit=5).solve(tiny_cover())
    assert result.status is Status.OPTIMAL and result.termination is Termination.COMPLETED
    assert result.objective == 4.0 and result.bound == 4.0 and result.gap == 0.0
    objectives = [p.objective for p in result.trace]
    assert objectives == sorted(objectives, reverse=True)
    assert list(result.solution) == [1, 0, 1, 0]
    assert result.instance == "tiny" and result.method == "test-enumerate"


def test_without_proof_the_status_is_feasible():
    result = solve(tiny_cover(), method="test-enumerate", prove=False)
    assert result.status is Status.FEASIBLE and result.bound is None and result.gap is None


def test_time_limit_returns_the_incumbent():
    mis = MaximumIndependentSet(40, np.array([[i, i + 1] for i in range(39)]))
    result = Solver("test-enumerate", time_limit=0.3).solve(mis)
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert mis.evaluate(result.solution).feasible


def test_unknown_method_lists_the_valid_ones():
    with pytest.raises(UsageError, match=r"unknown method 'nope'; valid methods: .*test-enumerate"):
        get_method("nope")
    assert "test-enumerate" in methods()


def test_unsupported_problem_and_bad_parameters_are_usage_errors():
    from cosolve.problems import TSP

    tsp = TSP(np.array([[0, 0], [1, 0], [0, 1.0]]))
    expected = r"does not solve tsp problems \(it solves: mis, setcover\); methods for tsp: .*ortools-routing"
    with pytest.raises(UsageError, match=expected):
        Solver("test-enumerate").solve(tsp)
    for kwargs in ({"time_limit": -1}, {"time_limit": 0}, {"threads": 0}, {"seed": -3}):
        with pytest.raises(UsageError):
            Solver("test-enumerate", **kwargs).solve(tiny_cover())
    with pytest.raises(UsageError, match="unknown option 'bogus'"):
        Solver("test-enumerate", bogus=1).solve(tiny_cover())


def test_fit_returns_self_and_keeps_the_method():
    solver = Solver("test-enumerate")
    assert solver.fit([tiny_cover()]) is solver
    assert isinstance(solver.method_, Enumerate)


def test_interrupt_from_another_thread_returns_the_incumbent():
    import threading

    mis = MaximumIndependentSet(40, np.array([[i, i + 1] for i in range(39)]))
    solver = Solver("test-enumerate", time_limit=30)
    threading.Timer(0.3, solver.interrupt).start()
    result = solver.solve(mis)
    assert result.termination is Termination.INTERRUPTED and result.status is Status.FEASIBLE
    solver.interrupt()  # no solve running: nothing happens


def test_statuses_print_as_their_values():
    assert str(Status.OPTIMAL) == "optimal" and f"{Termination.TIME_LIMIT}" == "time_limit"


class Scoped(Enumerate):
    """Test method with an option that only means something for MIS."""

    name = "test-scoped"
    options: ClassVar[dict[str, Option]] = {
        **Enumerate.options,
        "mis_only": Option(int, 3, "mis: an option set cover ignores", problems=("mis",)),
    }


def test_an_option_of_another_problem_kind_is_refused_and_left_out_of_the_result():
    METHODS._items[Scoped.name] = Scoped
    try:
        cover = Solver("test-scoped", time_limit=5).solve(tiny_cover())
        assert "mis_only" not in cover.options and cover.options["prove"] is True  # not recorded: it did nothing
        mis = MaximumIndependentSet(4, np.array([[0, 1], [2, 3]]))
        assert Solver("test-scoped", time_limit=5).solve(mis).options["mis_only"] == 3
        given = Solver("test-scoped", time_limit=5, mis_only=4)
        assert given.solve(mis).options["mis_only"] == 4
        with pytest.raises(UsageError, match="option mis_only of method test-scoped applies to mis only, not to setcover"):
            given.solve(tiny_cover())  # given for set cover, it would be ignored silently
        with pytest.raises(UsageError, match="applies to mis only"):
            given.check_supports(tiny_cover())  # what the command line checks before any work
    finally:
        METHODS._items.pop(Scoped.name, None)


def test_repr_shows_the_method_and_the_parameters_given():
    assert repr(Solver("greedy")) == "Solver('greedy')"
    shown = repr(Solver("cam", problem="mis", time_limit=1, seed=3, chains=4))
    assert shown == "Solver('cam', problem='mis', time_limit=1, seed=3, chains=4)"


@pytest.mark.parametrize("instance", [123, None, [1, 2]])
def test_an_instance_that_is_neither_a_problem_nor_a_path_is_a_usage_error(instance):
    with pytest.raises(UsageError, match="instance must be a Problem or the path of an instance file, got"):
        Solver("greedy").solve(instance)


def test_saving_a_method_that_learns_nothing_says_so(tmp_path):
    with pytest.raises(UsageError, match="method greedy learns nothing, so it has no model to save"):
        Solver("greedy").save(tmp_path / "model")
    assert not (tmp_path / "model").exists()


class RoundedProof(Method):
    """Test method: one node of an edge as the MIS, proven with a bound a rounding error past it
    (as SCIP reports 23.999999999999996 for 24)."""

    name = "test-rounded-proof"
    problems = frozenset({"mis"})

    def solve(self, problem, ctx):
        x = np.zeros(problem.n, dtype=np.int8)
        x[0] = 1
        ctx.trace.offer(x)
        ctx.trace.offer_bound(1.0 - 4e-15)
        return Outcome(Termination.COMPLETED, Status.OPTIMAL)


def test_a_proven_optimum_reports_its_objective_as_the_bound_not_a_rounding_past_it():
    METHODS._items[RoundedProof.name] = RoundedProof
    try:
        graph = MaximumIndependentSet(2, np.array([[0, 1]]))
        result = Solver(RoundedProof.name).solve(graph)
    finally:
        del METHODS._items[RoundedProof.name]
    assert result.status is Status.OPTIMAL and result.objective == 1.0 and result.bound == 1.0 and result.gap == 0.0


def test_validate_checks_options_against_the_problem_and_files_the_options_name(tmp_path):
    from cosolve import InputError

    with pytest.raises(UsageError, match="clique_starts of method greedy applies to maxclique only, not to setcover"):
        Solver("greedy", problem="setcover", clique_starts=3).validate()
    Solver("greedy", problem="maxclique", clique_starts=3).validate()
    with pytest.raises(InputError, match=r"checkpoint .*nothing: no such file or folder"):
        Solver("cam", problem="mis", checkpoint=str(tmp_path / "nothing")).validate()
