"""The set cover large neighbourhood search shared by ``glns`` and ``lns-random``.

1. Start: Chvátal's greedy, redundancy removal and the swap local search
   (:mod:`cosolve.heuristics.setcover.swap_search`).
2. Bound: the Lagrangian bound by subgradient optimisation (:mod:`cosolve.heuristics.setcover.lagrangian`),
   reported as the result's bound; its reduced costs fix out the columns no better cover can use
   and give each row its candidate columns. CFT's Lagrangian greedy heuristic, run along a short
   subgradient phase on the core, then the local search, gives a first cover; CFT's refinement
   (:mod:`cosolve.heuristics.setcover.three_phase`: three-phase re-solves around the best cover) improves it for at
   most ``refine_share`` of the remaining budget, or until a whole cycle of it finds nothing.
3. Loop until the deadline: a *ranker* orders columns (GLNS: by instability along a denoising
   trajectory; ``lns-random``: at random; either, with the ``neighbourhood`` option, by the targeted
   rankings of :mod:`cosolve.methods.glns.targeted`) -> a neighbourhood of bounded size is freed around the
   top-ranked columns (:mod:`cosolve.methods.glns.neighborhood`) -> the sub-MIP re-optimises it
   under a time slice (:mod:`cosolve.methods.glns.repair`) -> an improvement is kept and polished
   by the swap search; the size adapts to how the repairs went. After ``refine_patience`` repairs
   in a row find nothing, or once repairs without a cheaper cover have taken ``refine_balance``
   times the last local search's seconds, a local search runs from the incumbent: the row-weighting
   local search on a core (:mod:`cosolve.heuristics.setcover.row_weighting`; ``local_search="refine"``: one
   more CFT refinement, a cycle without a cheaper cover ending it). With ``repair_probation`` > 0,
   once the repairs have taken that share of the loop's budget without finding a cheaper cover
   (since their last one; on OR-Library-like and scattered rail-like instances none ever does),
   one local search takes the rest of the budget.

The incumbent is offered to the trace after every improvement, so the best cover is returned at
the deadline. A repair whose free set holds every usable column and is solved to optimality
proves the incumbent optimal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from cosolve.core.method import Outcome, SolveContext
from cosolve.core.result import Status, Termination
from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import LagrangianBound, lagrangian_bound, lagrangian_heuristic
from cosolve.heuristics.setcover.row_weighting import rwls_on_core
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.heuristics.setcover.three_phase import CoverPool, RefineStats, refine
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.methods.glns.neighborhood import AdaptiveSize, Subproblem, candidate_lists, free_columns_kernel, subproblem_kernel
from cosolve.methods.glns.repair import repair
from cosolve.problems.setcover import SetCover


@dataclass
class LNSSettings:
    """``size``: free columns of the first neighbourhood; ``sub_time``: seconds per repair (None:
    5% of the time left when the loop starts, within 0.2..2 s, written back to the solve's options);
    ``per_row``: candidate columns per row; ``lagrangian_iterations`` and ``lagrangian_share`` (most
    of the budget the bound may take); ``heuristic_iterations`` of the Lagrangian heuristic;
    ``refine_share``: most of the remaining budget CFT's first refinement may take (0 skips it), and
    ``refine_cycles``: the whole cycles of its fixing fraction without a cheaper cover that end it;
    ``refine_patience``: repairs in a row without a cheaper cover after which the loop runs a local
    search from the incumbent (0: never); ``refine_balance``: the repairs since the last cheaper
    cover may take at most this many times the last local search's seconds before the next one
    runs, whichever of the two limits comes first (0: the count only; where no repair improves, the
    budget then alternates between the two instead of going to repairs); ``local_search``: "rwls"
    (the row-weighting local search on the core of ``rwls_core`` columns per row; a run between
    repairs takes at most ``refine_share`` of the time left and ends once it has gone as long
    without a cheaper cover as it took to find its last one, at least 1 s) or "refine" (CFT's
    refinement, one stalled cycle); ``refine_adapt``: between two refinements, the balance halves when no repair found a
    cheaper cover (down to 1/8 of ``refine_balance``) and doubles when one did (up to 4 times it),
    so the budget goes to whichever of the two has been improving (off by default: measured worse on
    rail at 60 s, equal elsewhere, bench/results/setcover-glns-adapt);
    ``refine_fresh``: every three-phase of the refinement starts its first subgradient phase from
    CFT's initial multipliers of its residual instead of the whole instance's best ones, perturbed
    (:func:`cosolve.heuristics.setcover.three_phase.refine`'s ``fresh_multipliers``);
    ``repair_probation``: the share of the budget left when the loop starts that the repairs may
    take without finding a cheaper cover (``probation_since``: counted from the repairs' last
    cheaper cover, "gain", the default since 2026-12-05, bench/results/setcover-probation-gain; or
    from the loop's start, "start": :class:`RepairProbation`); past it, one local search takes the
    rest of the budget, or with ``rest_restarts`` a local search restarted from a fresh refinement
    each time it stalls (off: measured worse, bench/results/setcover-probation-gain). 0: no
    probation; default 0.1, measured
    with the refinement: at 60 s, on the suites where
    it fails (orlib-nr, rail-scattered, 200k), better than none on 6 of 32 (instance, seed) pairs
    and worse on 1, level at 10 s, bench/results/setcover-glns-probation-short; an earlier form, a
    refinement eight times as long after each repair, measured level with none,
    bench/results/setcover-glns-probation;
    ``rwls_columns``: the core the row-weighting search moves among: "reduced" (the ``rwls_core``
    columns of least reduced cost per row), "seen" (the columns of every cover the refinements'
    three-phases completed) or "both" (the union; the default: where the Lagrangian bound is far
    below the covers, as on the rail-scattered set, reduced costs miss the columns good covers use,
    bench/results/setcover-rwls-columns);
    ``refine_pool``: columns per row
    the refinement prices among (the least reduced cost per row, plus the cover's; 0: every column
    the bound does not fix out);
    ``sub_solver``: scip or cpsat."""

    size: int = 200
    sub_time: float | None = None
    per_row: int = 40
    lagrangian_iterations: int = 1000
    lagrangian_share: float = 0.25
    heuristic_iterations: int = 200
    refine_share: float = 0.3
    refine_cycles: int = 1
    refine_patience: int = 30
    refine_balance: float = 0.25
    refine_adapt: bool = False
    refine_fresh: bool = False
    repair_probation: float = 0.1
    probation_since: str = "gain"
    rest_restarts: bool = False
    refine_pool: int = 0
    local_search: str = "rwls"
    rwls_core: int = 20
    rwls_columns: str = "both"
    sub_solver: str = "scip"


@dataclass
class LNSStats:
    """Counters of one search: ``iterations`` repairs run, ``improved`` those that found a cheaper
    cover, ``optimal`` those solved to optimality, ``abandoned`` those whose model took the whole
    slice to build (the free-set size is then capped at half of what got built), ``free_columns``
    their mean free-set size,
    ``repair_time`` and ``rank_time`` seconds spent in the sub-MIPs and in ranking; the objectives of
    the greedy start, of the Lagrangian heuristic and of the refinement, the Lagrangian bound,
    ``refine_restarts`` (refinements the loop ran after ``refine_patience`` failed repairs),
    ``refine_balance`` (the balance when the search ended), ``probation_failed_at`` (seconds into the
    solve when the repairs' probation ended without a cheaper cover; nan if it did not),
    ``rest_restarts`` (fresh refinements that restarted the local search after the probation, with
    the ``rest_restarts`` setting) and the refinement's own counters (``refine_*`` in :meth:`as_dict`)."""

    iterations: int = 0
    improved: int = 0
    optimal: int = 0
    free_columns: float = 0.0
    repair_time: float = 0.0
    rank_time: float = 0.0
    start_objective: float = math.nan
    heuristic_objective: float = math.nan
    lagrangian_bound: float = math.nan
    refined_objective: float = math.nan
    refine_restarts: int = 0
    refine_balance: float = math.nan
    probation_failed_at: float = math.nan
    rwls_time: float = 0.0
    abandoned: int = 0
    rest_restarts: int = 0
    refine: RefineStats = field(default_factory=RefineStats)

    def as_dict(self) -> dict[str, float]:
        out = asdict(self)
        refine_stats = out.pop("refine")
        out.update({f"refine_{k}": v for k, v in refine_stats.items()})
        out["improved_share"] = self.improved / self.iterations if self.iterations else 0.0
        return out


@dataclass
class RepairProbation:
    """The repairs' probation: failed once the repairs have taken ``seconds`` of solve time without
    a cheaper cover (0: never). ``since`` says what the count starts from: "start" (the loop's
    start; a single cheaper cover ends the probation for good) or "gain" (the repairs' last cheaper
    cover, so any stretch of failed repairs that long fails it)."""

    seconds: float
    since: str = "gain"
    dry: float = 0.0  # repair seconds counted so far
    paid: bool = False  # whether a repair found a cheaper cover since the count started

    def record(self, seconds: float, improved: bool) -> None:
        """Count one repair of ``seconds`` that ``improved`` the cover or not."""
        if improved and self.since == "gain":
            self.dry, self.paid = 0.0, False
            return
        self.dry += seconds
        self.paid = self.paid or improved

    @property
    def failed(self) -> bool:
        return 0 < self.seconds <= self.dry and not self.paid


@dataclass
class SearchState:
    """What a ranker sees: the instance arrays, the incumbent ``x`` (n,) int8, its per-row cover
    counts ``cover`` (m,) int64, the Lagrangian ``lagrangian``, the usable columns ``allowed``, the
    rows' candidate lists, ``budget``, the free-set size of the next neighbourhood, and ``pool``, the
    search's cheapest distinct covers so far (of every cover it offered to the trace; None unless
    the search was asked to keep them)."""

    problem: SetCover
    row_ptr: np.ndarray
    row_idx: np.ndarray
    col_ptr: np.ndarray
    col_idx: np.ndarray
    x: np.ndarray
    cover: np.ndarray
    lagrangian: LagrangianBound
    allowed: np.ndarray
    cand_ptr: np.ndarray
    cand_idx: np.ndarray
    budget: int = 0
    pool: CoverPool | None = None


#: How many of the cheapest distinct covers the search keeps for rankers that compare them
#: (``run_lns``'s ``pool_size``).
POOL_SIZE = 10

#: ``ranker(state, rng) -> columns`` (int64, best first): where the next neighbourhood grows from.
Ranker = Callable[[SearchState, np.random.Generator], np.ndarray]


def run_lns(
    problem: SetCover, ctx: SolveContext, ranker: Ranker, settings: LNSSettings, stats: LNSStats, *, pool_size: int = 0
) -> Outcome:
    """Run the search on ``problem`` until ``ctx.deadline``; fills ``stats``. With ``pool_size`` > 0
    the ranker's state holds a pool of that many of the cheapest distinct covers found."""
    deadline, rng = ctx.deadline, ctx.rng
    pool = CoverPool(pool_size) if pool_size > 0 else None

    def found(y: np.ndarray, cost: float) -> None:
        ctx.trace.offer(y, cost)
        if pool is not None:
            pool.offer(y, cost)

    stop = lambda: deadline.stop_requested  # noqa: E731
    costs = np.ascontiguousarray(problem.costs, dtype=np.float64)
    csr, csc = problem.matrix, problem.csc
    row_ptr, row_idx, col_ptr, col_idx = index_arrays(csr, csc)

    x = chvatal_greedy(costs, csr, csc, stop=stop)
    if x is None:
        return Outcome(Termination.TIME_LIMIT)
    found(x, float(costs @ x))
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, x))
    upper = float(costs @ x)
    stats.start_objective = upper
    found(x, upper)

    limit = deadline.elapsed() + settings.lagrangian_share * min(deadline.remaining(), 1e9)
    lag = lagrangian_bound(
        costs, csr, csc, upper=upper, iterations=settings.lagrangian_iterations,
        stop=lambda: stop() or deadline.elapsed() > limit,
    )  # fmt: skip
    integral = bool(np.all(costs == np.round(costs)))
    bound = math.ceil(lag.bound - 1e-6) if integral else lag.bound
    stats.lagrangian_bound = lag.bound
    ctx.trace.offer_bound(bound)
    if upper <= bound + 1e-9:
        return Outcome(Termination.COMPLETED, Status.OPTIMAL)

    heuristic, _ = lagrangian_heuristic(
        costs, csr, csc, lag, upper=upper, iterations=settings.heuristic_iterations, stop=stop
    )  # fmt: skip
    if heuristic is not None:
        x = swap_local_search(costs, csr, csc, heuristic)
        upper = float(costs @ x)
        found(x, upper)
    stats.heuristic_objective = upper
    if upper <= bound + 1e-9:
        return Outcome(Termination.COMPLETED, Status.OPTIMAL)

    refine_seconds = 0.0  # how long the last refinement took
    seen = np.zeros(costs.size, np.bool_)  # columns of the covers the refinements' three-phases completed

    def completed(columns: np.ndarray, cost: float) -> None:
        seen[columns] = True

    def refined(x: np.ndarray, cycles: int, rest: bool = False) -> np.ndarray:
        """The cover ``x`` after CFT's refinement (at most ``refine_share`` of the time left; with
        ``rest``, until the deadline whether or not its cycles still improve): a cheaper cover, or
        ``x`` itself."""
        nonlocal refine_seconds
        started = deadline.elapsed()
        limit = started + settings.refine_share * min(deadline.remaining(), 1e9)
        if rest:
            limit, cycles = math.inf, 1 << 30
        y = refine(
            costs, csr, csc, lag, x, rng=rng, stats=stats.refine, stall_cycles=cycles, core_per_row=settings.refine_pool or None,
            fresh_multipliers=settings.refine_fresh, stop=lambda: stop() or deadline.elapsed() > limit,
            on_improve=found, on_cover=completed if settings.rwls_columns != "reduced" else None,
        )  # fmt: skip
        refine_seconds = deadline.elapsed() - started
        if float(costs @ y) >= float(costs @ x) - 1e-9:
            return x
        y = swap_local_search(costs, csr, csc, y)
        found(y, float(costs @ y))
        return y

    def rwls_searched(x: np.ndarray, rest: bool, *, until_stall: bool = False) -> np.ndarray:
        """The cover ``x`` after the row-weighting local search on a core: until the deadline with
        ``rest``, else until it has gone as long without a cheaper cover as it took to find its
        last one (at least a second) and, unless ``until_stall``, for at most ``refine_share`` of
        the time left."""
        nonlocal refine_seconds
        started = deadline.elapsed()
        limit = math.inf if rest or until_stall else started + settings.refine_share * min(deadline.remaining(), 1e9)
        last = started

        def improved(y: np.ndarray, cost: float) -> None:
            nonlocal last
            last = deadline.elapsed()
            found(y, cost)

        def done() -> bool:
            now = deadline.elapsed()
            return stop() or now > limit or (not rest and now - last > max(1.0, last - started))

        per_row = settings.rwls_core if settings.rwls_columns != "seen" or not seen.any() else 0
        extra = np.flatnonzero(seen) if settings.rwls_columns != "reduced" else None
        y = rwls_on_core(
            costs, csr, csc, lag, x, per_row=per_row, stop=done, seed=int(rng.integers(2**31)),
            on_improve=improved, extra=extra,
        )  # fmt: skip
        refine_seconds = deadline.elapsed() - started
        stats.rwls_time += refine_seconds
        return y if float(costs @ y) < float(costs @ x) - 1e-9 else x

    def restarted(x: np.ndarray) -> np.ndarray:
        """The rest of the budget from the cover ``x``: the row-weighting search until it stalls,
        then a fresh refinement of the Lagrangian heuristic's cover (new random draws) as its next
        start, and so on until the deadline. Returns the cheapest cover seen (``x`` or cheaper)."""
        best, start = x, x
        while True:
            y = rwls_searched(start, rest=False, until_stall=True)
            if float(costs @ y) < float(costs @ best) - 1e-9:
                best = y
            if stop() or deadline.remaining() <= 0:
                return best
            stats.rest_restarts += 1
            start = refined(heuristic_cover, settings.refine_cycles)
            if float(costs @ start) < float(costs @ best) - 1e-9:
                best = start

    heuristic_cover = x
    if settings.refine_share > 0:
        x = refined(x, settings.refine_cycles)
        upper = float(costs @ x)
        stats.refined_objective = upper
        if upper <= bound + 1e-9:
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)

    allowed = ~lag.fixable(upper)
    cand_ptr, cand_idx = candidate_lists(lag.reduced, allowed, row_ptr, row_idx, settings.per_row)
    cover = np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
    state = SearchState(problem, row_ptr, row_idx, col_ptr, col_idx, x, cover, lag, allowed, cand_ptr, cand_idx, pool=pool)
    usable = int(np.count_nonzero(allowed | (x == 1)))
    size = AdaptiveSize(settings.size, low=20, high=usable)
    budget = deadline.remaining()
    sub_time = settings.sub_time
    if sub_time is None:
        sub_time = min(2.0, max(0.2, 0.05 * budget if budget < 1e9 else 2.0))
        ctx.options["sub_time"] = sub_time
    complete_timeouts = 0

    candidate_seconds = 0.0  # how long the candidate lists took to build

    def adopt(x: np.ndarray, *, offered: bool = False) -> bool:
        """Make the cheaper cover ``x`` the incumbent (offering it to the trace unless the search
        that found it already ``offered`` it); whether the bound proves it optimal. Past the
        deadline no search follows, so the incumbent's state is left as it is."""
        nonlocal allowed, cand_ptr, cand_idx, usable, candidate_seconds
        upper = float(costs @ x)
        if not offered:
            found(x, upper)
        if upper <= bound + 1e-9:
            return True
        if deadline.remaining() <= 0:
            return False
        state.x, state.cover = x, np.asarray(csr @ x.astype(np.int64), dtype=np.int64)
        if deadline.remaining() > 2 * candidate_seconds:  # else keep the lists: less fixed, still valid
            t3 = deadline.elapsed()
            allowed = ~lag.fixable(upper)
            state.allowed = allowed
            state.cand_ptr, state.cand_idx = candidate_lists(lag.reduced, allowed, row_ptr, row_idx, settings.per_row)
            cand_ptr, cand_idx = state.cand_ptr, state.cand_idx
            usable = int(np.count_nonzero(allowed | (x == 1)))
            size.high = usable
            candidate_seconds = deadline.elapsed() - t3
        return False

    rank_seconds = 0.0  # the last ranking's duration
    balance = stats.refine_balance = settings.refine_balance
    repairs_paid = False  # whether a repair found a cheaper cover since the last refinement
    stalled = 0  # repairs in a row without a cheaper cover
    stalled_since = deadline.elapsed()  # when the last cheaper cover or refinement came
    probation = RepairProbation(settings.repair_probation * min(budget, 1e9), settings.probation_since)
    while not stop() and deadline.remaining() > rank_seconds:  # a ranking must leave time to repair
        t0 = deadline.elapsed()
        state.budget = int(size)
        ranking = np.ascontiguousarray(ranker(state, rng), dtype=np.int64)
        t1 = deadline.elapsed()
        complete = int(size) >= usable
        if complete:  # the whole instance, less the columns fixed out by reduced costs
            free = np.flatnonzero(allowed | (state.x == 1)).astype(np.int64)
        else:
            free, _ = free_columns_kernel(ranking, row_ptr, row_idx, col_ptr, col_idx, cand_ptr, cand_idx, state.x, int(size))
        rows, sub_ptr, sub_idx = subproblem_kernel(free, row_ptr, row_idx, col_ptr, col_idx, state.x, state.cover)
        sub = Subproblem(free, rows, sub_ptr, sub_idx, state.x[free].copy())
        # a complete repair that ran out of time gets twice the time at its next turn
        slice_ = min(sub_time * (2.0**complete_timeouts if complete else 1.0), deadline.remaining())
        if slice_ <= 0.005:
            break
        fixed = repair(sub, costs, time_limit=slice_, seed=int(rng.integers(2**31)), solver=settings.sub_solver)
        t2 = deadline.elapsed()
        rank_seconds = t1 - t0
        stats.iterations += 1
        stats.rank_time += t1 - t0
        stats.repair_time += t2 - t1
        stats.free_columns += (free.size - stats.free_columns) / stats.iterations
        stats.optimal += fixed.optimal
        improved = fixed.cost < float(costs[free] @ sub.start) - 1e-9
        probation.record(t2 - t1, improved)
        if improved:
            stats.improved += 1
            repairs_paid = True
            x = state.x.copy()
            x[free] = fixed.choice
            if adopt(swap_local_search(costs, csr, csc, x, allowed=allowed | (x == 1))):
                return Outcome(Termination.COMPLETED, Status.OPTIMAL)
        elif fixed.optimal and complete:
            return Outcome(Termination.COMPLETED, Status.OPTIMAL)  # every usable column was free
        elif complete:
            complete_timeouts += 1
        size.update(improved=improved, optimal=fixed.optimal)
        if fixed.built < 1.0:  # its model took the whole slice to build: no larger neighbourhoods
            stats.abandoned += 1
            size.cap(free.size * fixed.built / 2)
        stalled = 0 if improved else stalled + 1
        if improved:
            stalled_since = deadline.elapsed()
        waited = deadline.elapsed() - stalled_since
        balanced = balance > 0 and stalled > 0 and waited >= balance * refine_seconds
        failed_probation = probation.failed
        if failed_probation and math.isnan(stats.probation_failed_at):
            stats.probation_failed_at = deadline.elapsed()
        due = (failed_probation and stalled > 0) or 0 < settings.refine_patience <= stalled or balanced
        if settings.refine_share > 0 and due and not stop():
            if settings.refine_adapt and not failed_probation:
                balance = adapted_balance(balance, settings.refine_balance, repairs_paid)
                stats.refine_balance = balance
            stalled, repairs_paid = 0, False
            stats.refine_restarts += 1
            if settings.local_search == "rwls" and failed_probation and settings.rest_restarts:
                y = restarted(state.x)
            elif settings.local_search == "rwls":
                y = rwls_searched(state.x, rest=failed_probation)
            else:
                y = refined(state.x, 1, rest=failed_probation)
            stalled_since = deadline.elapsed()
            if y is not state.x and adopt(y, offered=True):
                return Outcome(Termination.COMPLETED, Status.OPTIMAL)
    return Outcome(Termination.TIME_LIMIT)


def adapted_balance(balance: float, initial: float, repairs_paid: bool) -> float:
    """The next ``refine_balance`` after a stretch of repairs: doubled (at most 4 x ``initial``)
    when one of them found a cheaper cover, else halved (at least ``initial`` / 8)."""
    return min(4.0 * initial, 2.0 * balance) if repairs_paid else max(initial / 8.0, balance / 2.0)


def random_ranker(state: SearchState, rng: np.random.Generator) -> np.ndarray:
    """Columns in random order (a few thousand at most: enough to fill any neighbourhood)."""
    n = state.x.size
    return rng.permutation(n)[:4096] if n <= 65536 else rng.integers(0, n, 4096)
