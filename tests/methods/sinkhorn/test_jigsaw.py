"""Jigsaw: cutting and reassembling, the discontinuity objective, its expected value under a hard
permutation, the swap search, and the latent solver on an image it can reassemble."""

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import InputError
from cosolve.methods.sinkhorn.hungarian import permutation_matrix
from cosolve.methods.sinkhorn.jigsaw import expected_discontinuity, swap_search
from cosolve.problems.jigsaw import Jigsaw, cut
from tests.oracles import brute_force_permutation


def gradient_image(size=24):
    """A smooth colour image: continuity singles out the right arrangement."""
    y, x = np.mgrid[0:size, 0:size] / size
    return np.stack([x, y, 0.5 + 0.5 * np.sin(3 * x + 2 * y)], axis=-1)


def test_cut_then_reassemble_in_truth_order_gives_the_image_back():
    image = gradient_image()
    p = cut(image, 3, seed=4)
    assert p.sizes() == {"pieces": 9, "rows": 3, "columns": 3, "piece_size": 8}
    np.testing.assert_allclose(p.reassemble(p.truth), image)
    assert not np.allclose(p.reassemble(np.arange(9)), image)


def test_truth_is_more_continuous_than_any_other_arrangement_of_a_smooth_image():
    p = cut(gradient_image(), 2, seed=1)
    best = brute_force_permutation(4, lambda perm: -p.evaluate(np.array(perm)).objective)
    assert best == tuple(p.truth.tolist())


def test_expected_discontinuity_of_a_hard_permutation_is_the_discontinuity():
    p = cut(gradient_image(), 3, seed=2)
    perm = np.random.default_rng(0).permutation(9)
    right, below = (torch.tensor(a) for a in p.adjacency())
    value = expected_discontinuity(
        torch.tensor(permutation_matrix(perm)), torch.tensor(p.horizontal), torch.tensor(p.vertical), right, below
    )
    assert float(value) == pytest.approx(p.discontinuity(perm))


def test_swap_search_never_worsens():
    p = cut(gradient_image(), 3, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        start = rng.permutation(9)
        better = swap_search(p, start)
        assert sorted(better.tolist()) == list(range(9))
        assert p.discontinuity(better) <= p.discontinuity(start) + 1e-12


def test_bad_input():
    with pytest.raises(InputError, match="pieces must have shape"):
        Jigsaw(np.zeros((4, 3, 2)), (2, 2))
    with pytest.raises(InputError, match="holds 4 piece"):
        Jigsaw(np.zeros((3, 4, 4)), (2, 2))
    with pytest.raises(InputError, match="too small"):
        cut(np.zeros((5, 5)), 3)
    p = cut(gradient_image(), 2)
    assert not p.evaluate(np.array([0, 0, 1, 2])).feasible


def test_solver_reassembles_a_smooth_image():
    p = cut(gradient_image(), 3, seed=5)
    result = Solver("gumbel-sinkhorn", time_limit=60, rounds=2, latent_steps=200).solve(p)
    assert result.termination.value == "completed"
    assert result.solution.tolist() == p.truth.tolist()


def test_best_swap_kernel_agrees_with_full_evaluation():
    from cosolve.methods.sinkhorn.jigsaw import best_swap_kernel

    p = cut(gradient_image(30), 3, seed=7)
    rng = np.random.default_rng(3)
    for _ in range(5):
        perm = rng.permutation(9)
        piece_at = np.empty(9, np.int64)
        piece_at[perm] = np.arange(9)
        base = p.discontinuity(perm)
        gains = {}
        for a in range(8):
            for b in range(a + 1, 9):
                q = piece_at.copy()
                q[a], q[b] = q[b], q[a]
                moved = np.empty(9, np.int64)
                moved[q] = np.arange(9)
                gains[(a, b)] = base - p.discontinuity(moved)
        a, b, gain = best_swap_kernel(piece_at.copy(), p.horizontal, p.vertical, 3, 3)
        assert gain == pytest.approx(max(max(gains.values()), 0.0), abs=1e-9)
        if gain > 0:
            assert gains[(a, b)] == pytest.approx(gain)
