"""The adjoint matching trainer: targets, loss, and training through Solver.fit on data the
package does not ship (a distribution of its own and a folder of files), save/load, resume."""

import time

import networkx as nx
import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.diffusion.batch import GraphBatch
from cosolve.errors import InputError, UsageError
from cosolve.generators.distributions import Distribution
from cosolve.generators.graphs import erdos_renyi, from_networkx
from cosolve.io.graphfiles import write_dimacs
from cosolve.training.adjoint import adjoint_targets, matching_loss

#: a small CAM that trains in seconds
TINY = dict(
    hidden=8, layers=2, time_features=4, train_steps=6, train_chains=4, graphs=4, snapshots=3,
    validation_graphs=6, validation_chains=4, lr=3e-3,
)  # fmt: skip


def _regular(seed: int, problem: str):
    """Random 3-regular graphs on 60 nodes: a distribution cosolve does not ship."""
    return from_networkx(nx.random_regular_graph(3, 60, seed=seed), problem)


REGULAR = Distribution("regular-60", _regular, ("mis", "mds"))


@pytest.mark.parametrize("kind", ["mis", "maxcut", "mds", "maxclique"])
@pytest.mark.parametrize("clips", [1, 2, 3])
def test_adjoint_targets_are_finite_differences_of_the_energy_at_the_terminal_point(kind, clips):
    problem = erdos_renyi(7, 0.4, problem=kind, seed=1, weighted=kind == "maxcut")
    energy = GraphBatch([problem]).energy
    rng = np.random.default_rng(0)
    states = [rng.integers(0, 2, (3, 7)).astype(np.int8) for _ in range(6)]
    final = rng.integers(0, 2, (3, 7)).astype(np.int8)
    targets = adjoint_targets(states, final, energy.grad, clips)
    ends = [((c + 1) * 6) // clips for c in range(clips)]
    for t in range(6):
        end = next(e for e in ends if t < e)
        terminal = final if end == 6 else states[end]
        for i in range(7):
            on, off = terminal.astype(float), terminal.astype(float)
            on[:, i], off[:, i] = 1, 0
            difference = energy.energy(on) - energy.energy(off)  # dE/dx_i, exact for multilinear E
            np.testing.assert_allclose(targets[t][:, i], (2 * states[t][:, i] - 1) * difference, atol=1e-9)


def test_the_loss_is_minimised_at_sigmoid_of_target_over_tau():
    target = torch.from_numpy(np.random.default_rng(1).normal(size=(6, 2)))
    tau = 0.7
    logits = torch.zeros(6, 2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([logits], max_iter=200, tolerance_grad=1e-12, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = matching_loss(logits, target, tau)
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(torch.sigmoid(logits).detach().numpy(), 1 / (1 + np.exp(-target.numpy() / tau)), atol=1e-5)


def test_fit_on_a_distribution_the_package_does_not_ship_lowers_the_validation_energy(tmp_path):
    solver = Solver("cam", problem="mis", time_limit=30, rounds=2, train_time=300, iterations=30, validate_every=1e9, **TINY)
    solver.fit(REGULAR, progress=False)
    history = solver.method_.training_.history
    untrained, trained = history[0], history[-1]
    assert untrained["iteration"] == 0 and trained["iteration"] == 30
    assert trained["energy"] < untrained["energy"]
    assert solver.method_.model_.config.distribution == "regular-60"
    # the fitted model solves, and round-trips through save / checkpoint=
    graph = REGULAR.sample(3, "mis")
    fitted = solver.solve(graph)
    solver.save(tmp_path / "model")
    loaded = Solver("cam", time_limit=30, rounds=2, checkpoint=str(tmp_path / "model")).solve(graph)
    assert fitted.objective == loaded.objective and np.array_equal(fitted.solution, loaded.solution)
    card = (tmp_path / "model" / "README.md").read_text()
    assert "regular-60" in card and "iterations" in card


def graph_folder(folder, count, other, text):
    """``folder`` with ``count`` DIMACS graphs and one file ``other`` holding ``text``."""
    folder.mkdir()
    for seed in range(count):
        write_dimacs(REGULAR.sample(seed, "mis"), folder / f"g{seed}.col")
    (folder / other).write_text(text)
    return folder


def test_fit_on_a_folder_of_files_holds_out_a_validation_share(tmp_path):
    data = graph_folder(tmp_path / "graphs", 10, "README.md", "not an instance")
    solver = Solver("cam", problem="mis", train_time=300, iterations=2, validation_share=0.3, **TINY)
    solver.fit(data, out=tmp_path / "out", progress=False)
    meta = solver.method_.model_.meta
    assert meta["data"].startswith("10 mis instances from") and "(3 held out for validation)" in meta["data"]
    assert (tmp_path / "out" / "model.pt").is_file() and (tmp_path / "out" / "training.pt").is_file()


def test_a_stray_file_in_a_training_folder_is_named_as_one_to_move_out(tmp_path):
    data = graph_folder(tmp_path / "graphs", 3, "notes.txt", "my notes")
    with pytest.raises(InputError, match=r"notes\.txt: not an instance file of a known format; .*move it out"):
        Solver("cam", problem="mis", train_time=300, iterations=1, **TINY).fit(data, progress=False)


def test_a_resumed_run_continues_the_saved_one(tmp_path):
    from cosolve.core.method import FitContext
    from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=4, snapshots=3,
                       validation_graphs=6, validation_chains=4, validate_every=0, iterations=4)  # fmt: skip
    data = DistributionData(REGULAR.bound("mis"))
    _, whole, _ = train(CAMTask(config), data, FitContext(300, out=tmp_path / "whole"))
    seen = []
    stop_after_two = FitContext(
        300, out=tmp_path / "split", on_progress=lambda p: seen.append(p.iteration), stop=lambda: 2 in seen
    )
    train(CAMTask(config), data, stop_after_two)  # stopped as by Ctrl-C after iteration 2
    with pytest.raises(UsageError, match="other settings"):
        train(CAMTask(CAMConfig(**{**vars(config), "lr": 1e-2})), data, FitContext(300, out=tmp_path / "split", resume=True))
    _, resumed, _ = train(CAMTask(config), data, FitContext(300, out=tmp_path / "split", resume=True))
    assert [h["iteration"] for h in resumed.history] == [0, 1, 2, 2, 3, 4]  # iteration 2 validated again on resuming
    assert resumed.iteration == whole.iteration == 4
    final = resumed.history[-1]
    assert final["objective"] == whole.history[-1]["objective"] and final["energy"] == pytest.approx(whole.history[-1]["energy"])


def test_an_interrupted_run_says_so_and_how_to_continue(tmp_path):
    from cosolve.core.method import FitContext
    from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=4, snapshots=3,
                       validation_graphs=6, validation_chains=4, validate_every=0, iterations=4)  # fmt: skip
    seen = []
    ctx = FitContext(300, out=tmp_path / "run", on_progress=lambda p: seen.append(p.iteration), stop=lambda: 2 in seen)
    _, progress, _ = train(CAMTask(config), DistributionData(REGULAR.bound("mis")), ctx)
    assert progress.interrupted and progress.iteration == 2 and "interrupted at" in progress.note and "--resume" in progress.note
    _, whole, _ = train(CAMTask(config), DistributionData(REGULAR.bound("mis")), FitContext(300, out=tmp_path / "whole"))
    assert not whole.interrupted and "interrupted" not in whole.note


def test_a_step_that_would_not_fit_the_time_left_is_not_started(monkeypatch):
    from cosolve.core.method import FitContext
    from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=4, snapshots=3,
                       validation_graphs=6, validation_chains=4, validate_every=1e9)  # fmt: skip
    task = CAMTask(config)
    real = task.step

    def slow(*args, **kwargs):  # as a step on a very large instance: 0.6 s of a 1 s budget
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(task, "step", slow)
    _, progress, _ = train(task, DistributionData(REGULAR.bound("mis")), FitContext(1.0))
    assert progress.iteration <= 1  # a second 0.6 s step would have ended past the budget (the old loop ran 2)


