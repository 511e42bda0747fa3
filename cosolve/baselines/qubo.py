"""The ``tabu`` and ``sa`` baselines: D-Wave's classical QUBO samplers (the optional package
dwave-samplers, C++) on each graph problem's penalised QUBO, what a practitioner with a QUBO
toolbox would run.

QUBOs (:func:`graph_qubo`): MIS ``-sum x + 1.02 sum_E x_i x_j``, MaxClique the same on the
complement graph and MaxCut ``-cut(x)`` are the energies of :mod:`cosolve.diffusion.energies`
(quadratic already). The dominating-set energy there (``sum x + 2 sum_i prod_{N[i]} (1 - x_j)``)
is not quadratic, so MDS uses the standard slack formulation: ``sum x + 2 sum_i (1 + s_i -
sum_{j in N[i]} x_j)^2`` with ``s_i`` in binary (``ceil(log2 |N[i]|)`` bits), zero exactly when
node i is dominated and its slack counts the extra dominators.

Every sample is repaired to a feasible solution and evaluated by the problem, as the diffusion
samplers' chains are (:mod:`cosolve.diffusion.decode`: an independent set or clique grown from the
sample's nodes, a cut polished by 1-flip search, a dominating set completed greedily and pruned).

Budget: the samplers run in calls of at most ``chunk`` seconds until the deadline; the best sample
of each call is repaired and offered (an anytime trace), and starts the next tabu call. ``tabu``:
``TabuSampler`` with one read per call and its timeout set to the call's share of the time left (the
sampler restarts internally within a read). ``sa``: ``SimulatedAnnealingSampler`` with ``sweeps``
Metropolis sweeps per read on a geometric schedule, reads until the call's time is up; a read cannot
be interrupted, so the next one starts only if its measured time fits, and where even one read would
not fit a call (about 0.4 s at 10,000 nodes), the call anneals on a schedule shortened to fit
(``sweeps_run`` in the stats: the fewest sweeps a read had). A call costs more than its own time (TabuSampler builds a dense
matrix of the QUBO each call: 2.3 s at 6,000 variables, about 9-11 s and 4 GB of memory at 10,000;
the annealer about a microsecond per interaction), so a call starts only if that cost, estimated
before the first call and measured after it, and a repair fit in the time left; building the QUBO
stops at the deadline. Where nothing fits (a dominating set's QUBO on a 756-node graph has 6,098
variables), the result is a repaired random state with ``calls`` 0. Seeds come from the solve's
seed; ``threads`` is ignored (both samplers are sequential). Install with ``pip install
'cosolve[qubo]'``.
"""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

import numpy as np

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination
from cosolve.errors import UsageError
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem, MinimumDominatingSet

MISSING = "tabu and sa need the optional package dwave-samplers: pip install 'cosolve[qubo]'"
#: Penalty per violated domination constraint of the MDS QUBO (a node costs 1)
MDS_PENALTY = 2.0
#: Seconds kept back from each call for repairing and offering its best sample
REPAIR_MARGIN = 0.02
#: Seconds a call costs beyond its own time, per squared and per cubed variable (tabu: TabuSampler
#: builds a dense matrix each call, and its set-up grows faster than the matrix: 2.3 s at 6,000
#: variables, 5.3 s at 8,000, 8.8-11.3 s at 10,000; the estimate is the larger of the two terms) and
#: per interaction (sa: about 0.9 s at 880,000), measured with dwave-samplers 1.x on this machine;
#: the first call's estimate, the later ones use the measured excess
TABU_OVERHEAD_PER_SQUARED_VARIABLE = 7e-8
TABU_OVERHEAD_PER_CUBED_VARIABLE = 1.15e-11
SA_OVERHEAD_PER_INTERACTION = 1.2e-6
#: Seconds of one annealing sweep per variable and per two interactions (a 1,000-sweep read on a
#: 10,000-node MIS QUBO with 75,195 interactions: 0.27 s beyond the sampler call's fixed cost, which
#: is the per-interaction overhead above), rounded up
SA_SECONDS_PER_SWEEP_TERM = 2.5e-9
#: A batch of reads starts only if this many times its estimated seconds fit (a read's time varies by ~20%)
READ_SAFETY = 1.5


def sa_sweep_seconds(variables: int, interactions: int) -> float:
    """Estimated seconds of one annealing sweep of one read (before one is measured)."""
    return SA_SECONDS_PER_SWEEP_TERM * (variables + 2 * interactions)


def tabu_overhead(variables: int) -> float:
    """Estimated seconds a ``TabuSampler`` call on ``variables`` variables costs beyond its timeout."""
    return max(TABU_OVERHEAD_PER_SQUARED_VARIABLE * variables**2, TABU_OVERHEAD_PER_CUBED_VARIABLE * variables**3)


