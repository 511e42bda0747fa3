"""A fixed CAM loss on two equal halves of a batch (shared by the DDP test and its worker)."""

import numpy as np
import torch

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.cam import CAMConfig, cam_loss
from cosolve.diffusion.policy import GraphTensors
from cosolve.generators.graphs import erdos_renyi


def case_gradients(halves: list[int], ddp: bool) -> np.ndarray:
    """Flattened gradient of the mean over ``halves`` of the half-batch losses (each half: two
    9-node graphs, 3 chains, one snapshot). With ``ddp`` the policy is wrapped in DDP."""
    config = CAMConfig(hidden=8, layers=2, time_features=4)
    torch.manual_seed(0)
    policy = config.policy()
    model = torch.nn.parallel.DistributedDataParallel(policy) if ddp else policy
    model.zero_grad()
    for half in halves:
        batch = GraphBatch([erdos_renyi(9, 0.4, problem="mis", seed=10 * half + j) for j in range(2)])
        tensors = GraphTensors.from_coupling(batch.coupling)
        rng = np.random.default_rng(half)
        x = rng.integers(0, 2, (3, batch.n)).astype(np.int8)
        target = rng.normal(size=(3, batch.n))
        loss = cam_loss(model, tensors, batch, x, target, 0.5, 0.3) / len(halves)
        loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in policy.parameters()]).numpy()
