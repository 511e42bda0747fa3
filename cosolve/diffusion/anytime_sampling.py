"""Anytime sampling of the flip-rate CTMC on a graph, decoded per round, then polished: the
solve loop ``cam`` and ``rlsa`` share, and the polish the ``polish`` method runs alone.

Rounds run until the deadline: K chains from uniform noise, T tau-leaping steps, decode every
chain to a feasible solution (:mod:`cosolve.diffusion.decode`), offer the best. Measured step and
decoding costs (:mod:`cosolve.diffusion.pacing`) decide whether one more step fits; a round cut
that way is decoded from the state it reached, so a solution comes back by the deadline. The
``polish`` share of the time limit (default 0.5: in the graph-peers benchmark the polished
sampler beats the bare one on every set; ``--set polish=0`` samples only) goes to a local search
from the best decoded solution (:mod:`cosolve.diffusion.polish`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cosolve.core.method import Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.result import Termination
from cosolve.problems.graphs import GRAPH_PROBLEMS

if TYPE_CHECKING:
    from cosolve.diffusion.batch import GraphBatch
    from cosolve.diffusion.pacing import Pacer
    from cosolve.diffusion.sampler import FlipRule

GRAPH_KINDS = frozenset(GRAPH_PROBLEMS)

#: The share of the time limit left to the local search after sampling (cam and rlsa).
POLISH = Option(
    float,
    0.5,
    "share of the time limit for the local search that polishes the best decoded solution after sampling "
    "(cosolve.heuristics.graphs; 0: none, sampling only; without a time limit, 20 iterations per node)",
    minimum=0,
    below=1,
)
POLISH_ITERATIONS = Option(
    int,
    0,
    "stop the polish after this many iterations (0: at the time limit; without one, or with rounds, 20 per node)",
    minimum=0,
)
SEARCH = Option(
    str,
    "numvc",
    "local search of the polish for mis and maxclique: numvc (NuMVC on the vertex cover that complements the "
    "set) or arw (ARW iterated local search); maxcut and mds have one each",
    choices=("numvc", "arw"),
    problems=("mis", "maxclique"),
)
POLISH_GUIDE = Option(
    bool,
    False,
    "maxcut: the tabu's perturbed restarts flip nodes in proportion to how often the sampler's chains "
    "(of the round with the best decoding) disagree with the polish's start, instead of uniformly",
    problems=("maxcut",),
)
#: the options of the rounds and of the polish after them (cam and rlsa)
ROUNDS_AND_POLISH: dict[str, Option] = {
    "rounds": Option(int, 0, "stop after this many rounds (0 = run until the time limit)", minimum=0),
    "polish": POLISH,
    "polish_iterations": POLISH_ITERATIONS,
    "polish_guide": POLISH_GUIDE,
    "search": SEARCH,
}
#: a warm-up solve compiles the polish without running it to the warm-up's deadline
POLISH_WARM_UP = {"polish_iterations": 100}


def run_rounds(
    problem: Problem, ctx: SolveContext, make_rule: Any, chains: int, steps: int, *, keep_best: bool, penalty: float | None = None
) -> Outcome:
    """Rounds of ``chains`` chains and ``steps`` steps until the deadline (or ``rounds`` rounds),
    then the polish (the ``polish`` share of the time limit) from the best decoded solution.

    A :class:`~cosolve.diffusion.pacing.Pacer` keeps the sampler's deadline (the time limit less
    the polish's share): a step starts only if it and the decoding after it fit in the time
    left; the round it cuts is decoded from the state it reached and ends the sampling. The first
    round is decoded even when no step fits (then from its noise), so there is always a solution.
    ``Result.stats``: ``chains``, ``steps_per_round``, the decoded ``rounds`` and denoising
    ``steps`` taken in all, and with a polish its ``polish_iterations`` and ``polish_seconds``.
    """
    import math

    from cosolve.diffusion.batch import GraphBatch
    from cosolve.diffusion.inference import decode_best, sample
    from cosolve.diffusion.pacing import Pacer

    batch = GraphBatch([problem], penalty=penalty)
    rng = ctx.rng
    rule = make_rule(batch, rng)
    rounds = ctx.options["rounds"]
    share = ctx.options["polish"]
    budget = ctx.deadline.remaining()
    reserve = share * budget if math.isfinite(budget) else 0.0
    pacer = Pacer(lambda: ctx.deadline.remaining() - reserve)
    if math.isfinite(budget):
        _calibrate(pacer, rule, batch)
    requested = lambda: ctx.deadline.stop_requested  # noqa: E731
    stats = {"chains": chains, "steps_per_round": steps, "rounds": 0, "steps": 0}
    termination = Termination.COMPLETED
    pool = None  # the chains' states of the round whose decoding is the best
    while True:
        out = sample(rule, batch, chains, steps, rng, stop=pacer.stop_rule(chains, requested), keep_best=keep_best)
        if out.steps or not stats["rounds"]:
            started = pacer.clock()
            ((solution, value),) = decode_best(batch, out.marginal, out.final)
            pacer.observe_decode(pacer.clock() - started, chains)
            if ctx.trace.offer(solution, value):
                pool = out.final
            stats["rounds"] += 1
            stats["steps"] += out.steps
        if out.steps < steps or ctx.deadline.stop_requested:
            termination = Termination.TIME_LIMIT
            break
        if rounds and stats["rounds"] >= rounds:
            break
    if share > 0 and not ctx.deadline.stop_requested:
        guide = pool if ctx.options["polish_guide"] else None
        return polish_from(problem, ctx, ctx.trace.solution, stats, bounded=bool(rounds), pool=guide)
    return Outcome(termination, stats=stats)


def polish_from(
    problem: Problem, ctx: SolveContext, start: Any, stats: dict[str, Any], *, bounded: bool = False, pool: Any = None
) -> Outcome:
    """Polish ``start`` with the problem's local search until the deadline or ``polish_iterations``
    (without either, or when the sampling was ``bounded`` by a number of rounds:
    ``ITERATIONS_PER_NODE * n`` iterations); each improvement goes to the trace. ``pool`` (K, n):
    the sampler's states, to guide the search (:func:`cosolve.diffusion.polish.local_search`)."""
    import math

    from cosolve.diffusion.polish import ITERATIONS_PER_NODE, local_search, polish

    search = local_search(problem, start, ctx.seed, independent_set_search=ctx.options["search"], pool=pool)
    ctx.trace.offer(search.best)
    cap = ctx.options["polish_iterations"] or (
        None if math.isfinite(ctx.deadline.remaining()) and not bounded else ITERATIONS_PER_NODE * problem.n
    )
    done = polish(search, ctx.deadline.remaining, ctx.trace.offer, iterations=cap, stop=lambda: ctx.deadline.stop_requested)
    stats.update(polish_iterations=done.iterations, polish_seconds=round(done.seconds, 6))
    finished = cap is not None and done.iterations >= cap
    return Outcome(Termination.COMPLETED if finished else Termination.TIME_LIMIT, stats=stats)


def _calibrate(pacer: Pacer, rule: FlipRule, batch: GraphBatch) -> None:
    """Time the rule and the decoder on one chain, each after an untimed first call (which pays
    for first-use set-up), on a probe state of a generator of its own; their output is dropped.
    One chain costs a fraction of a K-chain step, and the first real step corrects the guess."""
    import numpy as np

    from cosolve.diffusion.inference import decode_best
    from cosolve.diffusion.sampler import uniform_start

    def seconds_of_second_call(call: Any) -> float:
        call()
        started = pacer.clock()
        call()
        return pacer.clock() - started

    probe = uniform_start(1, batch.n, np.random.default_rng(0))
    pacer.observe_step(seconds_of_second_call(lambda: rule(probe, 1.0, 0)), 1)
    pacer.observe_decode(seconds_of_second_call(lambda: decode_best(batch, probe.astype(np.float64))), 1)
