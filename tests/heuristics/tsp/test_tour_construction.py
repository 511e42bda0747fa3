"""Nearest neighbour and 2-opt: exact distances, the NN rule, 2-opt local optimality."""

import numpy as np
import pytest

from cosolve.heuristics.tsp.tour_construction import candidate_lists, nearest_neighbor_tour, two_opt
from cosolve.problems import TSP
from cosolve.problems.tsp_distances import tour_length


def reference_nn(d, start=0):
    n = len(d)
    tour, seen = [start], {start}
    for _ in range(n - 1):
        cur = tour[-1]
        nxt = min((c for c in range(n) if c not in seen), key=lambda c: (d[cur, c], c))
        tour.append(nxt)
        seen.add(nxt)
    return np.array(tour)


def improving_two_opt_move(d, tour):
    """The first (i, j) whose 2-opt exchange shortens the tour, or None."""
    n = len(tour)
    for i in range(n - 2):
        for j in range(i + 2, n if i > 0 else n - 1):
            a, b, c, e = tour[i], tour[i + 1], tour[j], tour[(j + 1) % n]
            if d[a, c] + d[b, e] < d[a, b] + d[c, e]:
                return i, j
    return None


def instance(seed, n, grid=False):
    rng = np.random.default_rng(seed)
    coords = rng.integers(0, 20, (n, 2)).astype(float) if grid else rng.uniform(0, 1000, (n, 2))
    return TSP(coords)


@pytest.mark.parametrize("seed", range(10))
def test_tour_length_uses_the_problem_distances(seed):
    p = instance(seed, 30, grid=seed % 2 == 0)
    tour = np.random.default_rng(seed).permutation(30)
    assert tour_length(p.coords, tour) == p.evaluate(tour).objective


@pytest.mark.parametrize("seed", range(10))
def test_nearest_neighbour_follows_the_rule_with_ties_by_index(seed):
    p = instance(seed, 40, grid=seed % 2 == 0)  # integer grid points: many ties
    tour = nearest_neighbor_tour(p.coords)
    assert np.array_equal(tour, reference_nn(p.distances))
    assert np.array_equal(nearest_neighbor_tour(p.coords, stop=lambda: False, work_per_check=1), tour)


@pytest.mark.parametrize("seed", range(15))
def test_two_opt_is_locally_optimal_and_no_worse_than_nearest_neighbour(seed):
    p = instance(seed, int(np.random.default_rng(seed).integers(3, 80)), grid=seed % 3 == 0)
    nn = nearest_neighbor_tour(p.coords)
    tour, converged = two_opt(p.coords, nn, work_per_check=100)
    assert converged and p.evaluate(tour).feasible
    assert improving_two_opt_move(p.distances, tour) is None
    assert tour_length(p.coords, tour) <= tour_length(p.coords, nn)


@pytest.mark.parametrize("seed", range(5))
def test_candidate_list_phase_then_sweeps_end_two_opt_optimal(seed):
    p = instance(seed, 150)
    lists = candidate_lists(p.coords, 6)
    nn = nearest_neighbor_tour(p.coords, neighbors=lists)
    assert p.evaluate(nn).feasible
    tour, converged = two_opt(p.coords, nn, neighbors=lists)
    assert converged and p.evaluate(tour).feasible
    assert improving_two_opt_move(p.distances, tour) is None
    assert tour_length(p.coords, tour) < tour_length(p.coords, nn)


def test_two_opt_uncrosses_a_crossing_tour():
    square = TSP(np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]]))
    assert improving_two_opt_move(square.distances, np.arange(4)) is not None  # 0-1-2-3 crosses
    tour, _ = two_opt(square.coords, np.arange(4))
    assert tour_length(square.coords, tour) == 40.0


def test_candidate_lists_exclude_the_city_itself_even_with_duplicate_points():
    coords = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [5.0, 0.0], [9.0, 0.0]])
    lists = candidate_lists(coords, 3)
    assert lists.shape == (5, 3)
    for c in range(5):
        assert c not in lists[c]
        d = np.hypot(*(coords[lists[c]] - coords[c]).T)
        assert np.all(np.diff(d) >= 0)


def test_stop_ends_two_opt_early_with_the_tour_unchanged():
    p = instance(0, 50)
    nn = nearest_neighbor_tour(p.coords)
    tour, converged = two_opt(p.coords, nn, stop=lambda: True)
    assert not converged and np.array_equal(tour, nn)
    assert nearest_neighbor_tour(p.coords, stop=lambda: True) is None


def _explicit(seed: int, n: int) -> TSP:
    w = np.random.default_rng(seed).integers(1, 100, (n, n)).astype(float)
    w = np.triu(w, 1)
    return TSP(weights=w + w.T, metric="EXPLICIT")


@pytest.mark.parametrize("metric", ["CEIL_2D", "ATT", "GEO", "EXPLICIT"])
def test_nn_and_two_opt_follow_every_metric(metric):
    """On each TSPLIB metric the heuristics use the problem's own distances: tour lengths agree
    with the matrix, NN is the reference rule on it, 2-opt ends with no improving move on it."""
    if metric == "EXPLICIT":
        p = _explicit(1, 25)
    else:
        coords = np.random.default_rng(2).uniform(-60, 60, (25, 2)).round(2)
        p = TSP(coords, metric=metric)
    d = p.distances
    nn = nearest_neighbor_tour(p.points, metric=p.metric_code)
    np.testing.assert_array_equal(nn, reference_nn(d))
    tour, converged = two_opt(p.points, nn, metric=p.metric_code)
    assert converged and improving_two_opt_move(d, tour) is None
    assert tour_length(p.points, tour, metric=p.metric_code) == sum(d[a, b] for a, b in zip(tour, np.roll(tour, -1), strict=True))


@pytest.mark.parametrize("metric", ["GEO", "EXPLICIT"])
def test_candidate_lists_of_non_planar_metrics_are_the_nearest_cities(metric):
    if metric == "EXPLICIT":
        p = _explicit(3, 40)
    else:
        p = TSP(np.random.default_rng(4).uniform(-60, 60, (40, 2)).round(2), metric="GEO")
    lists = candidate_lists(p.points, 6, metric=p.metric_code)
    d = p.distances
    for c in range(p.n):
        assert c not in lists[c] and np.all(np.diff(d[c, lists[c]]) >= 0)
        others = np.delete(d[c], c)
        assert d[c, lists[c][-1]] <= np.sort(others)[6 - 1]
