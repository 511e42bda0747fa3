"""The ``cft`` baseline: the Caprara–Fischetti–Toth set cover heuristic (pycft, an optional extra).

CFT (Caprara, Fischetti and Toth 1999, as implemented in C++ by Cavaliere and Accorsi and bound
to Python by pycft) runs subgradient optimisation of the Lagrangian relaxation on a core of the
columns, Lagrangian-cost greedy heuristics and column fixing, refined by fixing parts of the
best cover and solving what is left again. Install it with ``pip install 'cosolve[cft]'``.

pycft's low-level bindings (``pycft._bindings``) read the instance from a file: the problem is
written to a temporary file (column-wise ``rail`` when the costs are integers, the faster format
to write and to parse; row-wise OR-Library ``scp`` otherwise), parsed by pycft, and solved with
pycft's time limit set to what is left of the budget less a small margin for the work after it.
pycft's clock starts when its ``Environment`` is built, so the one it runs with is built after the
parsing (before 2026-12-05 the writing and parsing counted twice, and on the 1M-column instance at
10 s cft stopped at its first cover). Writing and parsing count against the budget (about 0.4 s
together for 2,000 x 200,000 with 2,000,000 nonzeros). The high-level ``pycft.SetCoverSolver.add_set`` path is not used: one
Python call per column is far slower.

pycft's ``run`` holds the GIL and has no way to be stopped: an interrupt (Ctrl-C) is seen only
when it returns, at the latest at its time limit; without a time limit it runs until CFT ends
by itself. pycft reads costs as 32-bit floats; the cover it returns is evaluated by cosolve in
double precision and stores row indices in 16 bits: instances with more than 32,767 rows are
refused (a usage error). Column indices in pycft's solution are 0-based, as cosolve's.

Bound: pycft returns its Lagrangian multipliers ``u`` (one per row). For any ``u >= 0`` the
Lagrangian value ``sum_i u_i + sum_j min(0, c_j - sum_{i in j} u_i)`` is a lower bound on the
optimum (weak duality), so cosolve recomputes it from the multipliers in double precision rather
than trusting pycft's single-precision number, rounds it up when all costs are integers, and
reports it when positive. A bound that reaches the cover's cost proves it optimal. ``seed`` is
CFT's seed; ``threads`` is ignored (CFT is sequential).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cosolve.baselines.exact_helpers import seed32, time_left
from cosolve.core.method import Method, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Status, Termination
from cosolve.errors import UsageError

MISSING = "cft needs the optional package pycft: pip install 'cosolve[cft]'"
#: pycft stores row indices as 16-bit integers and fails to parse a file with more rows
MAX_ROWS = 2**15 - 1


def import_pycft() -> ModuleType:
    """``pycft._bindings``, or a :class:`UsageError` saying how to install it."""
    try:
        from pycft import _bindings
    except ImportError:
        raise UsageError(MISSING) from None
    return _bindings


def write_instance(problem: Problem, folder: str | Path) -> tuple[str, str]:
    """Write ``problem`` into ``folder`` for pycft; returns the path and pycft's parser name."""
    from cosolve.io.orlib import orlib_bytes, rail_bytes

    costs = problem.costs
    integral = bool(np.all(costs == np.round(costs)) and (not costs.size or costs.max() < 2**53))
    if integral:  # rail_bytes writes decimal costs one column at a time in Python
        path, parser, data = Path(folder, "instance.rail"), "RAIL", rail_bytes(problem)
    else:
        path, parser, data = Path(folder, "instance.scp"), "SCP", orlib_bytes(problem)
    path.write_bytes(data)
    return str(path), parser


def environment(bindings: ModuleType, seed: int) -> Any:
    """A quiet pycft ``Environment`` with CFT's seed. pycft measures its time limit from the moment
    an ``Environment`` is built (its ``timer`` member), so :meth:`Cft.solve` builds the one it runs
    with after writing and parsing the instance, which the budget has already paid for."""
    env = bindings.Environment()
    env.verbose = 0
    env.seed = seed32(seed)
    return env


