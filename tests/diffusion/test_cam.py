"""Combinatorial Adjoint Matching: targets, loss, a short training run, checkpoints."""

import numpy as np
import pytest
import torch

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.cam import CAMConfig, adjoint_targets, cam_loss, load_checkpoint, save_checkpoint, train
from cosolve.diffusion.policy import GraphTensors
from cosolve.errors import InputError
from cosolve.generators.graphs import erdos_renyi

TINY = dict(
    hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=2, snapshots=3, validation_graphs=4, validation_chains=4
)


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
    class Free(torch.nn.Module):  # a "policy" whose logits are free parameters
        def __init__(self, n, k):
            super().__init__()
            self.logits = torch.nn.Parameter(torch.zeros(n, k))

        def forward(self, x, gain, t, graph):
            return self.logits

    problem = erdos_renyi(6, 0.5, problem="mis", seed=0)
    batch = GraphBatch([problem])
    tensors = GraphTensors.from_coupling(batch.coupling)
    x = np.random.default_rng(0).integers(0, 2, (2, 6)).astype(np.int8)
    target = np.random.default_rng(1).normal(size=(2, 6))
    tau = 0.7
    free = Free(6, 2)
    opt = torch.optim.LBFGS(free.parameters(), max_iter=200, tolerance_grad=1e-10, tolerance_change=1e-12)

    def closure():
        opt.zero_grad()
        loss = cam_loss(free, tensors, batch, x, target, 0.5, tau)
        loss.backward()
        return loss

    opt.step(closure)
    p = torch.sigmoid(free.logits).detach().numpy().T
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-target / tau)), atol=1e-4)


def test_a_short_training_run_lowers_the_validation_energy(tmp_path):
    config = CAMConfig(problem="mis", distribution="rb-small", validate_every=1e9, lr=3e-3, **TINY)
    _, progress = train(config, time_limit=600, max_iterations=40, out=tmp_path, seed=0)
    first, last = progress.history[0], progress.history[-1]
    assert first["iteration"] == 0 and last["iteration"] == 40
    assert last["energy"] < first["energy"] - 50  # random flips leave hundreds of violated edges
    assert (tmp_path / "model.pt").is_file() and "mis on rb-small" in (tmp_path / "README.md").read_text()


def test_checkpoint_round_trip(tmp_path):
    config = CAMConfig(problem="maxcut", distribution="ba-small", **TINY)
    torch.manual_seed(3)
    policy = config.policy()
    save_checkpoint(tmp_path, policy, config, {"validation_objective": 1.0, "command": "x"})
    loaded, config2, meta = load_checkpoint(tmp_path)
    assert config2 == config and meta["command"] == "x"
    problem = erdos_renyi(9, 0.4, problem="maxcut", seed=0)
    batch = GraphBatch([problem])
    tensors = GraphTensors.from_coupling(batch.coupling)
    x = torch.randint(0, 2, (9, 3)).float()
    gain = torch.randn(9, 3)
    with torch.no_grad():
        torch.testing.assert_close(policy.eval()(x, gain, 0.3, tensors), loaded(x, gain, 0.3, tensors))


def test_bad_checkpoints_are_one_line_errors(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a readable CAM checkpoint"):
        load_checkpoint(tmp_path / "junk.pt")
    torch.save({"format": "other"}, tmp_path / "other.pt")
    with pytest.raises(InputError, match="not a CAM checkpoint"):
        load_checkpoint(tmp_path / "other.pt")
    with pytest.raises(InputError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
