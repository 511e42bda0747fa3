"""The set cover LNS methods: ``glns`` (neighbourhoods from diffusion-trajectory instability) and
``lns-random`` (random neighbourhoods, the same search and sub-solver otherwise).

Both accept only set cover; another MIP gets an error naming the methods that do accept it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.methods.glns.glns_config import GLNSConfig
from cosolve.training.hyperparameters import adjoint_options
from cosolve.training.learned import AdjointMethod

LNS_OPTIONS: dict[str, Option] = {
    "size": Option(int, 200, "free columns in the first neighbourhood (then adapted)", minimum=1),
    "sub_time": Option(
        float, None, "seconds per sub-MIP; auto: 5% of the time left when the LNS loop starts, within 0.2..2 s", minimum=0.001
    ),
    "sub_solver": Option(str, "scip", "the sub-MIP solver", choices=("scip", "cpsat")),
    "neighbourhood": Option(
        str,
        "ranked",
        "where neighbourhoods grow from: ranked (the method's ranking: glns learned or gradient instability, "
        "lns-random random), expensive (the incumbent's columns of largest Lagrangian reduced cost, perturbed) or "
        "disagreement (columns on which the search's pool of good covers differ)",
        choices=("ranked", "expensive", "disagreement"),
    ),
    "per_row": Option(int, 40, "candidate columns per row (least Lagrangian reduced cost)", minimum=1),
    "lagrangian_iterations": Option(int, 1000, "subgradient steps for the bound and the reduced costs", minimum=0),
    "heuristic_iterations": Option(int, 200, "steps of the Lagrangian heuristic phase that gives the start", minimum=0),
    "refine_share": Option(
        float,
        0.3,
        "most of the remaining budget CFT's refinement (three-phase around the start), and each later search "
        "between repairs, may take",
        minimum=0,
    ),
    "refine_cycles": Option(
        int, 1, "whole cycles of the refinement's fixing fraction without a cheaper cover before the LNS loop starts", minimum=1
    ),
    "refine_patience": Option(
        int, 30, "repairs in a row without a cheaper cover after which another refinement runs (0: never)", minimum=0
    ),
    "refine_balance": Option(
        float,
        0.25,
        "repairs without a cheaper cover may take this many times the last search's seconds before the next one "
        "(0: only refine_patience counts)",
        minimum=0,
    ),
    "refine_adapt": Option(
        bool,
        False,
        "refine_balance halves after repairs that found nothing (to 1/8 of it) and doubles after one that "
        "found a cheaper cover (to 4 times); false: fixed",
    ),
    "refine_fresh": Option(
        bool,
        False,
        "each three-phase of the refinement starts from CFT's initial multipliers of its residual instead of the "
        "whole instance's best ones, perturbed",
    ),
    "repair_probation": Option(
        float,
        0.1,
        "share of the budget the repairs may take without a cheaper cover; past it the local search takes the rest (0: off)",
        minimum=0,
        maximum=1,
    ),
    "probation_since": Option(
        str,
        "gain",
        "what the repairs' probation counts from: gain (the repairs' last cheaper cover: a stretch of repairs "
        "without one as long as the probation fails it) or start (the loop's start; one cheaper cover ends it)",
        choices=("start", "gain"),
    ),
    "rest_restarts": Option(
        bool,
        False,
        "after a failed probation, the local search runs until it stalls and then restarts from a fresh "
        "refinement of the Lagrangian heuristic's cover, until the deadline (false: one local search to the deadline)",
    ),
    "local_search": Option(
        str,
        "rwls",
        "the search the LNS loop runs between repairs and after a failed probation: rwls (row-weighting local "
        "search on a core) or refine (CFT's refinement)",
        choices=("rwls", "refine"),
    ),
    "rwls_core": Option(int, 20, "columns per row (least reduced cost) the row-weighting local search moves among", minimum=1),
    "rwls_columns": Option(
        str,
        "both",
        "the row-weighting search's core: reduced (rwls_core columns of least reduced cost per row), seen (the "
        "columns of the covers the refinements completed) or both",
        choices=("reduced", "seen", "both"),
    ),
    "refine_pool": Option(
        int,
        0,
        "columns per row the refinement prices among (least reduced cost, plus the cover's; 0: all the bound keeps)",
        minimum=0,
    ),
}


def _settings(options: dict[str, Any]) -> Any:
    from cosolve.methods.glns.lns import LNSSettings

    return LNSSettings(**{k: options[k] for k in LNS_OPTIONS if k != "neighbourhood"})


def _run(problem: Problem, ctx: SolveContext, ranked: Any) -> Outcome:
    """The LNS with the ranking the ``neighbourhood`` option asks for (``ranked``: the method's own)
    and the pool of covers that ranking needs."""
    from cosolve.methods.glns.lns import LNSStats, run_lns
    from cosolve.methods.glns.targeted import POOL_SIZES, TARGETED_RANKERS

    kind = ctx.options["neighbourhood"]
    ranker = ranked if kind == "ranked" else TARGETED_RANKERS[kind]
    stats = LNSStats()
    outcome = run_lns(problem, ctx, ranker, _settings(ctx.options), stats, pool_size=POOL_SIZES.get(kind, 0))
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
        from cosolve.methods.glns.kernel_warmup import warm_kernels

        warm_kernels()
        super().prepare(problem)

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.glns.lns import random_ranker

        return _run(problem, ctx, random_ranker)


#: The shipped checkpoint folder (under ``solvers/``) of the ``glns`` policy.
GLNS_CHECKPOINT = "glns-setcover"

_DEFAULTS = GLNSConfig()

GLNS_OPTIONS: dict[str, Option] = {
    "policy": Option(
        str,
        "cam",
        "flip rule of the trajectory: cam (the trained policy) or gradient (untrained: RLSA's rule)",
        choices=("cam", "gradient"),
    ),
    "checkpoint": Option(
        str,
        "",
        "policy checkpoint file or folder; default: the model fit trained, else the shipped one (solvers/glns-setcover)",
        path=True,
    ),
    "region": Option(int, 600, "columns of the region one generation samples on (at least twice the free-set size)", minimum=10),
    "chains": Option(int, 4, "K, chains per generation", minimum=1),
    "steps": Option(int, 8, "T, denoising steps per generation", minimum=1),
    "noise": Option(
        float, 0.3, "share of the incumbent's bits redrawn before denoising (the start time)", minimum=0.01, maximum=1.0
    ),
    "region_seed": Option(
        str,
        "random",
        "the row the ranking's region grows from: random, or expensive (a row of the incumbent column of largest "
        "perturbed Lagrangian reduced cost)",
        choices=("random", "expensive"),
    ),
}

GLNS_FIT_OPTIONS: dict[str, Option] = {
    **adjoint_options(_DEFAULTS, network="bipartite GNN", instance="instance"),
    "instances": Option(int, _DEFAULTS.instances, "instances per training batch", minimum=1),
    "penalty": Option(float, _DEFAULTS.penalty, "penalty per uncovered row (costs scaled to at most 1)", minimum=0),
    "noise_min": Option(
        float, _DEFAULTS.noise_min, "least share of the incumbent's bits redrawn in a rollout", minimum=0.01, maximum=1.0
    ),
    "noise_max": Option(float, _DEFAULTS.noise_max, "largest share of the incumbent's bits redrawn", minimum=0.01, maximum=1.0),
    "validation_instances": Option(
        int, _DEFAULTS.validation_instances, "held-out instances: from a distribution, or at most from files", minimum=1
    ),
    "validation_noise": Option(
        float, _DEFAULTS.validation_noise, "share of the incumbent's bits redrawn in validation", minimum=0.01, maximum=1.0
    ),
}


@register
class GLNS(AdjointMethod):
    """Generative LNS: neighbourhoods where a denoising trajectory around the incumbent is unstable."""

    name: ClassVar[str] = "glns"
    problems: ClassVar[frozenset[str]] = frozenset({"setcover"})
    summary: ClassVar[str] = "set cover LNS: neighbourhoods from diffusion-trajectory instability (CAM-trained GNN), SCIP repairs"
    warm_up: ClassVar[bool] = True
    task: ClassVar[str] = "cosolve.methods.glns.glns_task:GLNSTask"
    #: what ``cosolve train glns`` trains on without --data or --dist
    default_distribution: ClassVar[str] = "balas-ho"
    config_type: ClassVar[type] = GLNSConfig
    options: ClassVar[dict[str, Option]] = {**LNS_OPTIONS, **GLNS_OPTIONS}
    fit_options: ClassVar[dict[str, Option]] = GLNS_FIT_OPTIONS

    def prepare(self, problem: Problem) -> None:
        from cosolve.methods.glns.kernel_warmup import warm_kernels

        warm_kernels()
        if self.config["policy"] == "cam":
            from cosolve.methods.glns.glns_checkpoint import load_numpy_checkpoint

            missing = (
                "no GLNS checkpoint is shipped; train one with `cosolve train glns --time SECONDS --out DIR` and pass "
                "--set checkpoint=DIR, or use --set policy=gradient"
            )
            self.model_for(self.config["checkpoint"], GLNS_CHECKPOINT, missing, load_numpy_checkpoint)
        super().prepare(problem)

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.methods.glns.cover_policy_numpy import learned_rule
        from cosolve.methods.glns.instability import gradient_rule, instability_ranker
        from cosolve.methods.glns.targeted import REGION_SEEDS

        o = ctx.options
        if o["policy"] == "cam":
            self.prepare(problem)
            rule, penalty = learned_rule(self.model_.policy), self.model_.config.penalty
        else:
            rule, penalty = gradient_rule(), None
        ranker = instability_ranker(
            rule, region=o["region"], chains=o["chains"], steps=o["steps"], noise=o["noise"], penalty=penalty,
            seed_row=REGION_SEEDS[o["region_seed"]],
        )  # fmt: skip
        return _run(problem, ctx, ranker)
