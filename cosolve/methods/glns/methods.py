"""The set cover LNS methods: ``glns`` (neighbourhoods from diffusion-trajectory instability) and
``lns-random`` (random neighbourhoods, the same search and sub-solver otherwise).

Both accept only set cover; another MIP gets an error naming the methods that do accept it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.registry import register
from cosolve.errors import InputError, UsageError
from cosolve.problems.base import Problem

LNS_OPTIONS: dict[str, Option] = {
    "size": Option(int, 200, "free columns in the first neighbourhood (then adapted)", minimum=1),
    "sub_time": Option(float, 0.0, "seconds per sub-MIP; 0 = 5% of the budget within 0.2..2 s", minimum=0),
    "sub_solver": Option(str, "scip", "the sub-MIP solver", choices=("scip", "cpsat")),
    "per_row": Option(int, 40, "candidate columns per row (least Lagrangian reduced cost)", minimum=1),
    "lagrangian_iterations": Option(int, 1000, "subgradient steps for the bound and the reduced costs", minimum=0),
    "heuristic_iterations": Option(int, 200, "steps of the Lagrangian heuristic phase that gives the start", minimum=0),
    "refine_share": Option(
        float, 0.8, "most of the remaining budget CFT's refinement (three-phase around the start) may take", minimum=0
    ),
}


def _settings(options: dict[str, Any]) -> Any:
    from cosolve.methods.glns.lns import LNSSettings

    return LNSSettings(**{k: options.get(k, option.default) for k, option in LNS_OPTIONS.items()})


def _finish(outcome: Outcome, stats: Any) -> Outcome:
    return Outcome(outcome.termination, outcome.proven, stats.as_dict())


@register
class RandomLNS(Method):
    """Set cover LNS with random neighbourhoods (the ablation of ``glns``'s learned selection)."""

    name: ClassVar[str] = "lns-random"
    problems: ClassVar[frozenset[str]] = frozenset({"setcover"})
    summary: ClassVar[str] = "set cover LNS: random neighbourhoods repaired by a SCIP sub-MIP; Lagrangian bound"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = dict(LNS_OPTIONS)

    def prepare(self, problem: Problem) -> None:
        from cosolve.methods.glns.warmup import warm_kernels

        warm_kernels()
        super().prepare(problem)

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.glns.lns import LNSStats, random_ranker, run_lns

        stats = LNSStats()
        return _finish(run_lns(problem, ctx, random_ranker, _settings(ctx.options), stats), stats)


#: The shipped checkpoint folder (under ``solvers/``) of the ``glns`` policy.
GLNS_CHECKPOINT = "glns-setcover"

GLNS_OPTIONS: dict[str, Option] = {
    "policy": Option(
        str, "cam", "flip rule of the trajectory: cam (the trained policy) or gradient (untrained: RLSA's rule)",
        choices=("cam", "gradient"),
    ),
    "checkpoint": Option(str, "", "policy checkpoint file or folder; default: the shipped one (solvers/glns-setcover)"),
    "region": Option(int, 600, "columns of the region one generation samples on (at least twice the free-set size)", minimum=10),
    "chains": Option(int, 4, "K, chains per generation", minimum=1),
    "steps": Option(int, 8, "T, denoising steps per generation", minimum=1),
    "noise": Option(float, 0.3, "share of the incumbent's bits redrawn before denoising (the start time)", minimum=0.01),
}  # fmt: skip


def resolve_glns_checkpoint(option: str) -> Path:
    """The ``model.pt`` that ``option`` names, or the shipped one."""
    from cosolve.diffusion.checkpoints import shipped_folder

    if option:
        path = Path(option)
        path = path / "model.pt" if path.is_dir() else path
        if not path.is_file():
            raise InputError(f"checkpoint {option}: no such file")
        return path
    path = shipped_folder() / GLNS_CHECKPOINT / "model.pt"
    if not path.is_file():
        raise UsageError(
            "no GLNS checkpoint is shipped; train one with `cosolve train glns --time SECONDS --out DIR` and pass "
            "--set checkpoint=DIR, or use --set policy=gradient"
        )
    return path


@register
class GLNS(Method):
    """Generative LNS: neighbourhoods where a denoising trajectory around the incumbent is unstable."""

    name: ClassVar[str] = "glns"
    problems: ClassVar[frozenset[str]] = frozenset({"setcover"})
    summary: ClassVar[str] = "set cover LNS: neighbourhoods from diffusion-trajectory instability (CAM-trained GNN), SCIP repairs"
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {**LNS_OPTIONS, **GLNS_OPTIONS}

    def prepare(self, problem: Problem) -> None:
        from cosolve.methods.glns.warmup import warm_kernels

        warm_kernels()
        if self.config.get("policy", "cam") == "cam":
            path = resolve_glns_checkpoint(self.config.get("checkpoint", ""))
            if getattr(self, "checkpoint_", None) != path:
                from cosolve.methods.glns.train import load_checkpoint

                self.policy_, self.glns_config_, self.meta_ = load_checkpoint(path)
                self.checkpoint_ = path
        super().prepare(problem)

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.glns.instability import gradient_rule, instability_ranker, learned_rule
        from cosolve.methods.glns.lns import LNSStats, run_lns

        o = {k: ctx.options.get(k, opt.default) for k, opt in self.options.items()}
        if o["policy"] == "cam":
            import torch

            self.prepare(problem)
            torch.set_num_threads(ctx.threads)
            rule, penalty = learned_rule(self.policy_), self.glns_config_.penalty
        else:
            rule, penalty = gradient_rule(), None
        ranker = instability_ranker(
            rule, region=o["region"], chains=o["chains"], steps=o["steps"], noise=o["noise"], penalty=penalty
        )
        stats = LNSStats()
        return _finish(run_lns(problem, ctx, ranker, _settings(ctx.options), stats), stats)
