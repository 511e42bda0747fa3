"""The polishing local searches: the indexed heap against a sorted list, the searches' invariants
(tightness, cover counts, gains) after many moves, the brute-force optimum on tiny graphs, and
results independent of how the iterations are chunked."""

import functools
import itertools

import numpy as np
import pytest

from cosolve.diffusion.decode import decode
from cosolve.diffusion.polish import cut_disagreement, local_search, polish
from cosolve.heuristics.graphs.greedy_constructions import closed_neighborhoods, weighted_adjacency
from cosolve.heuristics.graphs.maxcut_search import CutTabuSearch
from cosolve.heuristics.graphs.mds_search import DominatingSetSearch
from cosolve.heuristics.graphs.mis_search import IndependentSetSearch
from cosolve.heuristics.graphs.numvc import VertexCoverSearch
from cosolve.heuristics.heap import heap_build, heap_fix, heap_push, heap_remove
from cosolve.problems import MaxCut, MaximumClique, MaximumIndependentSet, MinimumDominatingSet
from tests.oracles import brute_force_binary

KINDS = {"mis": MaximumIndependentSet, "maxclique": MaximumClique, "maxcut": MaxCut, "mds": MinimumDominatingSet}
#: (kind, independent-set search): every search the polish has
SEARCHES = [("mis", "numvc"), ("mis", "arw"), ("maxclique", "numvc"), ("maxclique", "arw"), ("maxcut", "numvc"), ("mds", "numvc")]


