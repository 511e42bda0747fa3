"""What CAM's validation objective means: baselines on CAM's own validation graphs.

CAM keeps the checkpoint with the best *validation objective*: the mean over the validation graphs
(seeds from ``VALIDATION_SEED``) of the best decoded chain of one round (8 chains x T steps). This
script puts that number next to what needs no learning, on the same graphs and decoder:

- ``greedy`` (minimum-degree greedy) and ``rlsa`` (``--rlsa-time`` seconds per graph);
- ``descent q``: the sampler with the rule "flip i with probability q if flipping lowers the
  energy" (stochastic parallel descent; it ends in random local minima, i.e. maximal independent
  sets), T steps, 8 chains, decoded like CAM;
- each ``--checkpoint`` given: its validation objective recomputed, and the mean terminal energy.

    python -m bench.experiments.graph_cam.cam_validation_probe --checkpoint solvers/cam-mis-er-700-800 [--graphs 32]
"""

from __future__ import annotations

import argparse

import numpy as np

from cosolve import Solver
from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.inference import decode_best, sample
from cosolve.generators.distributions import VALIDATION_SEED, sample_graph


def descent_rule(batch: GraphBatch, q: float):
    def rule(x: np.ndarray, t: float, step: int) -> np.ndarray:
        return q * (batch.energy.flip_gain(x) < 0)

    return rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="mis")
    parser.add_argument("--dist", default="rb-small")
    parser.add_argument("--graphs", type=int, default=32)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--chains", type=int, default=8)
    parser.add_argument("--rlsa-time", type=float, default=0.2)
    parser.add_argument("--checkpoint", action="append", default=[])
    args = parser.parse_args()

    graphs = [sample_graph(args.dist, VALIDATION_SEED + i, args.problem) for i in range(args.graphs)]
    batch = GraphBatch(graphs)
    rounds = f"one round of {args.chains} chains x {args.steps} steps (CAM: its own steps)"
    print(f"{args.graphs} validation graphs of {args.dist} ({args.problem}); {rounds}")
    print("| rule | validation objective | mean terminal energy |")
    print("|---|---|---|")
    for method, budget in (("greedy", 1.0), ("rlsa", args.rlsa_time)):
        values = [Solver(method, time_limit=budget).solve(g).objective for g in graphs]
        print(f"| {method} ({budget:g} s per graph) | {np.mean(values):.4f} | |")
    for q in (0.1, 0.2, 0.5):
        out = sample(descent_rule(batch, q), batch, args.chains, args.steps, np.random.default_rng(0))
        values = [v for _, v in decode_best(batch, out.marginal)]
        print(f"| descent q={q:g} | {np.mean(values):.4f} | {batch.graph_energies(out.final).mean():.3f} |")
    for path in args.checkpoint:
        from cosolve.methods.cam.cam_task import CAMTask, load_checkpoint

        policy, config, _ = load_checkpoint(path)
        config.validation_chains = args.chains  # steps: the checkpoint's own
        task = CAMTask(config)
        result = task.validate(policy, task.collate(graphs))
        print(f"| cam {path} | {result.objective:.4f} | {result.energy:.3f} |")


if __name__ == "__main__":
    main()
