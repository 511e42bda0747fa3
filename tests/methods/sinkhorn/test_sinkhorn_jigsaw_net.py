"""The trained jigsaw network: shapes, the batched expected discontinuity against the per-instance
one, the pieces-in-place metrics, a short unsupervised training run that beats an untrained
network, the learner's errors, and ``Solver("gumbel-sinkhorn").fit(puzzles).solve(puzzle)``."""

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import UsageError
from cosolve.methods.sinkhorn.hungarian import permutation_matrix
from cosolve.methods.sinkhorn.jigsaw import expected_discontinuity, scaled_dissimilarities
from cosolve.methods.sinkhorn.jigsaw_net import JigsawNet, discontinuity_loss, puzzle_tensors, synthetic_puzzles
from cosolve.methods.sinkhorn.learner import PermutationLearner, untrained_score
from cosolve.methods.sinkhorn.operator import gumbel_sinkhorn
from cosolve.methods.sinkhorn.permutation_metrics import in_place, perfect
from cosolve.methods.sinkhorn.sorting import random_sequences
from cosolve.problems.jigsaw import Jigsaw
from tests.oracles import brute_force_permutation


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_network_and_tensor_shapes():
    net = JigsawNet(4, channels=3, hidden=16)
    assert net(torch.rand(2, 4, 3, 8, 8)).shape == (2, 4, 4)
    assert net(torch.rand(1, 4, 3, 2, 2)).shape == (1, 4, 4)  # the smallest pieces
    assert 1_000 <= sum(p.numel() for p in net.parameters()) <= 50_000
    with pytest.raises(ValueError, match=r"\(B, 4, 3, s, s\)"):
        net(torch.rand(2, 5, 3, 8, 8))
    puzzles = synthetic_puzzles(3, k=3, size=18, channels=3, seed=0)
    pieces, h, v, _ = puzzle_tensors(puzzles)
    assert pieces.shape == (3, 9, 3, 6, 6) and h.shape == v.shape == (3, 9, 9)
    assert torch.equal(pieces[1, 4], torch.tensor(puzzles[1].pieces[4], dtype=torch.float32).permute(2, 0, 1))
    assert JigsawNet(9, channels=3)(pieces).shape == (3, 9, 9)


def test_batched_expected_discontinuity_equals_the_per_instance_one():
    puzzles = synthetic_puzzles(3, k=3, size=12, seed=1)
    _, h, v, _ = puzzle_tensors(puzzles)
    right, below = (torch.tensor(a) for a in puzzles[0].adjacency())
    p = gumbel_sinkhorn(torch.randn(3, 9, 9, generator=torch.Generator().manual_seed(0)), 1.0, samples=2)  # (2, 3, 9, 9)
    batched = expected_discontinuity(p, h, v, right, below)
    assert batched.shape == (2, 3)
    for b, puzzle in enumerate(puzzles):
        hb, vb = scaled_dissimilarities(puzzle)
        single = expected_discontinuity(p[:, b], hb, vb, right, below)
        torch.testing.assert_close(batched[:, b], single)
    assert float(discontinuity_loss((3, 3))(p, None, h, v, None)) == pytest.approx(float(batched.mean()))
    # a hard arrangement: the loss is the discontinuity, scaled as the per-instance solver scales it
    perm = np.random.default_rng(0).permutation(9)
    hard = torch.tensor(permutation_matrix(perm), dtype=torch.float32)[None, None]
    scale = (puzzles[0].horizontal.mean() + puzzles[0].vertical.mean()) / 2
    value = discontinuity_loss((3, 3))(hard, None, h[:1], v[:1], None)
    assert float(value) == pytest.approx(puzzles[0].discontinuity(perm) / scale, rel=1e-5)


def test_pieces_in_place_metrics_on_hand_made_cases():
    true = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    pred = np.array([[0, 1, 2, 3], [3, 2, 0, 1]])
    assert in_place(pred, true) == pytest.approx(6 / 8)
    assert perfect(pred, true) == pytest.approx(1 / 2)
    assert in_place([1, 0, 2], [0, 1, 2]) == pytest.approx(1 / 3) and perfect([1, 0, 2], [0, 1, 2]) == 0.0
    assert in_place(true, true) == 1.0 and perfect(true, true) == 1.0
    with pytest.raises(ValueError, match="differ in shape"):
        in_place(pred, true[:1])


