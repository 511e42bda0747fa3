"""The ``greedy`` method through :class:`cosolve.Solver`: every family, known values, limits."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import Solver, Status, Termination, UsageError
from cosolve.baselines.greedy import Greedy
from cosolve.core.deadline import Deadline
from cosolve.core.method import Outcome, SolveContext
from cosolve.core.result import Trace
from cosolve.io import read
from cosolve.method_catalog import methods
from cosolve.problems import TSP, MaxCut, MaximumClique, MaximumIndependentSet, MinimumDominatingSet, SetCover
from cosolve.solver import termination

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


def random_edges(n, p, seed):
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(len(iu)) < p
    return np.stack([iu[keep], ju[keep]], axis=1)


def family(kind, seed, n=10):
    rng = np.random.default_rng(seed)
    if kind == "setcover":
        a = (rng.random((8, n)) < 0.25).astype(np.int8)
        a[np.arange(8), rng.integers(0, n, 8)] = 1
        return SetCover(rng.integers(1, 6, n).astype(float), sp.csr_array(a))
    if kind == "tsp":
        return TSP(rng.uniform(0, 100, (min(n, 8), 2)))
    edges = random_edges(n, 0.4, seed)
    cls = {"mis": MaximumIndependentSet, "maxclique": MaximumClique, "maxcut": MaxCut, "mds": MinimumDominatingSet}[kind]
    weights = rng.integers(1, 5, len(edges)).astype(float) if kind == "maxcut" else None
    return cls(n, edges, weights=weights)


KINDS = ["setcover", "mis", "maxclique", "maxcut", "mds", "tsp"]


def assert_clean(result, problem):
    assert result.status is Status.FEASIBLE and result.termination is Termination.COMPLETED, result
    assert result.bound is None and result.gap is None
    assert problem.evaluate(result.solution).feasible
    assert result.objective == problem.evaluate(result.solution).objective
    objectives = [p.objective for p in result.trace]
    assert objectives and objectives[-1] == result.objective
    better = (lambda a, b: a < b) if problem.sense.value == "minimize" else (lambda a, b: a > b)
    assert all(better(b, a) for a, b in itertools.pairwise(objectives))


def test_greedy_is_registered_for_the_six_families():
    assert methods()["greedy"] is Greedy and Greedy.problems == frozenset(KINDS)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", KINDS)
def test_every_family_gives_a_feasible_answer_no_better_than_brute_force(kind, seed, helpers):
    problem = family(kind, seed)
    result = Solver("greedy", time_limit=30, seed=seed).solve(problem)
    assert_clean(result, problem)
    if kind == "tsp":
        assert helpers.brute_force_tsp(problem) <= result.objective
    else:
        n = problem.n_cols if kind == "setcover" else problem.n
        opt = helpers.brute_force_binary(problem, n)
        assert not problem.sense.better(result.objective, opt)
    if kind in ("setcover", "mds"):  # Chvátal: within H(largest set) of the optimum
        sizes = np.diff(problem.csc.indptr) if kind == "setcover" else problem.degrees + 1
        assert result.objective <= sum(1 / k for k in range(1, int(sizes.max()) + 1)) * opt + 1e-9


@pytest.mark.parametrize(("name", "optimum", "greedy_value"), [("scp41", 429, 434), ("scpa1", 253, 261)])
def test_known_values_on_or_library(name, optimum, greedy_value):
    problem = read(INSTANCES / "setcover" / f"{name}.txt")
    result = Solver("greedy", time_limit=60).solve(problem)
    assert_clean(result, problem)
    # measured: Chvátal gives 463 (scp41) and 288 (scpa1); redundancy removal 434 and 261; swaps 433 and 260
    assert optimum <= result.objective < greedy_value <= 1.10 * optimum
    assert len(result.trace) == 3 and result.trace[0].objective > result.trace[1].objective == greedy_value
    raw = Solver("greedy", time_limit=60, improve=False).solve(problem)
    assert raw.objective == result.trace[0].objective and len(raw.trace) == 1


@pytest.mark.parametrize(("name", "optimum", "greedy_value"), [("berlin52", 7542, 8060), ("a280", 2579, 2812)])
def test_nearest_neighbour_and_two_opt_on_tsplib(name, optimum, greedy_value):
    problem = read(INSTANCES / "tsplib" / f"{name}.tsp")
    result = Solver("greedy", time_limit=60).solve(problem)
    assert_clean(result, problem)
    assert optimum <= result.objective <= greedy_value <= 1.10 * optimum
    nn = Solver("greedy", time_limit=60, improve=False).solve(problem)
    assert nn.solution[0] == 0 and nn.objective == result.trace[0].objective > result.objective


def test_maxcut_start_depends_on_the_seed_and_is_reproducible():
    problem = MaxCut(200, random_edges(200, 0.05, 0))
    starts = {Solver("greedy", seed=s).solve(problem).trace[0].objective for s in range(5)}
    assert len(starts) > 1
    a, b = (Solver("greedy", seed=3).solve(problem) for _ in range(2))
    assert np.array_equal(a.solution, b.solution)


def test_maxclique_option_is_validated_and_more_starts_find_what_one_misses():
    # the highest-degree node is the hub of a star (its cliques have 2 nodes); a 6-clique hides elsewhere
    star = [(0, leaf) for leaf in range(1, 21)]
    planted = [(u, v) for u in range(30, 36) for v in range(u + 1, 36)]
    problem = MaximumClique(40, np.array(star + planted))
    with pytest.raises(UsageError, match="clique_starts"):
        Solver("greedy", clique_starts=0).solve(problem)
    one = Solver("greedy", clique_starts=1).solve(problem)
    many = Solver("greedy", clique_starts=40).solve(problem)
    assert one.objective == 2 and many.objective == 6


def run_method(problem, time_limit=math.inf, *, interrupt_at_first_offer=False, interrupt_now=False):
    deadline = Deadline(time_limit)
    trace = Trace(
        problem.sense, deadline.elapsed, lambda x: (lambda e: (e.objective, e.feasible, e.violation))(problem.evaluate(x))
    )
    if interrupt_at_first_offer:
        trace.listeners.append(lambda point: deadline.interrupt())
    if interrupt_now:
        deadline.interrupt()
    method = Greedy()
    ctx = SolveContext(deadline, trace, 0, 1, method.resolve(problem, time_limit))
    outcome = method.solve(problem, ctx)
    return Outcome(termination(outcome, deadline), outcome.proven, outcome.stats), trace, deadline


def test_an_interrupt_stops_two_opt_with_the_nearest_neighbour_tour():
    rng = np.random.default_rng(0)
    run_method(TSP(rng.random((1500, 2)) * 1000))  # compile the kernels first
    problem = TSP(rng.random((20_000, 2)) * 10_000)
    outcome, trace, _ = run_method(problem, interrupt_at_first_offer=True)
    assert outcome.termination is Termination.INTERRUPTED
    assert len(trace.points) == 1 and problem.evaluate(trace.solution).feasible  # 2-opt offered nothing more


@pytest.mark.parametrize("kind", ["setcover", "maxclique", "tsp", "mds", "maxcut"])
def test_an_interrupt_before_the_start_is_honoured(kind):
    problem = family(kind, 0, n=12)
    outcome, trace, _ = run_method(problem, interrupt_now=True)
    assert outcome.termination is Termination.INTERRUPTED
    assert len(trace.points) == (1 if kind == "maxcut" else 0)  # maxcut offers its random start first


def test_the_time_limit_stops_a_long_two_opt():
    rng = np.random.default_rng(1)
    Solver("greedy").solve(TSP(rng.random((1500, 2)) * 1000))  # compile the kernels first
    problem = TSP(rng.random((30_000, 2)) * 10_000)
    result = Solver("greedy", time_limit=1).solve(problem)  # its nearest-neighbour tour comes within 0.25 s
    assert result.termination is Termination.TIME_LIMIT and result.status is Status.FEASIBLE
    assert problem.evaluate(result.solution).feasible
