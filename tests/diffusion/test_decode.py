"""Decoders always return feasible (and maximal / minimal / locally optimal) solutions."""

import numpy as np
import pytest

from cosolve.diffusion.decode import best_of, decode
from cosolve.generators.graphs import barabasi_albert, erdos_renyi


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


def test_independent_sets_and_cliques_are_maximal_and_follow_the_marginals():
    problem = erdos_renyi(30, 0.2, problem="mis", seed=5)
    p = np.random.default_rng(0).uniform(size=problem.n)
    (x,) = decode(problem, p[None, :])
    a = problem.adjacency
    for v in np.flatnonzero(x == 0):  # every unselected node has a selected neighbour
        assert x[a.indices[a.indptr[v] : a.indptr[v + 1]]].any()
    assert x[np.argmax(p)] == 1  # the most likely node is always taken
    expected = np.zeros(problem.n, np.int8)  # greedy by marginal: most likely first, while independent
    for v in np.argsort(-p, kind="stable"):
        if not expected[a.indices[a.indptr[v] : a.indptr[v + 1]]].any():
            expected[v] = 1
    assert np.array_equal(x, expected)
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
