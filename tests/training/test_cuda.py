"""CAM training on a CUDA GPU gives what it gives on the CPU (run where torch sees a GPU; skipped
elsewhere, so CI, which has none, skips it)."""

import numpy as np
import pytest
import torch

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.inference import graph_logits
from cosolve.generators.graphs import erdos_renyi
from cosolve.methods.cam.cam_task import CAMConfig, load_checkpoint
from cosolve.methods.cam.flip_policy import GraphTensors
from cosolve.training.adjoint import matching_loss

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA GPU")


@pytest.mark.parametrize("base", ["", "rlsa"])
def test_logits_and_gradients_on_cuda_equal_those_on_the_cpu(base):
    config = CAMConfig(problem="mis", hidden=16, layers=2, time_features=4, base=base)
    torch.manual_seed(0)
    cpu = config.policy()
    if base:  # a residual head starts at zero: give it weights so the test sees the network
        torch.nn.init.normal_(cpu.head.weight)
    gpu = type(cpu)(hidden=16, layers=2, time_features=4, residual=bool(base)).cuda()
    gpu.load_state_dict(cpu.state_dict())
    graphs = GraphBatch([erdos_renyi(40, 0.1, problem="mis", seed=s) for s in range(3)])
    tensors = GraphTensors.from_coupling(graphs.coupling)
    x = np.random.default_rng(0).integers(0, 2, (5, graphs.n)).astype(np.int8)
    target = torch.from_numpy(np.random.default_rng(1).normal(size=(graphs.n, 5)).astype(np.float32))
    grads = []
    for policy, where in ((cpu, tensors), (gpu, tensors.to("cuda"))):
        logits = graph_logits(policy, graphs, where, x, 0.7, config.base_logits(graphs))
        matching_loss(logits, target.to(logits.device), 0.3).backward()
        grads.append((logits.detach().cpu(), [p.grad.detach().cpu() for p in policy.parameters()]))
    torch.testing.assert_close(grads[1][0], grads[0][0], atol=1e-5, rtol=1e-5)
    for g_gpu, g_cpu in zip(grads[1][1], grads[0][1], strict=True):
        torch.testing.assert_close(g_gpu, g_cpu, atol=1e-5, rtol=1e-4)


def test_training_on_cuda_writes_a_checkpoint_that_solves_on_the_cpu(tmp_path):
    from cosolve import Solver

    tiny = dict(hidden=8, layers=2, time_features=4, train_steps=6, train_chains=4, graphs=4, validation_graphs=4,
                validation_chains=4)  # fmt: skip
    solver = Solver("cam", problem="mis", train_time=300, iterations=3, validate_every=0, device="cuda", **tiny)
    graphs = [erdos_renyi(30, 0.15, problem="mis", seed=s) for s in range(12)]
    solver.fit(graphs, out=tmp_path, progress=False)
    policy, config, meta = load_checkpoint(tmp_path)
    assert config.device == "cuda" and meta["device"].startswith("cuda")
    assert all(p.device.type == "cpu" for p in policy.parameters())
    result = Solver("cam", problem="mis", checkpoint=str(tmp_path), time_limit=0.5).solve(graphs[0])
    assert result.solution is not None and graphs[0].evaluate(result.solution).feasible
