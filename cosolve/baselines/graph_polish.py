"""The ``polish`` method: the local search ``cam`` and ``rlsa`` polish with
(:mod:`cosolve.diffusion.polish`), alone, from a random decoded start: the ablation that says what
the sampler adds."""

from __future__ import annotations

from typing import Any, ClassVar

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.diffusion.anytime_sampling import GRAPH_KINDS, POLISH_ITERATIONS, POLISH_WARM_UP, SEARCH, polish_from


@register
class Polish(Method):
    """The local search ``cam`` and ``rlsa`` polish with, alone, from a random decoded start."""

    name: ClassVar[str] = "polish"
    problems: ClassVar[frozenset[str]] = GRAPH_KINDS
    summary: ClassVar[str] = (
        "local search alone from a random start: NuMVC or ARW's iterated local search (mis, maxclique), "
        "1-flip tabu search (maxcut), swap search (mds)"
    )
    warm_up: ClassVar[bool] = True
    warm_up_options: ClassVar[dict[str, Any]] = POLISH_WARM_UP
    options: ClassVar[dict[str, Option]] = {"polish_iterations": POLISH_ITERATIONS, "search": SEARCH}

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.diffusion.decode import decode

        start = decode(problem, ctx.rng.random((1, problem.n)))[0]
        ctx.trace.offer(start)
        return polish_from(problem, ctx, start, {})