def test_synthetic_puzzles_are_reassembled_best_by_their_truth():
    for puzzle in synthetic_puzzles(5, seed=3):
        best = brute_force_permutation(4, lambda q, puzzle=puzzle: -puzzle.discontinuity(np.array(q)))
        assert list(best) == puzzle.truth.tolist()


@pytest.mark.parametrize("temperature", ["adaptive", "fixed", "annealed"])
def test_a_short_unsupervised_training_run_puts_more_pieces_in_place_than_an_untrained_network(temperature):
    train, test = synthetic_puzzles(256, seed=1), synthetic_puzzles(100, seed=2)
    before = untrained_score(test)
    learner = PermutationLearner(task="jigsaw", temperature=temperature, steps=100, seed=0, log_every=50).fit(train)
    after = learner.score(test)
    assert after["pieces_in_place"] > before + 0.3  # measured: untrained 0.485, trained 0.99 or more
    assert after["pieces_in_place"] > 0.9 and after["perfect"] > 0.8 and after["count"] == 100
    assert learner.log_.steps == [50, 100] and learner.log_.loss[-1] < learner.log_.loss[0]
    pred = learner.predict(test[:3])
    assert pred.shape == (3, 4) and all(sorted(row.tolist()) == [0, 1, 2, 3] for row in pred)


def test_learner_errors():
    two, three = synthetic_puzzles(2, k=2, size=12), synthetic_puzzles(2, k=3, size=12)
    with pytest.raises(UsageError, match="one grid and piece shape"):
        PermutationLearner(task="jigsaw", steps=1).fit(two + three)
    with pytest.raises(UsageError, match="one grid and piece shape"):  # same grid, other piece size
        PermutationLearner(task="jigsaw", steps=1).fit(two + synthetic_puzzles(2, k=2, size=16))
    with pytest.raises(UsageError, match="cannot train on sorting"):
        PermutationLearner(task="jigsaw", steps=1).fit(random_sequences(4, 2))
    untold = [Jigsaw(p.pieces, p.grid) for p in two]
    with pytest.raises(UsageError, match="needs puzzles that hold their true arrangement"):
        PermutationLearner(task="jigsaw", steps=1, objective="supervised").fit(untold)
    learner = PermutationLearner(task="jigsaw", steps=1, batch_size=2).fit(two)
    with pytest.raises(UsageError, match="fitted on jigsaw instances; got sorting"):
        learner.predict(random_sequences(4, 1))
    with pytest.raises(UsageError, match=r"with a 2 x 2 grid of 6 x 6 pieces.*other sizes \(a 3 x 3 grid"):
        learner.predict(three)
    with pytest.raises(UsageError, match="true arrangement"):
        learner.score([Jigsaw(two[0].pieces, (2, 2))])


def test_solver_fit_on_puzzles_then_solve():
    train, test = synthetic_puzzles(128, seed=4), synthetic_puzzles(3, seed=5)
    solver = Solver("gumbel-sinkhorn", time_limit=10, steps=60).fit(train)
    solved = 0
    for puzzle in test:
        result = solver.solve(puzzle)
        assert sorted(result.solution.tolist()) == [0, 1, 2, 3]
        assert result.objective == pytest.approx(puzzle.discontinuity(result.solution))
        assert result.termination.value == "completed" and "latent_runs" not in result.stats  # the network, not a latent run
        solved += result.solution.tolist() == puzzle.truth.tolist()
    assert solved >= 2
    with pytest.raises(UsageError, match="other sizes"):
        solver.solve(synthetic_puzzles(1, k=3, size=12)[0])
    with pytest.raises(UsageError, match="fitted on jigsaw instances; got sorting"):
        solver.solve(random_sequences(4, 1)[0])
    with pytest.raises(UsageError, match="one problem kind"):
        Solver("gumbel-sinkhorn").fit(train[:2] + random_sequences(4, 2))


def test_supervised_training_learns_the_true_positions():
    train = synthetic_puzzles(64, k=2, size=12, seed=1)
    test = synthetic_puzzles(32, k=2, size=12, seed=2)
    learner = PermutationLearner(task="jigsaw", objective="supervised", steps=60, batch_size=16, lr=1e-2, seed=0).fit(train)
    assert learner.score(test)["pieces_in_place"] > untrained_score(test) + 0.3
