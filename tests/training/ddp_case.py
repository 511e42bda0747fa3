"""A fixed CAM matching loss on two equal halves of a batch (shared by the DDP test and its worker)."""

import numpy as np
import torch

from cosolve.generators.graphs import erdos_renyi
from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
from cosolve.training.adjoint import matching_loss


def case_gradients(halves: list[int], ddp: bool) -> np.ndarray:
    """Flattened gradient of the mean over ``halves`` of the half-batch losses (each half: two
    9-node graphs, 3 chains, one snapshot). With ``ddp`` the policy is wrapped in DDP."""
    config = CAMConfig(hidden=8, layers=2, time_features=4)
    task = CAMTask(config)
    torch.manual_seed(0)
    policy = config.policy()
    model = torch.nn.parallel.DistributedDataParallel(policy) if ddp else policy
    model.zero_grad()
    for half in halves:
        batch = task.collate([erdos_renyi(9, 0.4, problem="mis", seed=10 * half + j) for j in range(2)])
        rng = np.random.default_rng(half)
        x = rng.integers(0, 2, (3, batch.graphs.n)).astype(np.int8)
        target = torch.from_numpy(rng.normal(size=(3, batch.graphs.n)).T.astype(np.float32))
        loss = matching_loss(task.logits(model, batch, x, 0.5), target, 0.3) / len(halves)
        loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in policy.parameters()]).numpy()
