"""Training the sorting and jigsaw networks through ``Solver.fit``: the training loop of the other
learned methods (held-out validation, the best network kept, checkpoints and the resumable state in
``out``, ``resume`` continuing a run exactly), ``steps=auto`` honouring the training time, and
checkpoints of either path (and of the format before) loading into a solve."""

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.core.method import FitContext
from cosolve.errors import UsageError
from cosolve.methods.sinkhorn.jigsaw_net import synthetic_puzzles
from cosolve.methods.sinkhorn.learner import PermutationLearner
from cosolve.methods.sinkhorn.sorting import SortingNet, random_sequences
from cosolve.training.loop import train
from cosolve.training.training_data import FixedInstances


def test_fit_with_out_writes_the_checkpoint_card_and_training_state(tmp_path):
    train_set, test = random_sequences(6, 40, seed=1), random_sequences(6, 4, seed=2)
    solver = Solver("gumbel-sinkhorn", steps=30, train_time=60, validate_every=0.0).fit(
        train_set, out=tmp_path / "sort_out", progress=False
    )
    out = tmp_path / "sort_out"
    assert {"model.pt", "README.md", "training.pt"} <= {p.name for p in out.iterdir()}
    card = (out / "README.md").read_text()
    assert "Gumbel–Sinkhorn checkpoint: sorting" in card and "40 sorting instances (8 held out for validation)" in card
    assert "on 8 held-out instances" in card
    progress = solver.method_.training_
    assert progress.iteration == 30 and len(progress.history) == 31  # validate_every=0: every step
    loaded = Solver("gumbel-sinkhorn", checkpoint=str(out))
    for problem in test:
        assert np.array_equal(loaded.solve(problem).solution, solver.solve(problem).solution)


def test_resume_needs_a_saved_run_and_refuses_other_settings(tmp_path):
    sequences = random_sequences(5, 12, seed=1)
    with pytest.raises(UsageError, match=r"no training state \(training.pt\) to resume from"):
        Solver("gumbel-sinkhorn", steps=3).fit(sequences, out=tmp_path / "nowhere", resume=True, progress=False)
    assert not (tmp_path / "nowhere").exists()
    Solver("gumbel-sinkhorn", steps=3).fit(sequences, out=tmp_path / "run", progress=False)
    with pytest.raises(UsageError, match="other settings"):
        Solver("gumbel-sinkhorn", steps=3, lr=0.1).fit(sequences, out=tmp_path / "run", resume=True, progress=False)
    more = Solver("gumbel-sinkhorn", steps=5).fit(sequences, out=tmp_path / "run", resume=True, progress=False)
    assert more.method_.training_.iteration == 5


@pytest.mark.parametrize("kind", ["sorting", "jigsaw"])
def test_a_resumed_run_continues_the_saved_one_exactly(tmp_path, kind):
    """Weights, optimiser, random draws and schedule: 3 steps, stopped, then resumed to 6 give the
    network of 6 steps in one go."""
    from cosolve.methods.sinkhorn.learner import PermutationTask

    instances = random_sequences(6, 16, seed=3) if kind == "sorting" else synthetic_puzzles(8, k=2, size=8, seed=3)
    config = PermutationLearner(task=kind, steps=6, batch_size=4, seed=0).training_config(instances, validate_every=0.0)
    whole, progress, _ = train(PermutationTask(config, instances), FixedInstances(instances), FitContext(None))
    seen: list[int] = []
    stopped = FitContext(None, out=tmp_path / "run", on_progress=lambda p: seen.append(p.iteration), stop=lambda: 3 in seen)
    train(PermutationTask(config, instances), FixedInstances(instances), stopped)  # as by Ctrl-C after step 3
    resume = FitContext(None, out=tmp_path / "run", resume=True)
    resumed, again, _ = train(PermutationTask(config, instances), FixedInstances(instances), resume)
    assert again.iteration == progress.iteration == 6
    for name, weights in whole.state_dict().items():
        assert torch.equal(weights, resumed.state_dict()[name]), name
    assert again.history[-1]["objective"] == progress.history[-1]["objective"]
    assert (tmp_path / "run" / "model.pt").is_file() and (tmp_path / "run" / "training.pt").is_file()


