"""Run by test_ddp.py: one rank of a 2-process gloo group computes the CAM gradient of its half."""

import sys

import numpy as np
import torch
import torch.distributed as dist

from tests.training.ddp_case import case_gradients


def main(rank: int, world: int, init: str, out: str) -> None:
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    try:
        grads = case_gradients(halves=[rank], ddp=True)
        if rank == 0:
            np.save(out, grads)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    torch.set_num_threads(1)
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