def random_graph(kind, seed, n=None):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 15)) if n is None else n
    p = rng.uniform(0.15, 0.6)
    edges = np.array([(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p], dtype=np.int64).reshape(-1, 2)
    weights = rng.choice([-1.0, 1.0, 2.0, 3.0], len(edges)) if kind == "maxcut" else None
    return KINDS[kind](n, edges, weights=weights)


@pytest.mark.parametrize("seed", range(5))
def test_heap_top_is_the_largest_key_after_random_operations(seed):
    rng = np.random.default_rng(seed)
    n = 40
    key = rng.integers(0, 6, n).astype(np.float64)  # many ties: smaller node first
    heap, pos = np.zeros(n, np.int64), np.zeros(n, np.int64)
    size = heap_build(heap, pos, key, np.arange(0, n, 2))
    inside = set(range(0, n, 2))
    for _ in range(500):
        v = int(rng.integers(n))
        op = rng.integers(3)
        if op == 0 and v not in inside:
            size = heap_push(heap, pos, key, size, v)
            inside.add(v)
        elif op == 1 and v in inside and len(inside) > 1:
            size = heap_remove(heap, pos, key, size, v)
            inside.remove(v)
        elif v in inside:
            key[v] = float(rng.integers(0, 6))
            heap_fix(heap, pos, key, size, v)
        assert size == len(inside)
        assert heap[0] == min(inside, key=lambda u: (-key[u], u))
        assert all(pos[heap[i]] == i for i in range(size))
        assert all(pos[u] == -1 for u in set(range(n)) - inside)


@functools.cache
def brute_force_optimum(kind, seed):
    """The optimum of ``random_graph(kind, seed)``: computed once for the two independent-set searches. A
    clique's, as the independent set of the complement graph (the same optimum; that evaluation is ten
    times faster than the clique's, which slices the adjacency matrix)."""
    problem = random_graph(kind, seed)
    if kind == "maxclique":
        problem = MaximumIndependentSet(problem.n, problem.complement_edges)
    return brute_force_binary(problem)


def start_of(problem, seed):
    return decode(problem, np.random.default_rng(seed).random((1, problem.n)))[0]


@pytest.mark.parametrize(("kind", "iss"), SEARCHES)
@pytest.mark.parametrize("seed", range(8))
def test_search_reaches_the_brute_force_optimum_of_tiny_graphs(kind, iss, seed):
    problem = random_graph(kind, seed)
    search = local_search(problem, start_of(problem, seed), seed, independent_set_search=iss)
    offered = []

    def offer(x):
        verdict = problem.evaluate(x)
        assert verdict.feasible, verdict.violation
        offered.append(verdict.objective)

    polish(search, lambda: float("inf"), offer, iterations=3000)
    verdict = problem.evaluate(search.best)
    assert verdict.feasible
    assert verdict.objective == brute_force_optimum(kind, seed)
    assert all(problem.sense.better(b, a) for a, b in itertools.pairwise(offered))  # offers only improve


@pytest.mark.parametrize("seed", range(6))
def test_independent_set_state_stays_consistent_through_undone_moves(seed):
    problem = random_graph("mis", 100 + seed, n=60)
    search = IndependentSetSearch(problem.adjacency, start_of(problem, seed), seed)
    for _ in range(20):
        search.run(50)
        x = search.in_s.astype(np.int64)
        np.testing.assert_array_equal(search.tight, problem.adjacency @ x)
        np.testing.assert_array_equal(search.owner, problem.adjacency @ (x * np.arange(problem.n)))
        assert problem.evaluate(search.in_s).feasible
        assert search.state[0] == x.sum()
        free = (x == 0) & (search.tight == 0)
        assert not free.any()  # the current set stays maximal
    assert search.state[1] == search.best.sum() and problem.evaluate(search.best).feasible


def check_vertex_cover_state(problem, search):
    ends, in_c, dscore, w, state, best = search.ends, search.in_c, search.dscore, search.weight, search.state, search.best
    uncov, upos, clist = search.uncovered, search.uncovered_at, search.cover
    covered = in_c[ends[:, 0]].astype(bool) | in_c[ends[:, 1]].astype(bool)
    assert set(uncov[: state[5]].tolist()) == set(np.flatnonzero(~covered).tolist())
    np.testing.assert_array_equal(upos[uncov[: state[5]]], np.arange(state[5]))
    assert set(clist[: state[0]].tolist()) == set(np.flatnonzero(in_c).tolist()) and state[0] == in_c.sum()
    expected = np.zeros(problem.n, np.int64)  # dscore from its definition: cost change when v changes side
    for e, (a, b) in enumerate(ends):
        if not covered[e]:
            expected[a] += w[e]
            expected[b] += w[e]
        elif in_c[a] != in_c[b]:
            expected[a if in_c[a] else b] -= w[e]
    np.testing.assert_array_equal(dscore, expected)
    assert state[3] == w.sum()
    assert problem.evaluate(best).feasible and problem.n - best.sum() == state[1]


@pytest.mark.parametrize("seed", range(6))
def test_vertex_cover_scores_and_lists_stay_exact(seed):
    problem = random_graph("mis", 400 + seed, n=60)
    search = VertexCoverSearch(problem.adjacency, start_of(problem, seed), seed)
    check_vertex_cover_state(problem, search)
    for _ in range(20):
        search.run(50)
        check_vertex_cover_state(problem, search)


def test_vertex_cover_weights_are_forgotten_when_their_mean_reaches_gamma():
    problem = random_graph("mis", 7, n=40)
    search = VertexCoverSearch(problem.adjacency, np.zeros(problem.n, np.int8), 3)
    search._parameters = (1.5, 0.3)  # gamma: a mean weight of 1.5 triggers the scaling
    w = search.weight
    for _ in range(40):
        search.run(25)
        assert w.mean() < 1.5 + search.state[5] / len(w)  # scaled down as soon as the mean passed gamma
        check_vertex_cover_state(problem, search)
    assert (w == 0).any()  # floor(0.3 * 1) = 0: some weights were forgotten


def test_vertex_cover_search_refuses_a_start_that_is_not_independent():
    problem = random_graph("mis", 7, n=10)
    with pytest.raises(ValueError, match="independent set"):
        VertexCoverSearch(problem.adjacency, np.ones(problem.n, np.int8), 0)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("guided", [False, True])
def test_cut_gains_and_value_stay_exact(seed, guided):
    problem = random_graph("maxcut", 200 + seed, n=50)
    weighted = weighted_adjacency(problem.n, problem.edges, problem.weights)
    weights = np.random.default_rng(seed).random(problem.n) * (np.arange(problem.n) % 3 == 0) if guided else None
    search = CutTabuSearch(weighted, start_of(problem, seed), seed, patience=30, restart_weights=weights)  # restarts too
    x = search._arrays[3]
    for _ in range(20):
        search.run(40)
        same = np.equal.outer(x, x)
        dense = weighted.toarray()
        expected = (dense * np.where(same, 1.0, -1.0)).sum(axis=1)
        np.testing.assert_allclose(search.gain, expected)
        fstate = search._arrays[-2]
        assert fstate[0] == pytest.approx(problem.cut_value(x))
        assert fstate[1] == pytest.approx(problem.cut_value(search.best))
        assert fstate[1] >= fstate[0] - 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_dominating_set_counts_and_lists_stay_exact(seed):
    problem = random_graph("mds", 300 + seed, n=50)
    search = DominatingSetSearch(problem.adjacency, start_of(problem, seed), seed)
    closed = closed_neighborhoods(problem.adjacency)
    for _ in range(20):
        search.run(30)
        np.testing.assert_array_equal(search.covered, closed @ search.in_d.astype(np.int64))
        undominated = set(np.flatnonzero(search.covered == 0).tolist())
        assert set(search.undom[: search.istate[1]].tolist()) == undominated
        assert set(search.dlist[: search.istate[2]].tolist()) == set(np.flatnonzero(search.in_d).tolist())
        assert problem.evaluate(search.best).feasible
        assert search.istate[3] == search.best.sum()


def test_dominating_set_search_refuses_a_start_that_does_not_dominate():
    problem = random_graph("mds", 7, n=10)
    with pytest.raises(ValueError, match="must dominate"):
        DominatingSetSearch(problem.adjacency, np.zeros(problem.n, np.int8), 0)


@pytest.mark.parametrize(("kind", "iss"), SEARCHES)
def test_the_result_does_not_depend_on_the_chunking(kind, iss):
    problem = random_graph(kind, 11, n=80)
    start = start_of(problem, 0)
    whole = local_search(problem, start, 5, independent_set_search=iss)
    whole.run(600)
    chunked = local_search(problem, start, 5, independent_set_search=iss)
    for _ in range(60):
        chunked.run(10)
    np.testing.assert_array_equal(whole.best, chunked.best)


def test_polish_keeps_to_its_time_budget_and_counts_iterations():
    problem = random_graph("maxcut", 3, n=60)
    search = local_search(problem, start_of(problem, 0), 0)
    clock = iter(np.arange(0.0, 100.0, 0.001))
    now = lambda: next(clock)  # noqa: E731  a fake clock: 1 ms per reading
    end = 0.05
    stats = polish(search, lambda: end - now(), lambda x: None, clock=now)
    assert stats.iterations >= 1
    capped = polish(local_search(problem, start_of(problem, 0), 0), lambda: float("inf"), lambda x: None, iterations=123)
    assert capped.iterations == 123


def test_cut_disagreement_counts_each_state_on_its_closer_labelling():
    start = np.array([0, 0, 1, 1, 0], np.int8)
    states = np.array(
        [
            [0, 0, 1, 1, 1],  # differs on node 4
            [1, 1, 0, 0, 0],  # the same cut as [0, 0, 1, 1, 1] swapped: differs on node 4
            [0, 1, 1, 1, 0],  # differs on node 1
            [0, 0, 1, 1, 0],  # the start itself
        ],
        np.int8,
    )
    np.testing.assert_allclose(cut_disagreement(start, states, floor=0.1), [0.1, 0.35, 0.1, 0.1, 0.6])


def test_cut_tabu_refuses_restart_weights_that_cannot_be_drawn_from():
    problem = random_graph("maxcut", 5, n=12)
    weighted = weighted_adjacency(problem.n, problem.edges, problem.weights)
    start = start_of(problem, 0)
    for bad in (np.zeros(12), np.ones(11), -np.ones(12)):
        with pytest.raises(ValueError, match="restart_weights"):
            CutTabuSearch(weighted, start, 0, restart_weights=bad)


def test_guided_maxcut_polish_reaches_the_brute_force_optimum_on_tiny_graphs():
    for seed in range(5):
        problem = random_graph("maxcut", 400 + seed, n=12)
        best = max(problem.cut_value(np.array(x, np.int8)) for x in itertools.product((0, 1), repeat=problem.n))
        start = start_of(problem, seed)
        pool = np.random.default_rng(seed).integers(0, 2, (4, problem.n))
        search = local_search(problem, start, seed, pool=pool)
        search.run(2000)
        assert problem.cut_value(search.best) == pytest.approx(best)


#: graphs where every search is done at once, and their optima: an edgeless graph's independent
#: set, a complete graph's clique, a hub that dominates every node, a single node
NOTHING_TO_DO = [
    ("mis", 3, [], 3),
    ("maxclique", 4, list(itertools.combinations(range(4), 2)), 4),
    ("mds", 30, [(0, j) for j in range(1, 30)] + [(j, j + 1) for j in range(1, 29)], 1),
    ("mis", 1, [], 1),
    ("mds", 1, [], 1),
    ("maxclique", 1, [], 1),
]


@pytest.mark.parametrize("kind, n, edges, optimum", NOTHING_TO_DO)
@pytest.mark.parametrize("method", ["polish", "rlsa", "cam"])
def test_methods_with_a_polish_return_the_optimum_where_the_search_has_nothing_to_do(kind, n, edges, optimum, method):
    # an iteration of such a search takes no measurable time, and chunks sized from that outgrew
    # the kernels' int64 count (OverflowError)
    from cosolve import Solver

    problem = KINDS[kind](n, np.array(edges, dtype=np.int64).reshape(-1, 2))
    result = Solver(method, time_limit=0.1).solve(problem)  # thousands of chunks: they outgrew int64 in a few
    assert problem.evaluate(result.solution).feasible and result.objective == optimum