def test_steps_auto_trains_until_the_training_time():
    """Without ``steps`` a fit with a training time runs until it (past the 1,000 steps that are
    the default only without a training time); ``steps`` still stops it earlier."""
    sequences = random_sequences(3, 4, seed=1)
    tiny = {"batch_size": 1, "samples": 1, "iterations": 1, "hidden": 2, "validate_every": 60.0}
    timed = Solver("gumbel-sinkhorn", train_time=1.5, **tiny).fit(sequences, progress=False).method_.training_
    # stopped by the time, not by a step cap (1,000 tiny steps take about 1 s here); a step starts only if it fits
    assert timed.elapsed >= 1.4 and timed.iteration != 1000
    assert Solver("gumbel-sinkhorn", **tiny).fit(sequences, progress=False).method_.training_.iteration == 1000
    capped = Solver("gumbel-sinkhorn", train_time=30, steps=7, **tiny).fit(sequences, progress=False)
    assert capped.method_.training_.iteration == 7
    with pytest.raises(UsageError, match="steps=0 needs a training time"):
        Solver("gumbel-sinkhorn", steps=0).fit(sequences, progress=False)


def test_a_checkpoint_of_the_format_before_loads_with_the_same_network(tmp_path):
    """Checkpoints written before the config joined the training loop (``iterations`` were the
    Sinkhorn rounds; ``start``, ``end``, ``fixed`` the temperatures) load as they were."""
    net = SortingNet(5, 8)
    old = {"task": "sorting", "hidden": 8, "temperature": "fixed", "samples": 3, "iterations": 7, "start": 1.5,
           "end": 0.5, "fixed": 0.8, "threshold": 0.7, "max_boost": 0.1, "signature": 5, "n": 5}  # fmt: skip
    (tmp_path / "old").mkdir()
    torch.save(
        {"format": "cosolve-sinkhorn/1", "config": old, "meta": {"seed": 3}, "state_dict": net.state_dict()},
        tmp_path / "old" / "model.pt",
    )
    learner = PermutationLearner.load(tmp_path / "old")
    assert (learner.iterations, learner.samples, learner.hidden, learner.seed) == (7, 3, 8, 3)
    assert (learner.config_.tau_start, learner.config_.tau_end, learner.config_.sinkhorn_iterations) == (0.8, 0.8, 7)
    test = random_sequences(5, 3, seed=4)
    with torch.no_grad():
        expected = net(torch.tensor(np.stack([p.values for p in test]), dtype=torch.float32)).numpy()
    np.testing.assert_allclose(learner.logits(test), expected, rtol=1e-6)
    solved = Solver("gumbel-sinkhorn", checkpoint=str(tmp_path / "old")).solve(test[0])
    assert sorted(solved.solution.tolist()) == list(range(5))


def test_a_learner_fitted_in_memory_saves_a_checkpoint_the_solver_loads(tmp_path):
    train_set, test = synthetic_puzzles(16, k=2, size=8, seed=1), synthetic_puzzles(2, k=2, size=8, seed=2)
    learner = PermutationLearner(task="jigsaw", steps=5, batch_size=4, seed=0).fit(train_set)
    learner.save(tmp_path / "net", {"command": "test"})
    card = (tmp_path / "net" / "README.md").read_text()
    assert "Gumbel–Sinkhorn checkpoint: jigsaw" in card and "16 jigsaw instances" in card and "`test`" in card
    loaded = PermutationLearner.load(tmp_path / "net")
    assert np.array_equal(loaded.predict(test), learner.predict(test)) and loaded.steps_done_ == 5
