"""The ``gumbel-sinkhorn`` method: entropy-adaptive Gumbel–Sinkhorn permutation learning.

- After ``Solver("gumbel-sinkhorn", ...).fit(instances)`` (unlabelled instances of one size; jigsaw
  puzzles of one grid and piece shape), a solve decodes the trained network's logits with the
  Hungarian algorithm (:mod:`cosolve.methods.sinkhorn.sorting`,
  :mod:`cosolve.methods.sinkhorn.jigsaw_net`); a jigsaw arrangement is then polished by pairwise swaps.
  TSP instances (of any sizes, or the ``tsp-uniform`` distribution) train an edge network
  (:mod:`cosolve.methods.sinkhorn.tour_net`) whose logits start the per-instance TSP latent below.
  Every fit runs through :mod:`cosolve.training.loop` (validated on held-out instances, the best
  network kept, checkpointed to ``out`` and resumable), until the training time or ``steps`` steps.
- Without ``fit``, a solve optimises the instance's own logits (a latent permutation), decoding and
  offering the incumbent as it goes: for sorting until it is sorted, the time limit or
  ``latent_steps``; for TSP (:mod:`cosolve.methods.sinkhorn.latent_tour`) a sparse
  successor permutation on candidate edges for ``latent_steps`` or ``sinkhorn_share`` of the time
  limit, each decoded tour brought to a 2-opt + Or-opt optimum, then an iterated local search from the
  best until the time limit; jigsaw in runs of ``latent_steps`` restarted until the time limit
  (:mod:`cosolve.methods.sinkhorn.jigsaw`), each arrangement polished by pairwise swaps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from cosolve.core.method import FitContext, Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination
from cosolve.errors import UsageError
from cosolve.training.training_data import TrainingData

OPTIONS: dict[str, Option] = {
    "temperature": Option(
        str,
        "adaptive",
        "adaptive (entropy-adaptive), fixed or annealed (global schedule)",
        choices=("adaptive", "fixed", "annealed"),
    ),
    "samples": Option(int, 5, "Gumbel samples per instance", minimum=1),
    "iterations": Option(int, 10, "Sinkhorn iterations", minimum=1),
    "start": Option(float, 1.5, "base temperature at the first step", minimum=1e-9),
    "end": Option(float, 0.5, "base temperature at the last step", minimum=1e-9),
    "fixed": Option(float, 1.0, "the temperature of temperature=fixed", minimum=1e-9),
    "threshold": Option(float, 0.7, "normalised entropy above which a row or column is boosted", minimum=0, below=1.0),
    "max_boost": Option(float, 0.1, "largest relative temperature boost", minimum=0),
    "latent_steps": Option(
        int, 500, "steps of a per-instance (latent) run; TSP and jigsaw restart runs until the time limit", minimum=1
    ),
    "latent_lr": Option(float, 0.1, "Adam learning rate of a solve without fit", minimum=1e-12),
    "rounds": Option(
        int,
        0,
        "jigsaw: stop after this many latent runs (0 = restart until the time limit); tsp: with rounds > 0 "
        "(or no time limit) the local search stops after 100 kicks per city",
        minimum=0,
    ),
    "sinkhorn_share": Option(
        float, 0.3, "tsp: share of the time limit for the Sinkhorn phase (then ILS)", minimum=0, maximum=1, problems=("tsp",)
    ),
    "neighbors": Option(
        int, 10, "tsp: candidate cities per city (the sparse pattern and the local search)", minimum=1, problems=("tsp",)
    ),
    "cycle_penalty": Option(
        float, 1.0, "tsp: weight of the two-city-cycle mass in the Sinkhorn loss", minimum=0, problems=("tsp",)
    ),
    "checkpoint": Option(
        str, "", "a network saved after fit (folder or model.pt); default: the fitted one, else none", path=True
    ),
}

#: training steps of fit when ``steps`` is auto and there is no training time
DEFAULT_STEPS = 1000

#: options that shape training only (``fit``); the schedule options above serve both
FIT_OPTIONS: dict[str, Option] = {
    "steps": Option(
        int,
        None,
        f"training steps of fit (auto: until the training time, else {DEFAULT_STEPS}; 0: until the training time)",
        minimum=0,
    ),
    "batch_size": Option(int, 32, "instances per training step", minimum=1),
    "validate_every": Option(float, 30.0, "seconds of training between validations on the held-out instances", minimum=0),
    "lr": Option(float, 1e-2, "Adam learning rate of fit", minimum=1e-12),
    "objective": Option(
        str, "unsupervised", "training loss: unsupervised or supervised (fit only)", choices=("unsupervised", "supervised")
    ),
    "hidden": Option(int, 32, "hidden units of the network", minimum=1),
}

_LEARNER_KEYS = (
    "temperature", "samples", "iterations", "start", "end", "fixed", "threshold", "max_boost",
    "batch_size", "lr", "objective", "hidden",
)  # fmt: skip


def _steps(option: int | None, ctx: FitContext) -> int:
    """The loop's iteration limit (0: until the time limit) for the ``steps`` option."""
    if option is None:
        return 0 if ctx.time_limit is not None else DEFAULT_STEPS
    if option == 0 and ctx.time_limit is None:
        raise UsageError("gumbel-sinkhorn training with steps=0 needs a training time (train_time, --time)")
    return option


