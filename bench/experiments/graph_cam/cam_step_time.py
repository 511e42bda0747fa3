"""Seconds per denoising step of the shipped CAM policy's numpy forward pass, on graph files.

    python -m bench.experiments.graph_cam.cam_step_time GRAPH.col [GRAPH.col ...] [--problem mis] [--chains 16] [--calls 40]

For each graph: one warm-up call, then ``--calls`` calls of the policy (the problem's shipped
checkpoint, ``solvers/``) on random states of ``--chains`` chains at times 0.5 down; prints the
milliseconds per call. One thread (numpy's BLAS as configured); the flip gains are computed once.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosolve.diffusion.batch import GraphBatch
from cosolve.io import read
from cosolve.methods.cam.cam_checkpoint import load_numpy_checkpoint
from cosolve.methods.cam.cam_method import DEFAULT_CHECKPOINTS
from cosolve.methods.cam.flip_policy_numpy import NumpyGraph
from cosolve.training.checkpoint import shipped_folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--problem", default="mis")
    parser.add_argument("--chains", type=int, default=16)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    policy, _, _ = load_numpy_checkpoint(shipped_folder() / DEFAULT_CHECKPOINTS[args.problem])
    for path in args.graphs:
        problem = read(path, problem=args.problem)
        batch = GraphBatch([problem])
        graph = NumpyGraph.from_coupling(batch.coupling)
        x = np.random.default_rng(0).integers(0, 2, (args.chains, problem.n)).astype(np.int8)
        gain = batch.energy.flip_gain(x)
        policy(x.T, gain.T, 0.5, graph)
        started = time.perf_counter()
        for call in range(args.calls):
            policy(x.T, gain.T, 0.5 * (1 - call / args.calls), graph)
        seconds = (time.perf_counter() - started) / args.calls
        size = f"{problem.n} nodes, {len(problem.edges)} edges, {args.chains} chains"
        print(f"{problem.name}: {size}: {1000 * seconds:.1f} ms a step")


if __name__ == "__main__":
    main()