def graph_qubo(problem: GraphProblem, stop: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The QUBO ``E(z) = linear @ z + sum_k weights_k z_{rows_k} z_{cols_k}`` (rows < cols) of
    ``problem`` over ``len(linear) >= n`` binary variables; the first n are the nodes. None when
    ``stop()`` turned true while building it (the dominating set's QUBO takes about a second on
    a 756-node graph)."""
    if isinstance(problem, MinimumDominatingSet):
        return _dominating_set_qubo(problem, stop)
    from cosolve.diffusion.energies import energy_for

    energy = energy_for(problem)  # E = c x + 0.5 x Q x with Q symmetric: the pairs i < j carry Q_ij
    upper = energy.quadratic.tocoo()
    keep = upper.row < upper.col
    return energy.linear.copy(), upper.row[keep].astype(np.int64), upper.col[keep].astype(np.int64), upper.data[keep]


def _dominating_set_qubo(
    problem: MinimumDominatingSet, stop: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``sum x + A sum_i (1 + s_i - sum_{j in N[i]} x_j)^2`` with ``s_i = sum_k 2^k y_ik``; the
    square of ``1 + sum_t c_t v_t`` over binary ``v`` is ``1 + sum_t (c_t^2 + 2 c_t) v_t + sum_{t<u} 2 c_t c_u v_t v_u``."""
    import scipy.sparse as sp

    n, a = problem.n, MDS_PENALTY
    closed = sp.csr_array(problem.adjacency + sp.eye_array(n, dtype=np.int8, format="csr"))
    bits = np.ceil(np.log2(np.diff(closed.indptr))).astype(np.int64)  # slack up to |N[i]| - 1
    first = n + np.r_[0, np.cumsum(bits)[:-1]]
    linear = np.zeros(n + int(bits.sum()))
    linear[:n] = 1.0
    rows, cols, weights = [], [], []
    for i in range(n):
        if stop is not None and i % 32 == 0 and stop():
            return None
        members = closed.indices[closed.indptr[i] : closed.indptr[i + 1]].astype(np.int64)
        variables = np.r_[members, first[i] + np.arange(bits[i])]
        coef = np.r_[-np.ones(len(members)), 2.0 ** np.arange(bits[i])]
        np.add.at(linear, variables, a * (coef**2 + 2.0 * coef))
        t, u = np.triu_indices(len(variables), k=1)
        rows.append(variables[t])
        cols.append(variables[u])
        weights.append(2.0 * a * coef[t] * coef[u])
    if stop is not None and stop():
        return None
    r, c = np.concatenate(rows), np.concatenate(cols)
    size = len(linear)  # a pair of nodes shares many closed neighbourhoods: sum its terms once
    pairs = sp.coo_array((np.concatenate(weights), (np.minimum(r, c), np.maximum(r, c))), shape=(size, size)).tocsr().tocoo()
    return linear, pairs.row.astype(np.int64), pairs.col.astype(np.int64), pairs.data


def _bqm(problem: GraphProblem, stop: Any = None) -> Any:  # -> dimod.BinaryQuadraticModel | None
    try:
        import dimod
    except ImportError:
        raise UsageError(MISSING) from None
    qubo = graph_qubo(problem, stop)
    if qubo is None or (stop is not None and stop()):
        return None
    linear, rows, cols, weights = qubo
    return dimod.BinaryQuadraticModel.from_numpy_vectors(linear, (rows, cols, weights), 0.0, dimod.BINARY)


class _QuboSampler(Method):
    """Calls of a dwave-samplers sampler until the deadline (see the module doc)."""

    problems: ClassVar[frozenset[str]] = frozenset(GRAPH_PROBLEMS)
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "chunk": Option(float, 1.0, "seconds per sampler call (between incumbent reports and interrupt checks)", minimum=0.01),
        "calls": Option(int, 0, "stop after this many sampler calls (0 = run until the time limit)", minimum=0),
    }

    def sample(
        self, bqm: Any, seconds: float, start: np.ndarray | None, seed: int, stop: Any, stats: dict[str, Any]
    ) -> np.ndarray | None:
        """The best sample (V,) of one call of about ``seconds`` (None: no read fits in them);
        ``stats``: the solve's, which a sampler may read and extend (what it measured in earlier
        calls, what it ran)."""
        raise NotImplementedError

    def overhead(self, bqm: Any) -> float:
        """Seconds a call on ``bqm`` costs beyond the ``seconds`` it is given (an estimate)."""
        raise NotImplementedError

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        from cosolve.diffusion.decode import best_of, decode

        deadline, rng, o = ctx.deadline, ctx.rng, ctx.options
        bqm = _bqm(problem, lambda: deadline.stop_requested)
        if bqm is None:  # the deadline came while building the QUBO
            solution, value = best_of(problem, decode(problem, rng.random((1, problem.n))))
            ctx.trace.offer(solution, value)
            return Outcome(Termination.TIME_LIMIT, stats={"calls": 0})
        order = np.array(bqm.variables, dtype=np.int64)  # dimod's variable order: node and slack indices
        stats: dict[str, Any] = {"variables": len(order), "interactions": int(bqm.num_interactions), "calls": 0}
        start = None
        extra, repair = self.overhead(bqm), 0.0  # seconds beyond a call's own, and of a repair, measured once seen
        stats["call_overhead"] = round(extra, 3)
        while not deadline.stop_requested:
            seconds = min(o["chunk"], deadline.remaining() - REPAIR_MARGIN - extra - repair)
            if seconds <= 0.001:  # a call would not end by the deadline
                break
            called = time.perf_counter()
            raw = self.sample(bqm, seconds, start, int(rng.integers(2**31 - 1)), lambda: deadline.stop_requested, stats)
            if raw is None:  # not even a shortened call fits
                break
            returned = time.perf_counter()
            extra = max(0.0, returned - called - seconds)
            z = np.zeros(len(order))
            z[order] = raw
            start = raw
            solution, value = best_of(problem, decode(problem, z[None, : problem.n]))
            ctx.trace.offer(solution, value)
            repair = time.perf_counter() - returned
            stats["calls"] += 1
            if o["calls"] and stats["calls"] >= o["calls"]:
                return Outcome(Termination.COMPLETED, stats=stats)
        if ctx.trace.solution is None:  # not even one call fitted: repair a random state
            solution, value = best_of(problem, decode(problem, rng.random((1, problem.n))))
            ctx.trace.offer(solution, value)
        return Outcome(Termination.TIME_LIMIT, stats=stats)


