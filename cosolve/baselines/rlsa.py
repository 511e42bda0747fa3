"""The ``rlsa`` method: the anytime sampler of :mod:`cosolve.diffusion.anytime_sampling` with
RLSA's regularised energy-gradient flip rule (:func:`cosolve.diffusion.sampler.rlsa_rule`), its
temperature annealed over each round; each chain keeps its lowest-energy state, which is decoded.
No learning: what ``cam`` adds over it is what the training bought."""

from __future__ import annotations

from typing import Any, ClassVar

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.diffusion.anytime_sampling import GRAPH_KINDS, POLISH_WARM_UP, ROUNDS_AND_POLISH, run_rounds


@register
class RLSA(Method):
    """Regularised Langevin simulated annealing on the penalised energy (no learning)."""

    name: ClassVar[str] = "rlsa"
    problems: ClassVar[frozenset[str]] = GRAPH_KINDS
    summary: ClassVar[str] = "annealed sampler with RLSA's energy-gradient flip rule (cam without learning)"
    warm_up: ClassVar[bool] = True
    warm_up_options: ClassVar[dict[str, Any]] = POLISH_WARM_UP
    options: ClassVar[dict[str, Option]] = {
        "chains": Option(int, 32, "K, parallel chains per round", minimum=1),
        "steps": Option(int, 100, "T, annealing steps per round", minimum=1),
        "tau": Option(float, None, "initial temperature; auto: 5 for maxcut, 0.01 otherwise", minimum=0),
        "d": Option(
            int,
            None,
            "regulariser: the k-th largest improvement, k uniform in 2..d, is subtracted; auto: 20 for maxcut, 5 otherwise",
            minimum=2,
        ),
        **ROUNDS_AND_POLISH,
    }

    def resolve(self, problem: Problem, time_limit: float) -> dict[str, Any]:
        from cosolve.diffusion.sampler import rlsa_defaults

        options = super().resolve(problem, time_limit)
        tau, d = rlsa_defaults(problem.kind)
        if options["tau"] is None:
            options["tau"] = tau
        if options["d"] is None:
            options["d"] = d
        return options

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.diffusion.sampler import rlsa_rule

        o = ctx.options
        steps = o["steps"]
        return run_rounds(
            problem,
            ctx,
            lambda batch, rng: rlsa_rule(batch.energy.grad, steps, tau=o["tau"], d=o["d"], rng=rng),
            o["chains"],
            steps,
            keep_best=True,
        )
