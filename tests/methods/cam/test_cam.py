"""CAM's graph policy checkpoints: round trip and one-line errors for bad files."""

import copy

import numpy as np
import pytest
import torch

from cosolve.diffusion.batch import GraphBatch
from cosolve.errors import InputError
from cosolve.generators.graphs import erdos_renyi
from cosolve.methods.cam.cam_task import CAMConfig, CAMTask, load_checkpoint
from cosolve.methods.cam.flip_policy import GraphTensors
from cosolve.training.loop import save_model

TINY = dict(
    hidden=8, layers=2, time_features=4, steps=6, chains=4, graphs=2, snapshots=3, validation_graphs=4, validation_chains=4
)


def test_checkpoint_round_trip(tmp_path):
    config = CAMConfig(problem="maxcut", distribution="ba-small", **TINY)
    torch.manual_seed(3)
    policy = config.policy()
    save_model(tmp_path, CAMTask(config), policy, {"validation_objective": 1.0, "command": "x"})
    loaded, config2, meta = load_checkpoint(tmp_path)
    assert config2 == config and meta["command"] == "x"
    problem = erdos_renyi(9, 0.4, problem="maxcut", seed=0)
    batch = GraphBatch([problem])
    tensors = GraphTensors.from_coupling(batch.coupling)
    x = torch.randint(0, 2, (9, 3)).float()
    gain = torch.randn(9, 3)
    with torch.no_grad():
        torch.testing.assert_close(policy.eval()(x, gain, 0.3, tensors), loaded(x, gain, 0.3, tensors))
    assert "CAM checkpoint: maxcut on ba-small" in (tmp_path / "README.md").read_text()


def test_checkpoints_written_before_auto_settings_load_with_their_defaults():
    old = {**{k: v for k, v in vars(CAMConfig()).items() if k not in ("validation_share", "iterations")}, "penalty": 0.0}
    config = CAMConfig.from_dict(old)
    assert config.penalty is None and config.validation_share == CAMConfig().validation_share


def test_bad_checkpoints_are_one_line_errors(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a readable CAM checkpoint"):
        load_checkpoint(tmp_path / "junk.pt")
    torch.save({"format": "other"}, tmp_path / "other.pt")
    with pytest.raises(InputError, match="not a CAM checkpoint"):
        load_checkpoint(tmp_path / "other.pt")
    with pytest.raises(InputError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")


@pytest.mark.parametrize("kind", ["mis", "maxclique", "maxcut", "mds"])
def test_numpy_policy_equals_the_torch_forward_of_the_shipped_checkpoint(kind):
    from cosolve.diffusion.batch import GraphBatch
    from cosolve.generators.distributions import sample_graph
    from cosolve.methods.cam.cam_checkpoint import load_numpy_checkpoint
    from cosolve.methods.cam.cam_method import DEFAULT_CHECKPOINTS
    from cosolve.methods.cam.flip_policy import GraphTensors
    from cosolve.methods.cam.flip_policy_numpy import NumpyFlipPolicy, NumpyGraph
    from cosolve.training.checkpoint import shipped_folder

    folder = shipped_folder() / DEFAULT_CHECKPOINTS[kind]
    torch_policy, config, meta = load_checkpoint(folder)  # model.pt, through torch
    numpy_policy, numpy_config, numpy_meta = load_numpy_checkpoint(folder)  # model.npz, no torch
    assert numpy_config == config and numpy_meta.keys() == meta.keys()
    batch = GraphBatch([sample_graph("ba-small", 3, kind), sample_graph("rb-small", 4, kind)], penalty=config.penalty)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, (5, batch.n)).astype(np.int8)
    gain = batch.energy.flip_gain(x)
    double = NumpyFlipPolicy.from_torch(torch_policy, dtype=np.float64)
    torch_double = copy.deepcopy(torch_policy).double()
    tensors = GraphTensors.from_coupling(batch.coupling)
    tensors_double = GraphTensors(tensors.adjacency.to(torch.float64), tensors.static.double())
    for t in (1.0, 0.37, 1 / 16):
        with torch.no_grad():
            expected = torch_double(torch.from_numpy(x.T.astype(np.float64)), torch.from_numpy(gain.T), t, tensors_double)
        got = double(x.T, gain.T, t, NumpyGraph.from_coupling(batch.coupling, dtype=np.float64))
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-5)  # the same function
        with torch.no_grad():
            single = torch_policy(
                torch.from_numpy(x.T.astype(np.float32)), torch.from_numpy(gain.T.astype(np.float32)), t, tensors
            )
        got = numpy_policy(x.T, gain.T, t, NumpyGraph.from_coupling(batch.coupling))
        scale = float(np.abs(expected.numpy()).max())
        np.testing.assert_allclose(got, single.numpy(), rtol=0, atol=1e-5 * max(scale, 1.0))  # float32 rounding only


def test_numpy_policy_round_trips_through_torch():
    from cosolve.methods.cam.flip_policy_numpy import NumpyFlipPolicy

    torch.manual_seed(3)
    config = CAMConfig(hidden=8, layers=2, time_features=4)
    policy = config.policy().eval()
    back = NumpyFlipPolicy.from_torch(policy).to_torch(config)
    for name, value in policy.state_dict().items():
        assert torch.equal(value, back.state_dict()[name])


def test_solving_with_a_saved_model_imports_no_torch(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from cosolve import Solver\n"
        "from cosolve.generators.distributions import sample_graph\n"
        "r = Solver('cam', problem='mis', time_limit=0.2).solve(sample_graph('rb-small', 1, 'mis'))\n"
        "assert r.objective > 0\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_untrained_residual_policy_gives_rlsa_logits_and_numpy_agrees():
    from cosolve.diffusion.sampler import regularised_logits, rlsa_defaults
    from cosolve.methods.cam.flip_policy_numpy import NumpyFlipPolicy, NumpyGraph

    config = CAMConfig(problem="mis", hidden=8, layers=2, time_features=4, base="rlsa")
    task = CAMTask(config)
    batch = task.collate([erdos_renyi(12, 0.3, seed=1), erdos_renyi(9, 0.4, seed=2)])
    x = np.random.default_rng(0).integers(0, 2, (3, batch.graphs.n)).astype(np.int8)
    policy = config.policy()
    with torch.no_grad():
        logits = task.logits(policy, batch, x, 0.5).numpy().T
    gain = batch.graphs.energy.flip_gain(x)
    tau, d = rlsa_defaults("mis")
    expected = np.clip(regularised_logits(gain, batch.graphs.offsets, (2 + d) // 2, tau * 0.5), -5, 5)
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)
    torch.manual_seed(1)
    for p in policy.parameters():  # trained-looking weights: the numpy forward must still agree
        p.data.normal_(0, 0.3)
    with torch.no_grad():
        logits = task.logits(policy, batch, x, 0.5).numpy().T
    mirror = NumpyFlipPolicy.from_torch(policy)
    got = mirror(x.T, gain.T, 0.5, NumpyGraph.from_coupling(batch.graphs.coupling), batch.base(gain, 0.5).T).T
    np.testing.assert_allclose(got, logits, rtol=1e-4, atol=1e-4)
