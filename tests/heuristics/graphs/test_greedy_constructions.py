"""Graph heuristics: maximality, minimality, local optimality, and brute force where greedy is exact."""

import itertools

import networkx as nx
import numpy as np
import pytest

from cosolve.heuristics.graphs.greedy_constructions import (
    clique_starts,
    greedy_clique,
    greedy_dominating_set,
    maxcut_local_search,
    min_degree_mis,
    weighted_adjacency,
)
from cosolve.problems import MaxCut, MaximumClique, MaximumIndependentSet, MinimumDominatingSet
from tests.oracles import brute_force_binary


def random_edges(rng, n, p):
    return np.array([(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p], dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(20))
def test_mis_is_independent_and_maximal(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    g = MaximumIndependentSet(n, random_edges(rng, n, rng.uniform(0.0, 0.4)))
    x = min_degree_mis(g.adjacency)
    assert g.evaluate(x).feasible
    blocked = x.astype(np.int32) + g.adjacency @ x.astype(np.int32)
    assert blocked.min() >= 1  # every node is in the set or has a neighbour in it


@pytest.mark.parametrize("seed", range(20))
def test_min_degree_greedy_is_optimal_on_forests(seed):
    rng = np.random.default_rng(50 + seed)
    n = 12
    tree = nx.random_labeled_tree(n, seed=seed) if hasattr(nx, "random_labeled_tree") else nx.random_tree(n, seed=seed)
    edges = np.array(tree.edges, dtype=np.int64)
    edges = edges[rng.random(len(edges)) < 0.8]  # a forest
    g = MaximumIndependentSet(n, edges)
    assert min_degree_mis(g.adjacency).sum() == brute_force_binary(g)


def test_min_degree_greedy_avoids_the_hub_of_a_star():
    g = MaximumIndependentSet(6, np.array([[0, k] for k in range(1, 6)]))
    assert list(min_degree_mis(g.adjacency)) == [0, 1, 1, 1, 1, 1]


@pytest.mark.parametrize("seed", range(15))
def test_greedy_clique_is_a_maximal_clique_no_larger_than_omega(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    g = MaximumClique(n, random_edges(rng, n, rng.uniform(0.1, 0.9)))
    omega = max(len(c) for c in nx.find_cliques(nx.from_scipy_sparse_array(g.adjacency)))
    for start in clique_starts(g.degrees, 5):
        clique = greedy_clique(g.adjacency, start)
        x = np.zeros(n, np.int8)
        x[clique] = 1
        assert clique[0] == start and g.evaluate(x).feasible and len(clique) <= omega
        common = np.asarray(g.adjacency[:, clique].sum(axis=1)).ravel()
        assert not np.any((common == len(clique)) & (x == 0))  # no node extends it


def test_greedy_clique_finds_a_planted_clique():
    rng = np.random.default_rng(1)
    n, planted = 60, np.arange(10, 19)
    edges = np.vstack([random_edges(rng, n, 0.08), np.array(list(itertools.combinations(planted, 2)))])
    g = MaximumClique(n, edges)
    best = max(len(greedy_clique(g.adjacency, s)) for s in clique_starts(g.degrees, 5))
    assert best == len(planted)


def test_clique_starts_are_highest_degree_first_ties_by_index():
    assert list(clique_starts(np.array([1, 3, 3, 0, 2]), 3)) == [1, 2, 4]


def flip_gains(g, x):
    w = np.zeros(g.n)
    same = x[g.edges[:, 0]] == x[g.edges[:, 1]]
    signed = np.where(same, g.weights, -g.weights)
    np.add.at(w, g.edges[:, 0], signed)
    np.add.at(w, g.edges[:, 1], signed)
    return w


@pytest.mark.parametrize("seed", range(20))
def test_maxcut_local_search_ends_one_flip_optimal_and_never_worse(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    edges = random_edges(rng, n, rng.uniform(0.02, 0.5))
    weights = rng.normal(1.0, 1.0, len(edges)) if seed % 2 else rng.integers(1, 10, len(edges)).astype(float)
    g = MaxCut(n, edges, weights=weights)
    start = rng.integers(0, 2, n).astype(np.int8)
    x, converged = maxcut_local_search(weighted_adjacency(n, g.edges, g.weights), start, moves_per_check=7)
    assert converged and g.evaluate(x).feasible
    assert flip_gains(g, x).max(initial=0.0) <= 1e-9
    assert g.cut_value(x) >= g.cut_value(start) - 1e-9
    if seed % 2 == 0:  # non-negative weights: a 1-flip optimum cuts at least half the weight
        assert g.cut_value(x) >= g.weights.sum() / 2


def test_maxcut_flip_gains_are_checked_by_the_test_helper():
    g = MaxCut(3, np.array([[0, 1], [1, 2]]))
    assert flip_gains(g, np.array([0, 0, 0], np.int8)).max() > 0  # the helper can see an improving flip
    x, _ = maxcut_local_search(weighted_adjacency(3, g.edges, g.weights), np.zeros(3, np.int8))
    assert g.cut_value(x) == 2.0


def test_maxcut_stop_returns_the_current_sides():
    g = MaxCut(4, np.array([[0, 1], [1, 2], [2, 3]]))
    start = np.zeros(4, np.int8)
    x, converged = maxcut_local_search(weighted_adjacency(4, g.edges, g.weights), start, stop=lambda: True)
    assert not converged and np.array_equal(x, start)


@pytest.mark.parametrize("seed", range(30))
def test_dominating_set_is_minimal_and_within_the_greedy_bound(seed):
    rng = np.random.default_rng(seed)
    n = 12
    g = MinimumDominatingSet(n, random_edges(rng, n, rng.uniform(0.05, 0.5)))
    x = greedy_dominating_set(g.adjacency)
    assert g.evaluate(x).feasible
    for v in np.flatnonzero(x):  # minimal: dropping any chosen node leaves someone undominated
        y = x.copy()
        y[v] = 0
        assert not g.evaluate(y).feasible
    opt = brute_force_binary(g)
    harmonic = sum(1.0 / k for k in range(1, int(g.degrees.max(initial=0)) + 2))
    assert opt <= x.sum() <= harmonic * opt + 1e-9


def test_dominating_set_takes_the_centre_of_a_star_then_what_is_left():
    # star 0-{1,2,3,4} plus a path 5-6: greedy takes 0 (dominates 5), then 5 (ties by index)
    g = MinimumDominatingSet(7, np.array([[0, 1], [0, 2], [0, 3], [0, 4], [5, 6]]))
    assert list(greedy_dominating_set(g.adjacency)) == [1, 0, 0, 0, 0, 1, 0]
