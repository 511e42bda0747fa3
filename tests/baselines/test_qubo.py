"""The tabu and sa baselines: their QUBOs against the problems, brute-force optima on tiny graphs,
the deadline, and a clear error without dwave-samplers."""

import itertools
import sys

import numpy as np
import pytest

from cosolve import Solver, Termination, UsageError
from cosolve.baselines.qubo import MDS_PENALTY, graph_qubo
from cosolve.generators.distributions import sample_graph
from cosolve.generators.graphs import erdos_renyi
from tests.oracles import all_binary, brute_force_binary

pytest.importorskip("dwave.samplers")
KINDS = ["mis", "maxclique", "maxcut", "mds"]


def qubo_energy(linear, rows, cols, weights):
    q = np.zeros((len(linear), len(linear)))
    np.add.at(q, (rows, cols), weights)
    return lambda z: linear @ z + z @ q @ z


@pytest.mark.parametrize("kind", ["mis", "maxclique", "maxcut"])
def test_the_qubo_is_the_problems_penalised_energy_and_its_minimum_the_optimum(kind):
    from cosolve.diffusion.energies import energy_for

    problem = erdos_renyi(8, 0.4, problem=kind, seed=3, weighted=kind == "maxcut")
    energy = qubo_energy(*graph_qubo(problem))
    states = all_binary(8, np.float64)
    values = np.array([energy(z) for z in states])
    np.testing.assert_allclose(values, energy_for(problem).energy(states), atol=1e-9)
    sign = 1.0 if problem.sense.value == "minimize" else -1.0
    assert sign * values.min() == pytest.approx(brute_force_binary(problem))  # penalties never pay


def test_the_dominating_set_qubo_is_zero_penalty_exactly_on_dominating_sets():
    problem = erdos_renyi(6, 0.4, problem="mds", seed=1)
    linear, rows, cols, weights = graph_qubo(problem)
    energy, n = qubo_energy(linear, rows, cols, weights), problem.n
    closed = (problem.adjacency.toarray() + np.eye(n)) > 0
    for x in all_binary(n, np.float64):
        best = min(energy(np.r_[x, s]) for s in itertools.product((0.0, 1.0), repeat=len(linear) - n))
        undominated = int((~(closed @ x > 0)).sum())
        if undominated == 0:  # the slack bits can absorb every extra dominator
            assert best == pytest.approx(x.sum() - MDS_PENALTY * n)
        else:
            assert best >= x.sum() - MDS_PENALTY * n + MDS_PENALTY * undominated - 1e-9


@pytest.mark.parametrize("method", ["tabu", "sa"])
@pytest.mark.parametrize("kind", KINDS)
def test_tiny_graphs_are_solved_to_the_brute_force_optimum(method, kind):
    problem = erdos_renyi(10, 0.35, problem=kind, seed=4, weighted=kind == "maxcut")
    result = Solver(method, time_limit=30, calls=2, chunk=0.05, seed=1).solve(problem)
    assert result.termination is Termination.COMPLETED and result.stats["calls"] == 2
    assert problem.evaluate(result.solution).feasible and result.objective == brute_force_binary(problem)


@pytest.mark.parametrize("method", ["tabu", "sa"])
def test_the_deadline_ends_the_calls_with_a_repaired_solution(method):
    problem = sample_graph("rb-small", 2, "mds")  # the MDS QUBO adds slack bits
    result = Solver(method, time_limit=1.2, chunk=0.2).solve(problem)  # room for two calls on a busy machine
    assert result.termination is Termination.TIME_LIMIT and problem.evaluate(result.solution).feasible
    assert result.stats["calls"] >= 2 and result.stats["variables"] > problem.n


def test_without_dwave_samplers_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dimod", None)  # import dimod fails
    with pytest.raises(UsageError, match=r"pip install 'cosolve\[qubo\]'"):
        Solver("tabu", time_limit=1).solve(erdos_renyi(5, 0.5, problem="mis", seed=0))


@pytest.mark.parametrize("method", ["tabu", "sa"])
def test_a_call_whose_fixed_cost_does_not_fit_the_time_left_is_not_started(method, monkeypatch):
    from cosolve.method_catalog import get_method

    monkeypatch.setattr(get_method(method), "overhead", lambda self, bqm: 1e6)  # as TabuSampler on 6,000 variables
    problem = sample_graph("rb-small", 2, "mds")
    result = Solver(method, time_limit=5, chunk=0.2).solve(problem)
    assert result.stats["calls"] == 0 and result.termination is Termination.TIME_LIMIT
    assert problem.evaluate(result.solution).feasible  # a repaired random state, not nothing


def test_the_first_tabu_call_estimate_covers_the_measured_set_up_costs():
    from cosolve.baselines.qubo import tabu_overhead

    # TabuSampler's cost beyond its timeout, measured with dwave-samplers 1.x (variables: seconds);
    # a smaller estimate lets the first call end past the deadline (11.4 s of a 10 s budget at 10,000)
    measured = {6_000: 2.3, 8_000: 5.3, 10_000: 11.3}
    for variables, seconds in measured.items():
        assert seconds <= tabu_overhead(variables) <= 1.5 * seconds
    assert tabu_overhead(800) < 0.1  # a benchmark-sized graph is not kept from calling


def test_building_the_dominating_set_qubo_stops_when_asked_and_merges_repeated_pairs():
    problem = sample_graph("rb-small", 2, "mds")
    assert graph_qubo(problem, stop=lambda: True) is None
    _, rows, cols, _ = graph_qubo(problem)
    assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) == len(rows) and np.all(rows < cols)


def test_an_annealing_read_that_would_not_fit_the_call_is_shortened(monkeypatch):
    import cosolve.baselines.qubo as qubo

    problem = erdos_renyi(10, 0.35, problem="mis", seed=4)
    # a sweep estimated at a millisecond: a 1,000-sweep read (1 s) would not fit a 0.2 s call
    terms = problem.n + 2 * len(problem.edges)
    monkeypatch.setattr(qubo, "SA_SECONDS_PER_SWEEP_TERM", 1e-3 / terms)
    result = Solver("sa", time_limit=30, calls=1, chunk=0.2, seed=1).solve(problem)
    sweeps = result.stats["sweeps_run"]
    assert 1 <= sweeps < 1000 and result.stats["calls"] == 1
    assert problem.evaluate(result.solution).feasible


def test_annealing_runs_its_full_schedule_when_a_read_fits():
    problem = erdos_renyi(10, 0.35, problem="mis", seed=4)
    result = Solver("sa", time_limit=30, calls=1, chunk=0.2, seed=1).solve(problem)
    # sweep_seconds is measured on full-schedule reads only; the call's last reads may be shortened
    assert result.stats["sweep_seconds"] > 0 and 1 <= result.stats["sweeps_run"] <= 1000
