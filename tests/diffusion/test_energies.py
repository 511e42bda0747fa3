"""Energies, gradients and flip gains against brute force on tiny graphs."""

import numpy as np
import pytest

from cosolve.diffusion.energies import energy_for
from cosolve.generators.graphs import erdos_renyi
from tests.oracles import all_binary

KINDS = ["mis", "maxclique", "maxcut", "mds"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_energy_matches_the_problem_on_feasible_states(kind, seed):
    problem = erdos_renyi(7, 0.4, problem=kind, seed=seed, weighted=kind == "maxcut")
    energy = energy_for(problem)
    states = all_binary(problem.n, np.float64)
    values = energy.energy(states)
    for x, value in zip(states, values, strict=True):
        verdict = problem.evaluate(x.astype(np.int8))
        if verdict.feasible:  # the energy is the (negated, for maximisation) objective
            expected = -verdict.objective if problem.sense.value == "maximize" else verdict.objective
            assert value == pytest.approx(expected)
    # the minimum of the penalised energy is a feasible optimum
    best = states[np.argmin(values)].astype(np.int8)
    assert problem.evaluate(best).feasible


@pytest.mark.parametrize("kind", KINDS)
def test_flip_gains_are_exact(kind):
    problem = erdos_renyi(6, 0.5, problem=kind, seed=3, weighted=kind == "maxcut")
    energy = energy_for(problem)
    states = all_binary(problem.n, np.float64)
    gains = energy.flip_gain(states)
    base = energy.energy(states)
    for i in range(problem.n):
        flipped = states.copy()
        flipped[:, i] = 1 - flipped[:, i]
        np.testing.assert_allclose(gains[:, i], energy.energy(flipped) - base, atol=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_gradient_matches_finite_differences_at_fractional_points(kind):
    problem = erdos_renyi(6, 0.5, problem=kind, seed=4, weighted=kind == "maxcut")
    energy = energy_for(problem)
    x = np.random.default_rng(0).uniform(0.05, 0.95, (3, problem.n))
    grad = energy.grad(x)
    h = 1e-6
    for i in range(problem.n):
        up, down = x.copy(), x.copy()
        up[:, i] += h
        down[:, i] -= h
        np.testing.assert_allclose(grad[:, i], (energy.energy(up) - energy.energy(down)) / (2 * h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_node_energies_sum_to_the_energy(kind):
    problem = erdos_renyi(6, 0.5, problem=kind, seed=5, weighted=kind == "maxcut")
    energy = energy_for(problem)
    states = all_binary(problem.n, np.float64)
    np.testing.assert_allclose(energy.node_energy(states).sum(axis=1), energy.energy(states), atol=1e-9)
