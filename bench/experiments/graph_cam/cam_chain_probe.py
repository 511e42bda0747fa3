"""What one round of the shipped MIS policy's chains holds, against the min-degree greedy.

    python -m bench.experiments.graph_cam.cam_chain_probe GRAPH.col [GRAPH.col ...] [--chains 16] [--seeds 3]

For each graph and seed: one round of ``--chains`` chains and the checkpoint's steps from uniform
noise (as ``cam`` samples, without its pacer), then
- per step, the mean over chains of the nodes selected, of the violated edges, of the energy and
  of the expected flips of selected and of unselected nodes (``p`` summed over them);
- the sizes of the chains' decoded independent sets (each chain's selected nodes by marginal, then
  the min-degree greedy), sorted, and the min-degree greedy's size alone.
"""

from __future__ import annotations

import argparse

import numpy as np

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.decode import decode
from cosolve.diffusion.sampler import times, uniform_start
from cosolve.heuristics.graphs.greedy_constructions import min_degree_mis
from cosolve.io import read
from cosolve.methods.cam.cam_checkpoint import load_numpy_checkpoint
from cosolve.methods.cam.cam_method import DEFAULT_CHECKPOINTS
from cosolve.methods.cam.flip_policy_numpy import NumpyGraph, numpy_rule
from cosolve.training.checkpoint import shipped_folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--chains", type=int, default=16)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    policy, config, _ = load_numpy_checkpoint(shipped_folder() / DEFAULT_CHECKPOINTS["mis"])
    for path in args.graphs:
        problem = read(path, problem="mis")
        batch = GraphBatch([problem], penalty=config.penalty)
        rule = numpy_rule(policy, batch.energy, NumpyGraph.from_coupling(batch.coupling), config.base_logits(batch))
        greedy = int(min_degree_mis(problem.adjacency).sum())
        print(f"{path}: {problem.n} nodes, min-degree greedy {greedy}, {config.steps} steps per round")
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            x = uniform_start(args.chains, problem.n, rng)
            marginal = x.astype(np.float64)
            for step, t in enumerate(times(config.steps)):
                p = rule(x, float(t), step)
                if seed == 0:
                    violated = np.mean([int((problem.adjacency @ c.astype(float)) @ c) // 2 for c in x])
                    print(
                        f"  step {step:2d}  selected {x.sum(1).mean():7.1f}  violated {violated:8.1f}  "
                        f"energy {batch.graph_energies(x).mean():9.2f}  flips of selected {(p * (x == 1)).sum(1).mean():6.1f}  "
                        f"of unselected {(p * (x == 0)).sum(1).mean():6.1f}"
                    )
                marginal = np.where(x == 1, 1.0 - p, p)
                x = np.where(rng.random(x.shape) < p, 1 - x, x).astype(np.int8)
            sizes = sorted(int(s.sum()) for s in decode(problem, marginal, x))
            print(f"  seed {seed}: selected at the end {sorted(x.sum(1).tolist())}; decoded {sizes}")


if __name__ == "__main__":
    main()