def test_a_run_that_does_not_beat_the_untrained_model_says_so(tmp_path):
    solver = Solver("cam", problem="mis", train_time=300, iterations=1, validate_every=1e9, **{**TINY, "lr": 1e-12})
    solver.fit(REGULAR, out=tmp_path / "run", progress=False)
    progress = solver.method_.training_
    assert progress.best_iteration == 0
    assert "untrained weights are kept" in progress.note
    card = (tmp_path / "run" / "README.md").read_text()  # and so does its model card, with the untrained score
    untrained = progress.history[0]["objective"]
    assert f"untrained model's validation (iteration 0): {untrained:.4f}: no validation beat it" in card


def test_fit_needs_a_limit_and_data_of_a_trainable_kind(tmp_path):
    with pytest.raises(UsageError, match=r"time limit .* or an iteration limit"):
        Solver("cam", problem="mis", **TINY).fit(REGULAR, progress=False)
    with pytest.raises(UsageError, match="at least 2 instances"):
        Solver("cam", problem="mis", iterations=1).fit([REGULAR.sample(0, "mis")], progress=False)
    with pytest.raises(UsageError, match="makes mis, mds instances, not maxcut"):
        Solver("cam", problem="maxcut", iterations=1).fit(REGULAR, progress=False)
    with pytest.raises(UsageError, match=r"training option.*used by fit only"):
        Solver("cam", hidden=4).solve(REGULAR.sample(0, "mis"))


