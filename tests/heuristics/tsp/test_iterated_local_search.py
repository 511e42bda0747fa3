"""2-opt + Or-opt with don't-look bits and the ILS: segment moves against list surgery, local
optimality against brute-force move enumeration, exact length bookkeeping, known optima, and the
greedy edge construction against a reference implementation."""

import itertools

import numpy as np
import pytest

from cosolve import Solver
from cosolve.generators.tsp import random_tsp
from cosolve.heuristics.numba_random import seed_numba_random
from cosolve.heuristics.tsp.iterated_local_search import OR_OPT_SEGMENT, TourSearch, _move_segment, iterated_local_search
from cosolve.heuristics.tsp.tour_construction import candidate_lists, greedy_edge_tour, nearest_neighbor_tour
from cosolve.problems import TSP
from cosolve.problems.tsp_distances import tour_length
from tests.heuristics.tsp.test_tour_construction import improving_two_opt_move, instance
from tests.oracles import brute_force_tsp


def cycle_equal(a, b):
    """Whether two tours are the same cyclic sequence (same direction)."""
    a, b = list(a), list(b)
    k = b.index(a[0])
    return a == b[k:] + b[:k]


def as_cycle_from(tour, city):
    k = list(tour).index(city)
    return list(tour[k:]) + list(tour[:k])


@pytest.mark.parametrize("n", [6, 9])
def test_move_segment_matches_list_surgery_for_every_segment_place_and_direction(n):
    rng = np.random.default_rng(n)
    base = rng.permutation(n).astype(np.int64)
    for i, length in itertools.product(range(n), range(1, OR_OPT_SEGMENT + 1)):
        if length + 3 > n:
            continue
        segment = [base[(i + t) % n] for t in range(length)]
        for u in base:
            rest = [c for c in as_cycle_from(base, base[(i + length) % n]) if c not in segment]  # q .. p
            if u in segment or u == rest[-1]:  # u = p puts the segment back where it was
                continue
            for reverse in (False, True):
                tour = base.copy()
                pos = np.empty(n, np.int64)
                pos[tour] = np.arange(n)
                _move_segment(tour, pos, segment[0], length, int(u), reverse)
                k = rest.index(u)
                expected = rest[: k + 1] + (segment[::-1] if reverse else segment) + rest[k + 1 :]
                assert cycle_equal(tour, expected), (i, length, u, reverse)
                assert np.array_equal(pos[tour], np.arange(n))


def improving_or_opt_move(d, tour, neighbor_sets):
    """An Or-opt move that the candidate-list search must find: a segment of 1-3 cities moved
    (either way round) between two adjacent cities u, v, shortening the tour, where the city u or v
    joins to is a candidate of that segment end and closer to it than the gain of cutting it out."""
    n = len(tour)
    for i, length in itertools.product(range(n), range(1, OR_OPT_SEGMENT + 1)):
        if length + 3 > n:
            continue
        seg = [tour[(i + t) % n] for t in range(length)]
        p, q = tour[(i - 1) % n], tour[(i + length) % n]
        gain = d[p, seg[0]] + d[seg[-1], q] - d[p, q]
        for k in range(n):
            u, v = tour[k], tour[(k + 1) % n]
            if u in seg or v in seg or (u == p and v == q):
                continue
            for x, y in ((seg[0], seg[-1]), (seg[-1], seg[0])):  # u x .. y v
                delta = d[u, x] + d[y, v] - d[u, v] - gain
                found = (u in neighbor_sets[x] and d[u, x] < gain) or (v in neighbor_sets[y] and d[v, y] < gain)
                if delta < -1e-9 and found:
                    return seg, u, v
    return None


@pytest.mark.parametrize("seed", range(6))
def test_descent_ends_at_a_two_opt_and_or_opt_local_optimum(seed):
    p = instance(seed, 40, grid=seed % 2 == 0)
    d = p.distances
    lists = candidate_lists(p.coords, 39)  # every city a candidate: 2-opt optimality is then exact
    start = np.random.default_rng(seed).permutation(40).astype(np.int64)
    search = TourSearch(p.points, p.metric_code, lists, start)
    assert search.descend()
    assert sorted(search.tour.tolist()) == list(range(40))
    assert search.length == tour_length(p.coords, search.tour) < tour_length(p.coords, start)
    assert improving_two_opt_move(d, search.tour) is None
    assert improving_or_opt_move(d, search.tour, [set(row) for row in lists]) is None


@pytest.mark.parametrize("seed", range(3))
def test_short_candidate_lists_still_end_at_an_or_opt_optimum_for_their_candidates(seed):
    p = instance(seed, 60)
    lists = candidate_lists(p.coords, 5)
    search = TourSearch(p.points, p.metric_code, lists, nearest_neighbor_tour(p.coords))
    search.descend()
    assert improving_or_opt_move(p.distances, search.tour, [set(row) for row in lists]) is None
    assert search.length == tour_length(p.coords, search.tour)


def test_two_opt_alone_leaves_or_opt_moves_that_or_opt_takes():
    p = instance(3, 80)
    lists = candidate_lists(p.coords, 8)
    nn = nearest_neighbor_tour(p.coords)
    two = TourSearch(p.points, p.metric_code, lists, nn, or_opt=False)
    two.descend()
    both = TourSearch(p.points, p.metric_code, lists, nn)
    both.descend()
    assert improving_or_opt_move(p.distances, two.tour, [set(row) for row in lists]) is not None
    assert both.length < two.length


