"""CAM's graph policy checkpoints: round trip and one-line errors for bad files."""

import pytest
import torch

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.cam import CAMConfig, CAMTask, load_checkpoint
from cosolve.diffusion.policy import GraphTensors
from cosolve.errors import InputError
from cosolve.generators.graphs import erdos_renyi
from cosolve.training.adjoint import save_model

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