def test_training_options_are_refused_before_the_set_up_does_any_work(monkeypatch):
    from cosolve.methods.cam.cam_method import CAM

    def prepare(self, problem):
        raise AssertionError("the set-up ran")

    monkeypatch.setattr(CAM, "prepare", prepare)
    with pytest.raises(UsageError, match=r"training option.*used by fit only"):
        Solver("cam", hidden=4).prepare(REGULAR.sample(0, "mis"))


def test_a_residual_policy_trains_saves_and_solves_from_its_checkpoint(tmp_path):
    solver = Solver("cam", problem="mis", train_time=300, iterations=3, validate_every=0, base="rlsa", **TINY)
    solver.fit(REGULAR, progress=False)
    assert solver.method_.training_.iteration == 3
    solver.save(tmp_path / "residual")
    graph = erdos_renyi(30, 0.2, seed=5)
    result = Solver("cam", checkpoint=str(tmp_path / "residual"), time_limit=None, rounds=2).solve(graph)
    assert graph.evaluate(result.solution).feasible
    from cosolve.methods.cam.cam_checkpoint import load_numpy_checkpoint

    _policy, config, _ = load_numpy_checkpoint(tmp_path / "residual")
    assert config.base == "rlsa"


def test_comparative_targets_favour_the_paths_of_the_better_chains():
    from cosolve.training.adjoint import chain_advantages, comparative_targets

    scores = np.array([[3.0, 1.0], [1.0, 1.0]])  # graph 0: chain 0 better; graph 1: a tie
    advantage = chain_advantages(scores)
    np.testing.assert_allclose(advantage, [[1.0, 0.0], [-1.0, 0.0]], atol=1e-6)
    states = [np.array([[0, 1, 0], [0, 1, 0]], np.int8)]
    final = np.array([[1, 1, 1], [1, 0, 0]], np.int8)
    per_node = advantage[:, [0, 0, 1]]  # nodes 0, 1 in graph 0; node 2 in graph 1
    got = comparative_targets(states, final, per_node)[0]
    # chain 0 (better): flip toward its end state (node 0: +1) and keep what it kept (node 1: -1);
    # chain 1 (worse): the opposite; graph 1's tie gives no signal
    np.testing.assert_allclose(got, [[1.0, -1.0, 0.0], [-1.0, -1.0, 0.0]], atol=1e-6)


def test_training_with_compared_chains_runs():
    solver = Solver("cam", problem="mis", train_time=300, iterations=2, validate_every=0, compare=1.0, **TINY)
    solver.fit(REGULAR, progress=False)
    assert solver.method_.training_.iteration == 2


def test_training_on_a_device_torch_cannot_see_is_a_usage_error_and_glns_trains_on_the_cpu_only():
    from cosolve.core.method import FitContext
    from cosolve.methods.glns.glns_task import GLNSConfig, GLNSTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    if not torch.cuda.is_available():
        with pytest.raises(UsageError, match="sees no CUDA GPU"):
            Solver("cam", problem="mis", iterations=1, device="cuda", **TINY).fit(REGULAR, progress=False)
    with pytest.raises(UsageError, match="trains on cpu, not device=cuda"):
        train(GLNSTask(GLNSConfig(device="cuda", iterations=1)), DistributionData(REGULAR.bound("mis")), FitContext(300))