@register
class GumbelSinkhorn(Method):
    """Permutations learned without labels through an entropy-adaptive Gumbel–Sinkhorn relaxation."""

    name: ClassVar[str] = "gumbel-sinkhorn"
    problems: ClassVar[frozenset[str]] = frozenset({"sorting", "tsp", "jigsaw"})
    summary: ClassVar[str] = "entropy-adaptive Gumbel-Sinkhorn: a trained network (sorting, jigsaw) or per-instance latent logits"
    options: ClassVar[dict[str, Option]] = OPTIONS
    fit_options: ClassVar[dict[str, Option]] = FIT_OPTIONS
    fit_reads: ClassVar[frozenset[str]] = frozenset(
        {"temperature", "samples", "iterations", "start", "end", "fixed", "threshold", "max_boost", "neighbors", "cycle_penalty"}
    )
    warm_up: ClassVar[bool] = True
    warm_up_options: ClassVar[dict[str, Any]] = {"latent_steps": 4}  # a warm-up that ends by itself, well inside its deadline

    def prepare(self, problem: Problem) -> None:
        """Import torch and take one optimiser step before the clock starts: the first Adam step
        imports hundreds of modules (about a second), which a warm-up solve cut by its own short
        deadline would otherwise leave to the first timed solve."""
        import torch

        if problem.kind != "tsp":  # the TSP solve has its own Adam (cosolve.methods.sinkhorn.latent_tour)
            x = torch.zeros(2, requires_grad=True)
            optimizer = torch.optim.Adam([x], lr=0.1)
            (x * x).sum().backward()
            optimizer.step()
        if self.config["checkpoint"]:
            from cosolve.training.checkpoint import resolve_checkpoint

            if problem.kind == "tsp" and getattr(self, "tour_net_", None) is None:
                from cosolve.methods.sinkhorn.tour_net import load_tour_net

                self.tour_net_ = load_tour_net(resolve_checkpoint(self.config["checkpoint"], None, ""))
            elif problem.kind != "tsp" and getattr(self, "learner_", None) is None:
                from cosolve.methods.sinkhorn.learner import PermutationLearner

                self.learner_ = PermutationLearner.load(resolve_checkpoint(self.config["checkpoint"], None, ""))
        tour_net = getattr(self, "tour_net_", None)
        if problem.kind == "tsp" and tour_net is not None and self.config["neighbors"] != tour_net[1].neighbors:
            raise UsageError(f"this TSP network was trained with neighbors={tour_net[1].neighbors}; solve with the same")
        super().prepare(problem)

    def save(self, folder: str | Path) -> None:
        learner = getattr(self, "learner_", None)
        tour_net = getattr(self, "tour_net_", None)
        if tour_net is not None and (learner is None or getattr(self, "fitted_kind_", "") == "tsp"):
            from cosolve.methods.sinkhorn.tour_net import TourNetTask
            from cosolve.training.loop import save_model

            policy, config, meta = tour_net
            save_model(Path(folder), TourNetTask(config), policy, meta)
            return
        if learner is None:
            raise UsageError("gumbel-sinkhorn has no fitted network to save: call fit first")
        learner.save(folder)

    def fit(self, data: TrainingData, ctx: FitContext) -> GumbelSinkhorn:
        """Train on ``data`` through :func:`cosolve.training.loop.train` (a share held out for
        validation, the best network kept; with ``ctx.out`` its checkpoint and the resumable state
        written there, ``ctx.resume`` continues that run) for ``steps`` steps or ``ctx.time_limit``
        seconds: sorting and jigsaw the permutation network on a fixed set of one size
        (:class:`~cosolve.methods.sinkhorn.learner.PermutationTask`), TSP the edge network."""
        from cosolve.methods.sinkhorn.learner import PermutationLearner, PermutationTask
        from cosolve.training.loop import train
        from cosolve.training.training_data import FixedInstances

        task = data.kind
        if task == "tsp":
            return self._fit_tours(data, ctx)
        if task not in self.problems:
            raise UsageError(f"gumbel-sinkhorn cannot learn {task} problems (it learns: {', '.join(sorted(self.problems))})")
        if not isinstance(data, FixedInstances):
            raise UsageError("gumbel-sinkhorn fits on a fixed set of instances (Problems or files), not a distribution")
        steps = _steps(self.config["steps"], ctx)
        learner = PermutationLearner(task=task, steps=steps, seed=ctx.seed, **{k: self.config[k] for k in _LEARNER_KEYS})
        config = learner.training_config(data.instances, validate_every=self.config["validate_every"])
        network, progress, meta = train(PermutationTask(config, data.instances), data, ctx)
        self.learner_ = PermutationLearner.fitted(config, network, meta)
        self.training_ = progress
        self.fitted_kind_ = task
        self.__dict__.pop("_prepared_kinds", None)  # warm up again with the network
        return self

    def _fit_tours(self, data: TrainingData, ctx: FitContext) -> GumbelSinkhorn:
        """Train the TSP edge network (:mod:`cosolve.methods.sinkhorn.tour_net`) on ``data``."""
        from cosolve.methods.sinkhorn.tour_net import TourNetConfig, TourNetTask
        from cosolve.training.loop import train

        o = self.config
        if o["objective"] != "unsupervised":
            raise UsageError("the TSP edge network trains without labels: objective=unsupervised")
        fixed = o["temperature"] == "fixed"
        config = TourNetConfig(
            hidden=o["hidden"], neighbors=o["neighbors"], samples=o["samples"], sinkhorn_iterations=o["iterations"],
            temperature=o["temperature"], threshold=o["threshold"], max_boost=o["max_boost"],
            cycle_penalty=o["cycle_penalty"], batch_size=o["batch_size"], lr=o["lr"],
            tau_start=o["fixed"] if fixed else o["start"], tau_end=o["fixed"] if fixed else o["end"],
            validate_every=o["validate_every"], iterations=_steps(o["steps"], ctx),
        )  # fmt: skip
        policy, progress, meta = train(TourNetTask(config), data, ctx)
        self.tour_net_ = (policy, config, meta)
        self.training_ = progress
        self.fitted_kind_ = "tsp"
        self.__dict__.pop("_prepared_kinds", None)  # warm up again with the network
        return self

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        learner = getattr(self, "learner_", None)
        if problem.kind == "tsp" or (problem.kind == "jigsaw" and learner is None):
            return self._solve_restarted(problem, ctx)
        if problem.kind == "sorting":
            ctx.trace.offer_bound(0.0)  # no sequence has fewer than 0 inversions
        if learner is not None:
            perm = learner.predict([problem])[0]  # a UsageError unless the network was fitted on such instances
            ctx.trace.offer(perm, None)
            if problem.kind == "jigsaw":
                from cosolve.methods.sinkhorn.jigsaw import swap_search

                ctx.trace.offer(swap_search(problem, perm, lambda: ctx.deadline.stop_requested), None)
                if ctx.deadline.stop_requested:  # the swap search was cut short
                    return Outcome(Termination.TIME_LIMIT)
                return Outcome(Termination.COMPLETED)
            return Outcome(Termination.COMPLETED, _proven(ctx))
        return self._solve_latent(problem, ctx)

    def _solve_tour(self, problem: Problem, ctx: SolveContext) -> Outcome:
        import math

        from cosolve.baselines.tsp_ils import KICKS_PER_CITY
        from cosolve.heuristics.numba_random import seed_numba_random
        from cosolve.methods.sinkhorn.latent_tour import solve_tsp_sinkhorn

        o, deadline = ctx.options, ctx.deadline
        seed_numba_random(ctx.seed)
        initial = None
        tour_net = getattr(self, "tour_net_", None)
        if tour_net is not None:
            from cosolve.methods.sinkhorn.tour_net import network_logits

            policy = tour_net[0]  # trained with this solve's neighbors (checked by prepare)
            initial = lambda graph: network_logits(policy, graph)  # noqa: E731
        bounded = o["rounds"] > 0 or math.isinf(deadline.time_limit)
        phase_end = o["sinkhorn_share"] * deadline.time_limit
        stats = solve_tsp_sinkhorn(
            problem, lambda tour, length: ctx.trace.offer(tour, length), _schedule(o), steps=o["latent_steps"],
            lr=o["latent_lr"], samples=o["samples"], iterations=o["iterations"], seed=ctx.seed,
            stop=lambda: deadline.stop_requested, sinkhorn_stop=lambda: deadline.elapsed() >= phase_end,
            neighbors=o["neighbors"], cycle_penalty=o["cycle_penalty"], kicks=KICKS_PER_CITY * problem.n if bounded else 0,
            initial=initial,
        )  # fmt: skip
        out = {"start": "noise" if initial is None else "network", "sinkhorn_steps": stats.steps,
               "sinkhorn_seconds": round(stats.seconds, 4), "decoded": stats.decoded,
               "decoded_best": stats.decoded_best, "kicks": stats.kicks}  # fmt: skip
        return Outcome(Termination.TIME_LIMIT if deadline.stop_requested else Termination.COMPLETED, stats=out)

    def _solve_restarted(self, problem: Problem, ctx: SolveContext) -> Outcome:
        if problem.kind == "tsp":
            return self._solve_tour(problem, ctx)
        from cosolve.methods.sinkhorn.jigsaw import solve_jigsaw_latent

        o = ctx.options
        runs = solve_jigsaw_latent(
            problem, lambda tour: ctx.trace.offer(tour, None), _schedule(o), steps=o["latent_steps"],
            lr=o["latent_lr"], samples=o["samples"], iterations=o["iterations"], seed=ctx.seed,
            stop=lambda: ctx.deadline.stop_requested, runs=o["rounds"],
        )  # fmt: skip
        stats = {"latent_runs": runs}
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        return Outcome(Termination.COMPLETED, stats=stats)

    def _solve_latent(self, problem: Problem, ctx: SolveContext) -> Outcome:
        import torch

        from cosolve.methods.sinkhorn.latent import optimize_latent
        from cosolve.methods.sinkhorn.sorting import sortedness_loss

        o = ctx.options
        x = torch.tensor(problem.values, dtype=torch.float32)
        schedule = _schedule(o)
        optimize_latent(
            problem.n, lambda p: sortedness_loss(p, x), lambda perm: ctx.trace.offer(perm, None), schedule,
            steps=o["latent_steps"], lr=o["latent_lr"], samples=o["samples"], iterations=o["iterations"],
            seed=ctx.seed, stop=lambda: ctx.deadline.stop_requested or _proven(ctx) is not None,
        )  # fmt: skip
        if ctx.deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT, _proven(ctx))
        return Outcome(Termination.COMPLETED, _proven(ctx))


def _schedule(o: dict[str, Any]) -> Any:
    from cosolve.methods.sinkhorn.operator import TemperatureSchedule

    return TemperatureSchedule(
        o["temperature"], start=o["start"], end=o["end"], fixed=o["fixed"],
        threshold=o["threshold"], max_boost=o["max_boost"], iterations=o["iterations"],
    )  # fmt: skip


def _proven(ctx: SolveContext) -> Status | None:
    """Optimal once the incumbent has no inversion (a sorted sequence)."""
    return Status.OPTIMAL if ctx.trace.objective == 0 else None
