"""Decoders always return feasible (and maximal / minimal / locally optimal) solutions."""

import numpy as np
import pytest

from cosolve.diffusion.decode import best_of, decode
from cosolve.generators.graphs import barabasi_albert, erdos_renyi
from cosolve.heuristics.graphs.greedy_constructions import min_degree_mis
from cosolve.problems import MaximumIndependentSet
from tests.oracles import brute_force_binary


@pytest.mark.parametrize("kind", ["mis", "maxclique", "maxcut", "mds"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decoded_solutions_are_feasible(kind, seed):
    problem = erdos_renyi(40, 0.15, problem=kind, seed=seed) if seed else barabasi_albert(40, 3, problem=kind, seed=seed)
    marginals = np.random.default_rng(seed).uniform(size=(5, problem.n))
    solutions = decode(problem, marginals)
    assert solutions.shape == (5, problem.n) and solutions.dtype == np.int8
    for x in solutions:
        assert problem.evaluate(x).feasible
    best, value = best_of(problem, solutions)
    values = [problem.evaluate(x).objective for x in solutions]
    assert value == (max(values) if problem.sense.value == "maximize" else min(values))
    assert problem.evaluate(best).objective == value


def _greedy_by_marginal(a, p, nodes):
    """The independent set the nodes ``nodes`` give when taken by decreasing ``p`` while independent."""
    x = np.zeros(a.shape[0], np.int8)
    for v in sorted(nodes, key=lambda v: (-p[v], v)):
        if not x[a.indices[a.indptr[v] : a.indptr[v + 1]]].any():
            x[v] = 1
    return x


def test_independent_sets_and_cliques_are_maximal_and_follow_the_marginals():
    problem = erdos_renyi(30, 0.2, problem="mis", seed=5)
    p = np.random.default_rng(0).uniform(size=problem.n)
    (x,) = decode(problem, p[None, :])
    a = problem.adjacency
    for v in np.flatnonzero(x == 0):  # every unselected node has a selected neighbour
        assert x[a.indices[a.indptr[v] : a.indptr[v + 1]]].any()
    assert x[np.argmax(p)] == 1  # the most likely node is always taken
    chosen = np.flatnonzero(p > 0.5)  # the selected nodes: most likely first, while independent
    assert np.array_equal(x[chosen], _greedy_by_marginal(a, p, chosen)[chosen])
    clique_problem = erdos_renyi(30, 0.5, problem="maxclique", seed=5)
    (c,) = decode(clique_problem, p[None, :])
    dense = clique_problem.adjacency.toarray()
    chosen = np.flatnonzero(c)
    for v in np.flatnonzero(c == 0):  # no node can be added to the clique
        assert not dense[v, chosen].all()


def test_dominating_sets_are_minimal_and_cuts_locally_optimal():
    mds = erdos_renyi(30, 0.15, problem="mds", seed=6)
    (x,) = decode(mds, np.zeros((1, mds.n)))
    for v in np.flatnonzero(x):
        y = x.copy()
        y[v] = 0
        assert not mds.evaluate(y).feasible
    cut = erdos_renyi(30, 0.2, problem="maxcut", seed=6, weighted=True)
    (s,) = decode(cut, np.full((1, cut.n), 0.7))
    value = cut.evaluate(s).objective
    for v in range(cut.n):
        t = s.copy()
        t[v] = 1 - t[v]
        assert cut.evaluate(t).objective <= value + 1e-9


def test_independent_sets_take_the_sampled_states_then_complete_by_min_degree():
    problem = erdos_renyi(40, 0.15, problem="mis", seed=3)
    a = problem.adjacency
    rng = np.random.default_rng(1)
    p = rng.uniform(size=(3, problem.n)) * 0.4  # no marginal above 1/2: nothing is selected
    states = (rng.random((3, problem.n)) < 0.2).astype(np.int8)
    greedy = min_degree_mis(a)
    assert all(np.array_equal(x, greedy) for x in decode(problem, p))  # the min-degree greedy alone
    for x, s, q in zip(decode(problem, p, states), states, p, strict=True):
        chosen = np.flatnonzero(s)  # the state's ones, by decreasing marginal, while independent
        assert np.array_equal(x[chosen], _greedy_by_marginal(a, q, chosen)[chosen])
        assert problem.evaluate(x).feasible
        for v in np.flatnonzero(x == 0):
            assert x[a.indices[a.indptr[v] : a.indptr[v + 1]]].any()


@pytest.mark.parametrize("seed", range(5))
def test_the_completion_is_the_min_degree_greedy_optimal_on_forests(seed):
    """On a forest the min-degree greedy is exact, so after the state's nodes the decoded set is a
    maximum independent set of what they left free (brute force)."""
    rng = np.random.default_rng(seed)
    n = 16
    parents = [int(rng.integers(0, v)) for v in range(1, n)]
    edges = np.array([(u, v + 1) for v, u in enumerate(parents) if rng.random() < 0.85], dtype=np.int64).reshape(-1, 2)
    problem = MaximumIndependentSet(n, edges)
    a = problem.adjacency
    state = np.zeros((1, n), np.int8)
    state[0, rng.choice(n, 3, replace=False)] = 1
    (x,) = decode(problem, rng.random((1, n)) * 0.4, state)
    taken = np.flatnonzero(state[0] & x)
    free = np.ones(n, bool)
    free[taken] = False
    for v in taken:
        free[a.indices[a.indptr[v] : a.indptr[v + 1]]] = False
    sub = np.flatnonzero(free)
    keep = np.isin(edges, sub).all(axis=1)
    relabel = {v: k for k, v in enumerate(sub)}
    kept = np.array([[relabel[u], relabel[v]] for u, v in edges[keep]], np.int64).reshape(-1, 2)
    residual = MaximumIndependentSet(len(sub), kept)
    assert x.sum() == len(taken) + (brute_force_binary(residual) if len(sub) else 0)