@register
class Tabu(_QuboSampler):
    """Tabu search on the QUBO (dwave-samplers' ``TabuSampler``, Palubeckis's multistart tabu)."""

    name: ClassVar[str] = "tabu"
    summary: ClassVar[str] = "tabu search on the problem's QUBO (dwave-samplers TabuSampler, C++), repaired to feasibility"

    def sample(
        self, bqm: Any, seconds: float, start: np.ndarray | None, seed: int, stop: Any, stats: dict[str, Any]
    ) -> np.ndarray:
        from dwave.samplers import TabuSampler

        initial = None if start is None else np.atleast_2d(start)
        result = TabuSampler().sample(bqm, num_reads=1, timeout=max(1, int(seconds * 1000)), seed=seed, initial_states=initial)
        return np.asarray(result.record.sample[np.argmin(result.record.energy)], dtype=np.float64)

    def overhead(self, bqm: Any) -> float:
        return tabu_overhead(len(bqm.variables))


@register
class SimulatedAnnealing(_QuboSampler):
    """Simulated annealing on the QUBO (dwave-samplers' ``SimulatedAnnealingSampler``)."""

    name: ClassVar[str] = "sa"
    summary: ClassVar[str] = "simulated annealing on the problem's QUBO (dwave-samplers, C++), repaired to feasibility"
    options: ClassVar[dict[str, Option]] = {
        **_QuboSampler.options,
        "sweeps": Option(int, 1000, "Metropolis sweeps per read (geometric temperature schedule)", minimum=1),
    }

    def overhead(self, bqm: Any) -> float:
        return SA_OVERHEAD_PER_INTERACTION * bqm.num_interactions

    def sample(
        self, bqm: Any, seconds: float, start: np.ndarray | None, seed: int, stop: Any, stats: dict[str, Any]
    ) -> np.ndarray | None:
        from dwave.samplers import SimulatedAnnealingSampler

        sampler, rng = SimulatedAnnealingSampler(), np.random.default_rng(seed)
        full, fixed = self.config["sweeps"], self.overhead(bqm)
        per_sweep = stats.get("sweep_seconds") or sa_sweep_seconds(len(bqm.variables), bqm.num_interactions)
        started = time.perf_counter()
        ends = started + seconds
        best, best_energy = None, math.inf
        while True:  # batches of reads sized to what is left (the sampler allocates every read up front)
            left = ends - time.perf_counter()
            sweeps = full
            if READ_SAFETY * (fixed + full * per_sweep) > left:  # a read cannot be interrupted: shorten it
                sweeps = int((left / READ_SAFETY - fixed) / per_sweep)
                if sweeps < 1:
                    return None if best is None else np.asarray(best, dtype=np.float64)
            batch = int(min(256, max(1, 0.5 * (left - fixed) / (sweeps * per_sweep))))
            called = time.perf_counter()
            result = sampler.sample(
                bqm, num_reads=batch, num_sweeps=sweeps, seed=int(rng.integers(2**31 - 1)),
                interrupt_function=lambda: stop() or time.perf_counter() >= ends,
            )  # fmt: skip
            took = time.perf_counter() - called
            stats["sweeps_run"] = min(sweeps, stats.get("sweeps_run", sweeps))
            if sweeps == full:  # measured: the time of a sweep beyond the call's fixed cost
                per_sweep = max(per_sweep / 4, (took - fixed) / (len(result.record) * sweeps))
                stats["sweep_seconds"] = round(per_sweep, 9)
            k = int(np.argmin(result.record.energy))
            if result.record.energy[k] < best_energy:
                best, best_energy = result.record.sample[k], float(result.record.energy[k])
            if time.perf_counter() >= ends or stop():
                return np.asarray(best, dtype=np.float64)
