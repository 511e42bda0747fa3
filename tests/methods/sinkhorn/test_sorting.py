"""The sorting problem, its losses, the learner (a short run beats an untrained network) and the
``gumbel-sinkhorn`` method through the Solver."""

import itertools

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import InputError, UsageError
from cosolve.methods.sinkhorn.hungarian import permutation_matrix
from cosolve.methods.sinkhorn.learner import PermutationLearner, untrained_score
from cosolve.methods.sinkhorn.sorting import SortingNet, random_sequences, sortedness_loss, supervised_loss
from cosolve.problems.sorting import Sorting, inversions


def test_inversions_against_counting_pairs():
    rng = np.random.default_rng(0)
    for _ in range(100):
        y = rng.integers(0, 6, rng.integers(0, 15))
        assert inversions(y) == sum(y[i] > y[j] for i in range(len(y)) for j in range(i + 1, len(y)))


def test_sorting_problem_evaluates_permutations():
    p = Sorting(np.array([0.3, 0.1, 0.2]))
    assert p.true_permutation().tolist() == [2, 0, 1]
    assert p.evaluate(np.array([2, 0, 1])).objective == 0
    assert p.evaluate(np.array([0, 1, 2])).objective == 2  # (0.3, 0.1, 0.2): two pairs out of order
    bad = p.evaluate(np.array([0, 0, 1]))
    assert not bad.feasible and "position 0 is not taken exactly once" in bad.violation
    with pytest.raises(InputError, match="permutation of length 3"):
        p.evaluate(np.array([0, 1]))
    with pytest.raises(InputError, match="non-empty"):
        Sorting(np.array([]))
    with pytest.raises(InputError, match="finite"):
        Sorting(np.array([1.0, np.nan]))


def test_sortedness_is_largest_exactly_at_the_sorting_permutation_and_shift_invariant():
    x = torch.tensor([[0.4, 0.9, 0.1, 0.5]], dtype=torch.float64)
    losses = {}
    for perm in itertools.permutations(range(4)):
        p = torch.tensor(permutation_matrix(np.array(perm)))[None, None]
        losses[perm] = float(sortedness_loss(p, x))
        assert float(sortedness_loss(p, x + 10)) == pytest.approx(losses[perm])
    best = min(losses, key=losses.get)
    assert list(best) == Sorting(x[0].numpy()).true_permutation().tolist()
    assert sorted(losses.values())[1] > losses[best] + 1e-9
    uniform = torch.full((1, 1, 4, 4), 0.25, dtype=torch.float64)
    assert float(sortedness_loss(uniform, x)) == pytest.approx(0.0) and losses[best] < 0
    p_best = torch.tensor(permutation_matrix(np.array(best)))[None, None]
    assert float(supervised_loss(p_best, x)) == pytest.approx(0.0)


def test_network_shapes():
    net = SortingNet(6)
    assert net(torch.rand(3, 6)).shape == (3, 6, 6)
    with pytest.raises(ValueError, match="sorts 6 numbers"):
        net(torch.rand(3, 5))


@pytest.mark.parametrize("temperature", ["adaptive", "fixed", "annealed"])
def test_a_short_training_run_beats_an_untrained_network(temperature):
    train = random_sequences(8, 512, seed=1)
    test = random_sequences(8, 100, seed=2)
    before = untrained_score(test)
    learner = PermutationLearner(temperature=temperature, steps=150, lr=1e-2, seed=0, log_every=50).fit(train)
    after = learner.score(test)
    assert after["kendall_tau"] > max(before, 0.0) + 0.3
    assert after["kendall_tau"] > 0.9
    assert learner.log_.steps == [50, 100, 150] and learner.train_time_ > 0
    assert 0 <= after["wrong_positions"] <= 1 and 0 <= after["any_error"] <= 1


def test_learner_errors():
    with pytest.raises(UsageError, match="not fitted"):
        PermutationLearner().predict(random_sequences(4, 1))
    with pytest.raises(UsageError, match="one size"):
        PermutationLearner(steps=1).fit(random_sequences(4, 2) + random_sequences(5, 2))
    with pytest.raises(UsageError, match="valid: unsupervised, supervised"):
        PermutationLearner(steps=1, objective="labels").fit(random_sequences(4, 2))
    with pytest.raises(UsageError, match="other sizes"):
        PermutationLearner(steps=1).fit(random_sequences(4, 2)).predict(random_sequences(5, 1))
    with pytest.raises(UsageError, match="at least one instance"):
        PermutationLearner(steps=1).fit(random_sequences(4, 2)).predict([])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"temperature": "hot"}, "valid: adaptive, fixed, annealed"),
        ({"steps": -1}, "steps=-1: must be an integer of at least 0"),
        ({"batch_size": 0}, "batch_size=0"),
        ({"lr": float("nan")}, "lr=nan: must be a positive finite number"),
        ({"start": 0.0}, "start=0.0"),
        ({"threshold": 1.0}, r"threshold=1.0: must lie in \[0, 1\)"),
        ({"max_boost": -0.5}, "max_boost=-0.5"),
        ({"task": "tsp"}, "unknown task 'tsp'"),
    ],
)
def test_learner_parameters_are_checked_by_fit(params, message):
    learner = PermutationLearner(**{"steps": 1, **params})  # scikit-learn style: __init__ only stores
    with pytest.raises(UsageError, match=message):
        learner.fit(random_sequences(4, 2))