def margin(remaining: float, nonzeros: int) -> float:
    """Seconds kept back from pycft's time limit for the work after it (building the solution,
    evaluating it, the bound): 0.1 s, 2% of the time left and 50 ns per nonzero."""
    return 0.1 + 0.02 * remaining + 5e-8 * nonzeros


def lagrangian_bound(problem: Problem, multipliers: Any) -> float | None:
    """The Lagrangian lower bound of ``problem`` at ``multipliers`` (clipped to >= 0), in double
    precision, rounded up when every cost is an integer; ``None`` when it is not positive or the
    multipliers do not match the rows."""
    u = np.maximum(np.asarray(multipliers, dtype=np.float64), 0.0)
    if u.shape != (problem.n_rows,) or not np.all(np.isfinite(u)):
        return None
    reduced = problem.costs - u @ problem.matrix
    value = float(u.sum() + np.minimum(reduced, 0.0).sum())
    costs = problem.costs
    if np.all(costs == np.round(costs)):  # the optimum is an integer: round up, past the rounding error
        value = math.ceil(value - 1e-6 * max(1.0, abs(value)))
    return value if value > 0 else None


@register
class Cft(Method):
    """The CFT heuristic through pycft's low-level bindings (see the module doc)."""

    name: ClassVar[str] = "cft"
    problems: ClassVar[frozenset[str]] = frozenset({"setcover"})
    summary: ClassVar[str] = (
        "Caprara-Fischetti-Toth Lagrangian heuristic (pycft; pip install 'cosolve[cft]'): subgradient, greedy, "
        "column fixing and refinement; Lagrangian bound"
    )
    warm_up: ClassVar[bool] = True

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        bindings = import_pycft()
        if problem.n_rows > MAX_ROWS:
            raise UsageError(f"cft (pycft) handles at most {MAX_ROWS} rows; this set cover has {problem.n_rows}")
        deadline = ctx.deadline
        if deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="cosolve-cft-") as folder:
            env = environment(bindings, ctx.seed)
            env.inst_path, env.parser = write_instance(problem, folder)
            if deadline.stop_requested:
                return Outcome(Termination.TIME_LIMIT)
            data = bindings.parse_inst_and_initsol(env)
        stats: dict[str, Any] = {"write_and_parse_seconds": round(time.perf_counter() - start, 4)}
        remaining = time_left(deadline)
        limit = None if remaining is None else remaining - margin(remaining, int(problem.matrix.nnz))
        if deadline.stop_requested or (limit is not None and limit <= 0):
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        env = environment(bindings, ctx.seed)  # pycft's clock starts here, not before the writing and parsing
        env.time_limit = math.inf if limit is None else limit

        start = time.perf_counter()
        result = bindings.run(env, data.inst, data.init_sol)
        seconds = time.perf_counter() - start
        stats["cft_seconds"] = round(seconds, 4)

        columns = np.asarray(result.sol.idxs, dtype=np.int64)
        if columns.size and (columns.min() < 0 or columns.max() >= problem.n_cols):
            raise RuntimeError(f"pycft returned column {int(columns.max())} of {problem.n_cols} (expected 0-based indices)")
        x = np.zeros(problem.n_cols, dtype=np.int8)
        x[columns] = 1
        objective = float(problem.costs @ x)
        kept = ctx.trace.offer(x, objective)
        bound = lagrangian_bound(problem, result.dual.idxs)  # ``idxs`` holds the multipliers
        if bound is not None:
            ctx.trace.offer_bound(bound)
            stats["lagrangian_bound"] = bound
        if kept and bound is not None and bound >= objective - 1e-9 * max(1.0, abs(objective)):
            return Outcome(Termination.COMPLETED, Status.OPTIMAL, stats=stats)
        if limit is not None and seconds >= 0.9 * limit:
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        return Outcome(Termination.COMPLETED, stats=stats)
