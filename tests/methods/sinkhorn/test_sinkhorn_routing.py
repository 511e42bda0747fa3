"""TSP as a sparse successor permutation: the loss of a hard tour is its scaled length with no
two-cycle mass, the hand-written Adam is torch's, and the method returns valid tours that reach
brute-force optima on tiny instances and the TSPLIB optimum of berlin52."""

from pathlib import Path

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import UsageError
from cosolve.generators.tsp import random_tsp
from cosolve.heuristics.tsp.tour_construction import candidate_lists
from cosolve.methods.sinkhorn.latent_tour import Adam, heat, successor_loss
from cosolve.methods.sinkhorn.sparse import SparsePattern
from tests.oracles import brute_force_tsp

TSPLIB = Path(__file__).resolve().parents[3] / "instances" / "tsplib"


def test_the_loss_of_a_hard_successor_permutation_is_its_length():
    problem = random_tsp(12, seed=3)
    lists = candidate_lists(problem.coords, 11)
    pattern = SparsePattern.symmetric(lists)
    tour = np.random.default_rng(0).permutation(12)
    p = torch.zeros(1, len(pattern.rows), dtype=torch.float64)
    p[0, pattern.index_of(tour, np.roll(tour, -1))] = 1.0
    lengths = torch.tensor(problem.distances[pattern.rows.numpy(), pattern.cols.numpy()])
    assert float(successor_loss(p, lengths, pattern, 5.0)) == pytest.approx(problem.tour_length(tour))
    two_cycle = torch.zeros_like(p)
    two_cycle[0, pattern.index_of([0, 1], [1, 0])] = 1.0
    assert float(successor_loss(two_cycle, lengths * 0, pattern, 5.0)) == pytest.approx(10.0)  # both halves count
    h = heat(p[0], pattern, pattern.index_of(np.repeat(np.arange(12), 11), lists.ravel()).reshape(12, 11))
    on_tour = (lists == np.roll(tour, -1)[np.argsort(tour)][:, None]) | (lists == np.roll(tour, 1)[np.argsort(tour)][:, None])
    assert np.array_equal(h, on_tour.astype(float))  # an edge of the tour is hot whichever way it is walked


def test_adam_is_torchs():
    x = torch.randn(20, requires_grad=True)
    y = x.detach().clone().requires_grad_(True)
    mine, theirs = Adam(x, 0.05), torch.optim.Adam([y], lr=0.05)
    weights = torch.arange(20.0)
    for _ in range(30):
        x.grad = None
        (weights * x**2).sum().backward()
        mine.step()
        theirs.zero_grad()
        (weights * y**2).sum().backward()
        theirs.step()
    assert torch.allclose(x, y, atol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_tiny_instances_reach_the_brute_force_optimum(seed):
    problem = random_tsp(8, seed=seed)
    result = Solver("gumbel-sinkhorn", time_limit=60, seed=seed, latent_steps=50, rounds=1).solve(problem)
    assert problem.evaluate(result.solution).feasible
    assert result.objective == brute_force_tsp(problem)
    assert result.stats["sinkhorn_steps"] == 50 and result.stats["decoded"] >= 1


@pytest.mark.parametrize("temperature", ["adaptive", "fixed", "annealed"])
def test_berlin52_reaches_its_optimum_without_a_time_limit(temperature):
    result = Solver("gumbel-sinkhorn", time_limit=None, latent_steps=100, temperature=temperature).solve(TSPLIB / "berlin52.tsp")
    assert result.termination.value == "completed"
    assert sorted(result.solution.tolist()) == list(range(52))
    assert result.objective == 7542
    assert result.stats["kicks"] == 5200


def test_the_sinkhorn_phase_keeps_to_its_share_of_the_time_limit():
    result = Solver("gumbel-sinkhorn", time_limit=0.5, sinkhorn_share=0.0).solve(random_tsp(300, seed=1))
    assert result.termination.value == "time_limit"
    assert result.stats["sinkhorn_steps"] == 0  # then the greedy edge tour by length starts the local search
    assert result.stats["kicks"] > 0


def test_training_options_on_a_solve_without_fit_are_refused():
    expected = r"lr=0\.1, objective='supervised': training option\(s\) of method gumbel-sinkhorn, used by fit only"
    with pytest.raises(UsageError, match=expected):
        Solver("gumbel-sinkhorn", time_limit=5, lr=0.1, objective="supervised").solve(random_tsp(6, seed=0))