def test_resuming_a_run_whose_limit_is_spent_is_refused_and_rewrites_nothing(tmp_path):
    from cosolve.core.method import FitContext
    from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=4, snapshots=3,
                       validation_graphs=6, validation_chains=4, validate_every=0, iterations=2)  # fmt: skip
    data = DistributionData(REGULAR.bound("mis"))
    train(CAMTask(config), data, FitContext(300, out=tmp_path))
    written = {f.name: f.stat().st_mtime_ns for f in tmp_path.iterdir()}
    with pytest.raises(UsageError, match=r"has trained \d+ s \(2 iterations\), at or past its iteration limit of 2"):
        train(CAMTask(config), data, FitContext(300, out=tmp_path, resume=True))
    with pytest.raises(UsageError, match=r"at or past the time limit of 1e-06 s; resume with a longer one"):
        train(CAMTask(CAMConfig(**{**vars(config), "iterations": 0})), data, FitContext(1e-6, out=tmp_path, resume=True))
    assert {f.name: f.stat().st_mtime_ns for f in tmp_path.iterdir()} == written


def test_a_run_may_resume_on_another_device_and_its_card_says_where_it_trained(tmp_path):
    from cosolve.core.method import FitContext
    from cosolve.methods.cam.cam_task import CAMConfig, CAMTask, load_checkpoint
    from cosolve.training.loop import train
    from cosolve.training.training_data import DistributionData

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=4, snapshots=3,
                       validation_graphs=6, validation_chains=4, validate_every=0, iterations=2)  # fmt: skip
    data = DistributionData(REGULAR.bound("mis"))
    train(CAMTask(config), data, FitContext(300, out=tmp_path))
    # "cpu:0" stands for another device: the saved run's device differs, and the run resumes
    moved = CAMConfig(**{**vars(config), "device": "cpu:0", "iterations": 3})
    _, progress, meta = train(CAMTask(moved), data, FitContext(300, out=tmp_path, resume=True))
    assert progress.iteration == 3 and meta["device"] == "cpu"
    policy, _, saved = load_checkpoint(tmp_path)
    assert saved["device"] == "cpu" and next(policy.parameters()).device.type == "cpu"
    card = (tmp_path / "README.md").read_text()
    assert "| device | cpu" in card and "thread(s) on cpu," in card
    state = torch.load(tmp_path / "training.pt", weights_only=False)  # as if the first part ran on a GPU
    state["device"], state["device_spans"] = "cuda (Test GPU)", []
    torch.save(state, tmp_path / "training.pt")
    again = CAMConfig(**{**vars(config), "iterations": 5})
    train(CAMTask(again), data, FitContext(300, out=tmp_path, resume=True))
    saved = torch.load(tmp_path / "training.pt", weights_only=False)
    ((name, seconds),) = saved["device_spans"]
    assert saved["device"] == "cpu" and name == "cuda (Test GPU)" and seconds == pytest.approx(state["elapsed"])


def test_the_card_names_each_device_a_resumed_run_trained_on():
    from torch import nn

    from cosolve.training.loop import _Run

    run = _Run(nn.Linear(1, 1))
    assert run.devices(5.0, "cpu") == "cpu"
    run.offset, run.device_spans = 430.0, [("cuda (NVIDIA H200)", 430.0)]
    assert run.devices(2411.9, "cpu") == "cuda (NVIDIA H200) 430 s, then cpu 1982 s"
    assert run.devices(400.0, "cpu") == "cuda (NVIDIA H200)"  # the best model came before the resume
    run.device_spans = [("cpu", 430.0)]
    assert run.devices(1000.0, "cpu") == "cpu"  # resumed where it ran
    run.offset, run.device_spans = 600.0, [("cpu", 100.0), ("cuda (NVIDIA H200)", 500.0)]
    assert run.devices(700.0, "cpu") == "cpu 100 s, then cuda (NVIDIA H200) 500 s, then cpu 100 s"  # in order
