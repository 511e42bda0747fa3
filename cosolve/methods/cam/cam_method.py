"""The ``cam``, ``rlsa`` and ``polish`` methods: anytime sampling of the flip-rate CTMC, decoded per round.

Both run rounds until the deadline: K chains from uniform noise, T tau-leaping steps, decode
every chain to a feasible solution (:mod:`cosolve.diffusion.decode`), offer the best. Measured
step and decoding costs (:mod:`cosolve.diffusion.pacing`) decide whether one more step fits; a
round cut that way is decoded from the state it reached, so a solution comes back by the deadline.

- ``cam``: flips by a policy trained with Combinatorial Adjoint Matching; the checkpoint is the
  one shipped for the problem (``solvers/``) unless ``checkpoint`` names another, or the model
  ``fit`` trained (on the user's graphs or a distribution: :mod:`cosolve.training.adjoint`).
- ``rlsa``: the same sampler with the policy replaced by RLSA's regularised energy-gradient rule
  (:func:`cosolve.diffusion.sampler.rlsa_rule`) and its temperature annealed over each round;
  each chain keeps its lowest-energy state, which is decoded. No learning: what ``cam`` adds over
  it is what the training bought.

Both leave the ``polish`` share of the time limit (default 0.5: in the graph-peers benchmark the
polished sampler beats the bare one on every set; ``--set polish=0`` samples only) to a local
search from the best decoded solution (:mod:`cosolve.diffusion.polish`); the ``polish`` method is
that search alone, from a random decoded start (the ablation that says what the sampler adds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination
from cosolve.errors import UsageError
from cosolve.methods.cam.cam_config import CAMConfig
from cosolve.problems.graphs import GRAPH_PROBLEMS
from cosolve.training.hyperparameters import adjoint_options
from cosolve.training.learned import AdjointMethod

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
    "(cosolve.heuristics.graphs.local_searches; 0: none, sampling only; without a time limit, 20 iterations per node)",
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
#: a warm-up solve compiles the polish without running it to the warm-up's deadline
POLISH_WARM_UP = {"polish_iterations": 100}

#: The shipped checkpoint folder (under ``solvers/``) of each problem.
DEFAULT_CHECKPOINTS = {
    "mis": "cam-mis-er-700-800",
    "maxcut": "cam-maxcut-ba-small",
    "maxclique": "cam-maxclique-rb-small",
    "mds": "cam-mds-ba-small",
}


def _run_rounds(
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
        return _polish(problem, ctx, ctx.trace.solution, stats, bounded=bool(rounds), pool=guide)
    return Outcome(termination, stats=stats)


def _polish(
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
        "rounds": Option(int, 0, "stop after this many rounds (0 = run until the time limit)", minimum=0),
        "polish": POLISH,
        "polish_iterations": POLISH_ITERATIONS,
        "polish_guide": POLISH_GUIDE,
        "search": SEARCH,
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
        return _run_rounds(
            problem,
            ctx,
            lambda batch, rng: rlsa_rule(batch.energy.grad, steps, tau=o["tau"], d=o["d"], rng=rng),
            o["chains"],
            steps,
            keep_best=True,
        )


_D = CAMConfig()


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
        "rounds": Option(int, 0, "stop after this many rounds (0 = run until the time limit)", minimum=0),
        "polish": POLISH,
        "polish_iterations": POLISH_ITERATIONS,
        "polish_guide": POLISH_GUIDE,
        "search": SEARCH,
    }
    fit_options: ClassVar[dict[str, Option]] = {
        **adjoint_options(_D, network="GNN", instance="graph"),
        "graphs": Option(int, _D.graphs, "graphs per training batch (per process)", minimum=1),
        "penalty": Option(float, _D.penalty, "constraint penalty of the energy; auto: the problem's default", minimum=0),
        "validation_graphs": Option(
            int, _D.validation_graphs, "held-out graphs: from a distribution, or at most from files", minimum=1
        ),
        "validation_chains": Option(int, _D.validation_chains, "chains per held-out graph", minimum=1),
        "device": Option(
            str,
            _D.device,
            "torch device of training, cpu or cuda: the network's passes (rollouts stay in numpy)",
            choices=("cpu", "cuda"),
        ),
        "base": Option(
            str,
            _D.base,
            "rlsa: the network's logits are added to RLSA's (a residual policy: untrained, it samples like rlsa)",
            choices=("", "rlsa"),
        ),
        "base_clip": Option(float, _D.base_clip, "bound on the base logits of a residual policy", minimum=0.1),
    }

    def data_fields(self, data: Any) -> dict[str, Any]:
        return {"problem": data.kind, "distribution": data.name}

    def prepare(self, problem: Problem) -> None:
        from cosolve.methods.cam.flip_policy_numpy import load_numpy_checkpoint

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
        return _run_rounds(problem, ctx, make_rule, o["chains"], o["steps"], keep_best=False, penalty=model.config.penalty)


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
        return _polish(problem, ctx, start, {})
