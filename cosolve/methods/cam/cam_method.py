"""The ``cam`` method: the anytime sampler of :mod:`cosolve.diffusion.anytime_sampling` with flips
by a policy trained with Combinatorial Adjoint Matching, then the polish.

The checkpoint is the one shipped for the problem (``solvers/``) unless ``checkpoint`` names
another, or the model ``fit`` trained (on the user's graphs or a distribution:
:mod:`cosolve.training.adjoint`, :mod:`cosolve.methods.cam.cam_task`). Solving runs the policy in
numpy (:mod:`cosolve.methods.cam.flip_policy_numpy`); training needs torch.
"""

from __future__ import annotations

from typing import Any, ClassVar

from cosolve.core.method import Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.diffusion.anytime_sampling import GRAPH_KINDS, POLISH_WARM_UP, ROUNDS_AND_POLISH, run_rounds
from cosolve.errors import UsageError
from cosolve.methods.cam.cam_config import CAMConfig
from cosolve.training.hyperparameters import adjoint_options
from cosolve.training.learned import AdjointMethod

#: The shipped checkpoint folder (under ``solvers/``) of each problem.
DEFAULT_CHECKPOINTS = {
    "mis": "cam-mis-er-700-800",
    "maxcut": "cam-maxcut-ba-small",
    "maxclique": "cam-maxclique-rb-small",
    "mds": "cam-mds-ba-small",
}


_DEFAULTS = CAMConfig()


@register
class CAM(AdjointMethod):
    """Discrete-diffusion sampler with a flip policy trained by Combinatorial Adjoint Matching."""

    name: ClassVar[str] = "cam"
    problems: ClassVar[frozenset[str]] = GRAPH_KINDS
    summary: ClassVar[str] = (
        "discrete-diffusion GNN sampler trained by Combinatorial Adjoint Matching (training needs torch; "
        "solving with a saved model runs in numpy)"
    )
    warm_up: ClassVar[bool] = True
    warm_up_options: ClassVar[dict[str, Any]] = POLISH_WARM_UP
    task: ClassVar[str] = "cosolve.methods.cam.cam_task:CAMTask"
    config_type: ClassVar[type] = CAMConfig
    options: ClassVar[dict[str, Option]] = {
        "checkpoint": Option(
            str,
            "",
            "checkpoint file or folder; default: the model fit trained, else the one shipped for the problem (solvers/)",
            path=True,
        ),
        "chains": Option(int, 16, "K, parallel chains per round", minimum=1),
        "steps": Option(int, None, "T, steps per round; auto: the steps the model was trained with", minimum=1),
        **ROUNDS_AND_POLISH,
    }
    fit_options: ClassVar[dict[str, Option]] = {
        **adjoint_options(_DEFAULTS, network="GNN", instance="graph"),
        "graphs": Option(int, _DEFAULTS.graphs, "graphs per training batch (per process)", minimum=1),
        "penalty": Option(float, _DEFAULTS.penalty, "constraint penalty of the energy; auto: the problem's default", minimum=0),
        "validation_graphs": Option(
            int, _DEFAULTS.validation_graphs, "held-out graphs: from a distribution, or at most from files", minimum=1
        ),
        "validation_chains": Option(int, _DEFAULTS.validation_chains, "chains per held-out graph", minimum=1),
        "device": Option(
            str,
            _DEFAULTS.device,
            "torch device of training, cpu or cuda: the network's passes (rollouts stay in numpy)",
            choices=("cpu", "cuda"),
        ),
        "base": Option(
            str,
            _DEFAULTS.base,
            "rlsa: the network's logits are added to RLSA's (a residual policy: untrained, it samples like rlsa)",
            choices=("", "rlsa"),
        ),
        "base_clip": Option(float, _DEFAULTS.base_clip, "bound on the base logits of a residual policy", minimum=0.1),
    }

    def data_fields(self, data: Any) -> dict[str, Any]:
        return {"problem": data.kind, "distribution": data.name}

    def prepare(self, problem: Problem) -> None:
        from cosolve.methods.cam.cam_checkpoint import load_numpy_checkpoint

        kind = problem.kind
        missing = (
            f"no CAM checkpoint is shipped for {kind}; train one with `cosolve train cam --problem {kind} "
            "--dist DIST --time SECONDS --out DIR` (or `--data FOLDER`) and pass --set checkpoint=DIR"
        )
        model = self.model_for(self.config["checkpoint"], DEFAULT_CHECKPOINTS.get(kind), missing, load_numpy_checkpoint)
        if model.config.problem != kind:
            where = "this fitted model" if model.source is None else str(model.source)
            raise UsageError(f"{where}: a cam model for {model.config.problem}, not for {kind}")
        super().prepare(problem)  # a warm-up solve: numba decoders, torch kernels

    def resolve(self, problem: Problem, time_limit: float) -> dict[str, Any]:
        options = super().resolve(problem, time_limit)
        if options["steps"] is None:
            options["steps"] = self.model_.config.steps
        return options

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.cam.flip_policy_numpy import NumpyFlipPolicy, NumpyGraph, numpy_rule

        self.prepare(problem)
        model = self.model_
        if not isinstance(model.policy, NumpyFlipPolicy):  # fitted in this process: run it in numpy too
            model.policy = NumpyFlipPolicy.from_torch(model.policy)

        def make_rule(batch, rng):  # called once per solve
            base = model.config.base_logits(batch)
            return numpy_rule(model.policy, batch.energy, NumpyGraph.from_coupling(batch.coupling), base)

        o = ctx.options
        return run_rounds(problem, ctx, make_rule, o["chains"], o["steps"], keep_best=False, penalty=model.config.penalty)
