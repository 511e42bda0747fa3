"""TSP as a latent permutation: the expected tour length of hard permutations is the tour length,
pinning keeps city 0 first, and the method returns valid tours that reach brute-force optima on
tiny instances and come within 3% of the optimum on berlin52 in two runs."""

from pathlib import Path

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import UsageError
from cosolve.generators.tsp import random_tsp
from cosolve.methods.sinkhorn.decode import permutation_matrix
from cosolve.methods.sinkhorn.operator import gumbel_sinkhorn
from cosolve.methods.sinkhorn.routing import expected_tour_length, pin_mask, scaled_distances, tour_of
from tests.oracles import brute_force_tsp

TSPLIB = Path(__file__).resolve().parents[3] / "instances" / "tsplib"


def test_expected_length_of_a_hard_permutation_is_its_tour_length():
    rng = np.random.default_rng(0)
    coords = rng.uniform(0, 1, (7, 2))
    d = scaled_distances(coords).double()
    perm = rng.permutation(7)
    tour = tour_of(perm)
    direct = sum(float(d[tour[k], tour[(k + 1) % 7]]) for k in range(7))
    p = torch.tensor(permutation_matrix(perm))
    assert float(expected_tour_length(p, d)) == pytest.approx(direct)
    assert float(expected_tour_length(p[None].expand(3, 7, 7), d).sum()) == pytest.approx(3 * direct)  # batched


def test_pin_mask_keeps_city_zero_at_position_zero():
    p = gumbel_sinkhorn(torch.randn(6, 6) + pin_mask(6), 0.7, samples=4)
    assert torch.allclose(p[:, 0, 0], torch.ones(4), atol=1e-6)
    assert float(p[:, 1:, 0].abs().max()) < 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_tiny_instances_reach_the_brute_force_optimum(seed):
    problem = random_tsp(7, seed=seed)
    best = brute_force_tsp(problem)
    result = Solver("gumbel-sinkhorn", time_limit=60, seed=seed, latent_steps=100, rounds=2).solve(problem)
    assert problem.evaluate(result.solution).feasible
    assert result.objective == best
    assert result.stats == {"latent_runs": 2}


def test_berlin52_within_three_percent_after_two_runs():
    result = Solver("gumbel-sinkhorn", time_limit=120, rounds=2).solve(TSPLIB / "berlin52.tsp")
    assert result.termination.value == "completed"
    assert sorted(result.solution.tolist()) == list(range(52))
    assert result.objective <= 1.03 * 7542


def test_fit_on_tsp_is_refused():
    with pytest.raises(UsageError, match="per instance"):
        Solver("gumbel-sinkhorn").fit([random_tsp(5, seed=0)])


def test_training_options_on_a_solve_without_fit_are_refused():
    expected = r"lr=0\.1, objective='supervised': training option\(s\) of method gumbel-sinkhorn, used by fit only"
    with pytest.raises(UsageError, match=expected):
        Solver("gumbel-sinkhorn", time_limit=5, lr=0.1, objective="supervised").solve(random_tsp(6, seed=0))