def test_kicks_keep_the_length_exact_and_never_lengthen_the_tour():
    p = instance(5, 200)
    lists = candidate_lists(p.coords, 8)
    search = TourSearch(p.points, p.metric_code, lists, nearest_neighbor_tour(p.coords))
    search.descend()
    seed_numba_random(1)
    previous = search.length
    for _ in range(20):
        search.iterate(200)
        assert search.length <= previous
        assert search.length == tour_length(p.coords, search.tour)
        assert sorted(search.tour.tolist()) == list(range(200))
        assert np.array_equal(search.pos[search.tour], np.arange(200))
        previous = search.length
    assert search.improvements > 0


def test_iterating_before_a_local_optimum_is_refused():
    p = instance(0, 30)
    search = TourSearch(p.points, p.metric_code, candidate_lists(p.coords, 5), np.arange(30))
    with pytest.raises(RuntimeError, match="descend"):
        search.iterate(10)


def test_the_ils_reaches_the_tsplib_optimum_of_eil51_and_berlin52():
    from pathlib import Path

    import cosolve

    root = Path(__file__).resolve().parents[3] / "instances" / "tsplib"
    for name, optimum in (("eil51", 426), ("berlin52", 7542)):
        p = cosolve.read(root / f"{name}.tsp")
        lists = candidate_lists(p.points, 10, metric=p.metric_code)
        search = TourSearch(p.points, p.metric_code, lists, greedy_edge_tour(p.points, lists, metric=p.metric_code))
        seed_numba_random(0)
        offers: list[float] = []
        assert iterated_local_search(search, stop=lambda: False, offer=lambda t, v, seen=offers: seen.append(v), kicks=20_000)
        assert search.length == optimum == p.tour_length(search.tour)
        assert offers == sorted(offers, reverse=True) and offers[-1] == optimum


@pytest.mark.parametrize("seed", range(3))
def test_ils_method_reaches_brute_force_optima_of_small_instances(seed):
    problem = random_tsp(9, seed=seed)
    result = Solver("ils", time_limit=None, seed=seed).solve(problem)
    assert result.termination.value == "completed"
    assert result.objective == brute_force_tsp(problem)
    assert result.stats["kicks"] == 900


def test_ils_method_stops_at_its_time_limit_with_a_valid_tour():
    problem = random_tsp(400, seed=1)
    result = Solver("ils", time_limit=0.3, start="nearest-neighbor").solve(problem)
    assert result.termination.value == "time_limit"
    assert problem.evaluate(result.solution).feasible
    assert result.objective < result.trace[0].objective


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_ils_method_on_tiny_instances(n):
    problem = random_tsp(n, seed=0)
    result = Solver("ils", time_limit=0.3).solve(problem)  # the optimum of 8 cities comes within milliseconds
    assert problem.evaluate(result.solution).feasible
    if n >= 4:
        assert result.objective == brute_force_tsp(problem)


def reference_greedy_fragments(d):
    """The edges the greedy edge rule takes over all pairs (shortest first, ties by (i, j))."""
    n = len(d)
    parent = list(range(n))

    def root(x):
        while parent[x] != x:
            x = parent[x]
        return x

    degree = [0] * n
    taken = set()
    pairs = sorted((d[a, b], a, b) for a in range(n) for b in range(a + 1, n))
    for _, i, j in pairs:
        if degree[i] < 2 and degree[j] < 2 and root(i) != root(j):
            parent[root(i)] = root(j)
            degree[i] += 1
            degree[j] += 1
            taken.add((i, j))
    return taken


@pytest.mark.parametrize("seed", range(5))
def test_greedy_edge_tour_holds_every_edge_the_greedy_rule_takes(seed):
    rng = np.random.default_rng(seed)
    p = TSP(rng.uniform(0, 1000, (25, 2)))  # distinct lengths almost surely: no ties to break
    tour = greedy_edge_tour(p.points, candidate_lists(p.coords, 24))
    assert sorted(tour.tolist()) == list(range(25))
    edges = {tuple(sorted((int(tour[k]), int(tour[(k + 1) % 25])))) for k in range(25)}
    fragments = reference_greedy_fragments(p.distances)
    assert len(fragments) == 24 and fragments <= edges


def test_greedy_edge_tour_follows_the_scores():
    rng = np.random.default_rng(7)
    p = TSP(rng.uniform(0, 1000, (30, 2)))
    lists = candidate_lists(p.coords, 29)
    wanted = rng.permutation(30)
    succ = np.empty(30, np.int64)
    succ[wanted] = np.roll(wanted, -1)
    pred = np.empty(30, np.int64)
    pred[wanted] = np.roll(wanted, 1)
    scores = ((lists == succ[:, None]) | (lists == pred[:, None])).astype(float)
    tour = greedy_edge_tour(p.points, lists, scores=scores)
    assert cycle_equal(tour, wanted) or cycle_equal(tour[::-1], wanted)


def test_greedy_edge_tour_chains_fragments_when_candidates_run_out():
    rng = np.random.default_rng(3)
    coords = np.concatenate([rng.uniform(0, 10, (20, 2)), rng.uniform(1000, 1010, (20, 2))])  # two far clusters
    p = TSP(coords)
    tour = greedy_edge_tour(p.points, candidate_lists(coords, 3))
    assert sorted(tour.tolist()) == list(range(40))