def test_solver_fit_then_solve_and_latent_solve_without_fit():
    train, test = random_sequences(6, 256, seed=3), random_sequences(6, 5, seed=4)
    solver = Solver("gumbel-sinkhorn", time_limit=5, steps=150).fit(train)
    learner, predicted = solver.method_.learner_, []
    predict = learner.predict
    learner.predict = lambda instances: predicted.extend(p.name for p in instances) or predict(instances)
    results = [solver.solve(p) for p in test]
    assert [name for name in predicted if name != "warm-up"] == [p.name for p in test]  # every solve used the network
    assert all(r.solution is not None and sorted(r.solution.tolist()) == list(range(6)) for r in results)
    assert np.mean([r.objective == 0 for r in results]) >= 0.6
    assert all(r.status.value == "optimal" for r in results if r.objective == 0)
    with pytest.raises(UsageError, match="6 items"):
        solver.solve(Sorting(np.arange(7.0)))
    latent = Solver("gumbel-sinkhorn", time_limit=5, latent_steps=300).solve(test[0])
    assert latent.objective == 0 and latent.status.value == "optimal" and latent.termination.value == "completed"


def test_a_fitted_network_saves_and_loads(tmp_path):
    train, test = random_sequences(5, 64, seed=3), random_sequences(5, 4, seed=4)
    solver = Solver("gumbel-sinkhorn", steps=20).fit(train, progress=False)
    solver.save(tmp_path / "net")
    loaded = Solver("gumbel-sinkhorn", checkpoint=str(tmp_path / "net"))
    for problem in test:
        assert np.array_equal(loaded.solve(problem).solution, solver.solve(problem).solution)
    card = (tmp_path / "net" / "README.md").read_text()
    assert "Gumbel–Sinkhorn checkpoint: sorting" in card and "64 sorting instances" in card
    with pytest.raises(UsageError, match=r"already holds model\.pt and README\.md; replace with overwrite=True"):
        solver.save(tmp_path / "net")  # a folder with a model is not replaced silently
    (tmp_path / "net" / "training.pt").write_bytes(b"another run's state")
    solver.save(tmp_path / "net", overwrite=True)
    assert not (tmp_path / "net" / "training.pt").exists()  # no resume may continue the replaced run
    with pytest.raises(UsageError, match="nothing to save yet"):
        Solver("gumbel-sinkhorn").save(tmp_path / "none")
    unfitted = Solver("gumbel-sinkhorn", time_limit=1)
    unfitted.solve(test[0])
    with pytest.raises(UsageError, match="no fitted network to save"):
        unfitted.save(tmp_path / "none")


def test_the_input_map_sends_the_training_range_to_the_offset_interval():
    net = SortingNet(4)
    net.calibrate(torch.tensor([[2.0, 3.0], [5.0, 4.0]]))
    assert float(net.low) == 2.0 and float(net.span) == 3.0
    hidden = net.layers[0]
    with torch.no_grad():
        out = net(torch.tensor([[2.0, 5.0, 3.5, 2.0]]))
        direct = net.layers(torch.tensor([[10.0, 11.0, 10.5, 10.0]]).unsqueeze(-1))
    assert torch.allclose(out, direct) and hidden.in_features == 1


def test_training_on_shifted_values_learns_the_same_permutations():
    """The sortedness loss ignores a shift of all values and the input map removes it: U(0,1) and
    the same draws plus 10 train the same network and sort held-out sequences the same way."""
    low = random_sequences(8, 64, seed=3)
    high = [Sorting(p.values + 10.0) for p in low]
    test = random_sequences(8, 16, seed=4)
    a = PermutationLearner(steps=30, batch_size=8, seed=1).fit(low)
    b = PermutationLearner(steps=30, batch_size=8, seed=1).fit(high)
    pa = a.predict(test)
    pb = b.predict([Sorting(p.values + 10.0) for p in test])
    assert np.array_equal(pa, pb)
