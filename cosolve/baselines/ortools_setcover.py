"""The ``ortools-setcover`` baseline: OR-Tools' own set-cover heuristics (``ortools.set_cover``).

Search: a greedy start (``GreedySolutionGenerator``, ``ElementDegreeSolutionGenerator`` or the
better of both, option ``construction``), each followed by ``SteepestSearch`` (removal of the
most expensive redundant columns), then rounds until the deadline of

1. a slice of ``GuidedLocalSearch`` (``gls_iterations_per_slice`` iterations per call), and
2. a clear-and-repair step as in OR-Tools' own set-cover benchmarks: ``clear_random_subsets``
   drops about ``lns_fraction`` of the selected columns (and the selected columns that share a
   row with them), ``ElementDegreeSolutionGenerator`` covers the rows again and
   ``SteepestSearch`` removes redundant columns; a worse cover is undone.

Every improvement is offered to the trace; no bound is reported. Each OR-Tools call holds the
GIL and cannot be interrupted, so the work is cut into short calls and the deadline (time limit
or interrupt) is checked between them.

What the OR-Tools 9.15 Python API does and does not allow (measured, see the tests):

- Model building: the only bulk entry point is ``SetCoverModel.import_model_from_proto``. The
  ``SetCoverProto`` wire bytes are written here with numpy (a packed varint per nonzero), parsed
  by protobuf and imported in C++: about 0.2-0.4 s for 2,000 x 200,000 with 2,000,000 nonzeros,
  against about 0.5 s for one ``add_element_to_subset`` call per nonzero. The import drops
  columns without elements and shifts the later ones (and leaves ``num_nonzeros`` at 0, which
  no heuristic reads), so empty columns, never useful in a cover, are left out and the column
  indices mapped back.
- ``GuidedLocalSearch`` keeps its penalties and priority heap from one ``next_solution`` call to
  the next, but its heap entries go stale when a call ends by reloading the best solution of
  that call; later calls can then drop a column that is not redundant and, because the best
  solution is chosen by cost alone, return an infeasible cover (while
  ``num_uncovered_elements`` still reads 0 until a ``recompute``). After every slice the
  invariant is recomputed and an infeasible cover is repaired (element degree, then steepest
  search) before it is offered. A single long call stops as soon as its heap runs empty, after
  a handful of moves, which is why the search runs in slices at all.
- The ``focus`` overloads (lists of column indices) and ``SetCoverInvariant.model`` are unsafe
  in these bindings and ``SetCoverInvariant.load_solution`` accepts no Python value, so only
  the whole-model calls are used and a solution is restored column by column.

``clear_random_subsets`` draws from OR-Tools' unseeded random generator: ``seed`` is ignored
and runs are not reproducible; ``threads`` is ignored (the heuristics are sequential).
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cosolve.core.method import Method, Option, Outcome, SolveContext
from cosolve.core.problem import Problem
from cosolve.core.registry import register
from cosolve.core.result import Termination
from cosolve.errors import UsageError

CONSTRUCTIONS = ("greedy", "element-degree", "both")


def import_set_cover() -> tuple[ModuleType, ModuleType]:
    """OR-Tools' ``set_cover`` bindings and ``set_cover_pb2``, or a :class:`UsageError`."""
    try:
        from ortools.set_cover import set_cover_pb2
        from ortools.set_cover.python import set_cover
    except ImportError:
        from ortools import __version__

        raise UsageError(
            f"ortools-setcover needs OR-Tools' ortools.set_cover module, missing from ortools {__version__} "
            "(9.15 is tested): pip install --upgrade ortools"
        ) from None
    return set_cover, set_cover_pb2


# -- the model, as SetCoverProto wire bytes ---------------------------------------------------


def _varint_sizes(values: np.ndarray) -> np.ndarray:
    """Bytes of the base-128 varint of each non-negative value."""
    v = np.asarray(values, dtype=np.uint64)
    sizes = np.ones(len(v), dtype=np.int64)
    top = int(v.max()) if len(v) else 0
    for shift in range(7, top.bit_length(), 7):
        sizes += v >= np.uint64(1 << shift)
    return sizes


def _put_varints(out: np.ndarray, at: np.ndarray, values: np.ndarray, sizes: np.ndarray) -> None:
    """Write the varint of ``values[k]`` (``sizes[k]`` bytes) into ``out`` at ``at[k]``."""
    rest = np.asarray(values, dtype=np.uint64).copy()
    at = np.asarray(at, dtype=np.int64)
    for byte in range(int(sizes.max()) if len(sizes) else 0):
        live = np.flatnonzero(sizes > byte)
        low = (rest[live] & np.uint64(0x7F)).astype(np.uint8)
        low[sizes[live] > byte + 1] |= 0x80
        out[at[live] + byte] = low
        rest[live] >>= np.uint64(7)


def model_proto_bytes(costs: np.ndarray, csc: Any) -> tuple[bytes, np.ndarray]:
    """``SetCoverProto`` wire bytes of the columns with at least one row, and those columns.

    Per column: ``subset`` (field 1, a message) holding ``cost`` (field 1, a double) and
    ``element`` (field 2, packed varints of the 0-based rows).
    """
    indptr = np.asarray(csc.indptr, dtype=np.int64)
    rows = np.asarray(csc.indices, dtype=np.int64)
    counts = np.diff(indptr)
    kept = np.flatnonzero(counts > 0)
    counts = counts[kept]
    row_sizes = _varint_sizes(rows)
    packed = np.add.reduceat(row_sizes, indptr[kept]) if len(kept) else np.zeros(0, np.int64)
    packed_sizes = _varint_sizes(packed)
    payload = 9 + 1 + packed_sizes + packed  # cost tag + double, element tag + length + varints
    payload_sizes = _varint_sizes(payload)
    record = 1 + payload_sizes + payload
    starts = np.cumsum(record) - record
    out = np.empty(int(record.sum()), dtype=np.uint8)
    out[starts] = 0x0A  # field 1, length-delimited
    _put_varints(out, starts + 1, payload, payload_sizes)
    at = starts + 1 + payload_sizes
    out[at] = 0x09  # field 1, 64-bit
    cost_bytes = np.ascontiguousarray(costs[kept], dtype="<f8").view(np.uint8).reshape(-1, 8)
    out[at[:, None] + np.arange(1, 9)] = cost_bytes
    at += 9
    out[at] = 0x12  # field 2, length-delimited (packed)
    _put_varints(out, at + 1, packed, packed_sizes)
    first = at + 1 + packed_sizes  # where each kept column's row varints begin
    offsets = np.cumsum(row_sizes) - row_sizes  # of each row varint among all of them
    where = np.repeat(first - offsets[indptr[kept]], counts) + offsets
    _put_varints(out, where, rows, row_sizes)
    return out.tobytes(), kept


def build_model(problem: Problem) -> tuple[Any, np.ndarray]:
    """The OR-Tools ``SetCoverModel`` of ``problem`` (rows view built) and the problem's column
    of each model subset (the columns with at least one row)."""
    set_cover, set_cover_pb2 = import_set_cover()
    data, kept = model_proto_bytes(problem.costs, problem.csc)
    message = set_cover_pb2.SetCoverProto.FromString(data)
    del data
    model = set_cover.SetCoverModel()
    model.import_model_from_proto(message)  # also builds the row view
    return model, kept


# -- the search -------------------------------------------------------------------------------


def _cheaper(cost: float, than: float) -> bool:
    """``cost < than`` by more than the drift of OR-Tools' incrementally summed costs."""
    return cost < than - 1e-9 * max(1.0, abs(than)) if than < float("inf") else cost < than


class _Search:
    """The invariant, the heuristics working on it and the best cover so far."""

    def __init__(self, problem: Problem, ctx: SolveContext, model: Any, kept: np.ndarray) -> None:
        self.sc = set_cover = import_set_cover()[0]
        self.problem, self.ctx, self.kept = problem, ctx, kept
        self.model = model  # the invariant only points to it: keep it alive
        self.inv = set_cover.SetCoverInvariant(model)
        self.steepest = set_cover.SteepestSearch(self.inv)
        self.steepest.set_max_iterations(2**62)
        self.degree = set_cover.ElementDegreeSolutionGenerator(self.inv)
        self.best_cost = float("inf")
        self.best: np.ndarray | None = None  # selected model subsets of the best cover

    def selected(self) -> np.ndarray:
        return np.array(self.inv.is_selected(), dtype=bool)

    def feasible(self) -> bool:
        self.inv.recompute(self.sc.consistency_level.FREE_AND_UNCOVERED)
        return self.inv.num_uncovered_elements() == 0

    def keep_if_better(self) -> bool:
        """Offer the current cover if it is complete and cheaper than the best; True if it was."""
        cost = self.inv.cost()
        if not _cheaper(cost, self.best_cost) or not self.feasible():
            return False
        self.best_cost, self.best = cost, self.selected()
        x = np.zeros(self.problem.n_cols, dtype=np.int8)
        x[self.kept[self.best]] = 1
        self.ctx.trace.offer(x, float(self.problem.costs @ x))
        return True

    def restore(self) -> None:
        """Make the best cover the current one (column by column: ``load_solution`` cannot be
        called from Python)."""
        level = self.sc.consistency_level.FREE_AND_UNCOVERED
        now = self.selected()
        for j in np.flatnonzero(now & ~self.best).tolist():
            self.inv.deselect(j, level)
        for j in np.flatnonzero(self.best & ~now).tolist():
            self.inv.select(j, level)
        self.inv.recompute(level)

    def construct(self, construction: str) -> None:
        kinds = ["greedy", "element-degree"] if construction == "both" else [construction]
        for k, kind in enumerate(kinds):
            if k:
                if self.ctx.deadline.stop_requested:
                    return
                self.inv.clear()
            generator = self.degree if kind == "element-degree" else self.sc.GreedySolutionGenerator(self.inv)
            generator.next_solution()
            self.steepest.next_solution()
            if not self.keep_if_better() and self.best is not None:
                self.restore()

    def clear_and_repair(self, fraction: float) -> bool:
        """One clear-and-repair step from the current cover; True if it improved the best one (a
        worse result is undone)."""
        count = max(1, round(fraction * int(self.best.sum())))
        self.sc.clear_random_subsets(count, self.inv)
        self.degree.next_solution()
        self.steepest.next_solution()
        if self.keep_if_better():
            return True
        if _cheaper(self.best_cost, self.inv.cost()):
            self.restore()
        return False


@register
class OrToolsSetCover(Method):
    """OR-Tools' set-cover heuristics: greedy start, steepest descent, then guided local search
    slices and clear-and-repair rounds until the deadline (see the module doc)."""

    name: ClassVar[str] = "ortools-setcover"
    problems: ClassVar[frozenset[str]] = frozenset({"setcover"})
    summary: ClassVar[str] = (
        "OR-Tools set-cover heuristics: greedy / element-degree start, steepest descent, then guided local "
        "search slices and clear-and-repair rounds until the time limit; no bound"
    )
    warm_up: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "construction": Option(
            str, "both", "start from GreedySolutionGenerator, ElementDegreeSolutionGenerator or the better of both", CONSTRUCTIONS
        ),
        "gls_iterations_per_slice": Option(
            int,
            1000,
            "GuidedLocalSearch iterations per call (each call holds the GIL); 0 turns guided local search off",
            minimum=0,
        ),
        "lns_fraction": Option(
            float,
            0.4,
            "share of the selected columns each clear-and-repair step drops (0..1); 0 turns the step off",
            minimum=0.0,
            maximum=1.0,
        ),
    }

    def solve(self, problem: Problem, ctx: SolveContext) -> Outcome:
        options = ctx.options
        deadline = ctx.deadline
        if deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT)
        start = time.perf_counter()
        model, kept = build_model(problem)
        stats: dict[str, Any] = {"build_seconds": round(time.perf_counter() - start, 4)}
        if deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        search = _Search(problem, ctx, model, kept)
        search.construct(options["construction"])
        per_slice, fraction = options["gls_iterations_per_slice"], options["lns_fraction"]
        if deadline.stop_requested:
            return Outcome(Termination.TIME_LIMIT, stats=stats)
        if not (per_slice or fraction):
            return Outcome(Termination.COMPLETED, stats=stats)

        search.restore()  # the best cover is the start of the improvement rounds
        gls = None
        if per_slice:
            gls = search.sc.GuidedLocalSearch(search.inv)
            gls.set_max_iterations(per_slice)
            gls.initialize()
        counts = {"gls_slices": 0, "gls_improvements": 0, "gls_repairs": 0, "lns_rounds": 0, "lns_improvements": 0}
        while not deadline.stop_requested:
            if gls is not None:
                gls.next_solution()
                counts["gls_slices"] += 1
                if not search.feasible():  # a stale GLS heap dropped a needed column: repair
                    counts["gls_repairs"] += 1
                    search.degree.next_solution()
                    search.steepest.next_solution()
                counts["gls_improvements"] += search.keep_if_better()
                if deadline.stop_requested:
                    break
            if fraction:
                counts["lns_rounds"] += 1
                counts["lns_improvements"] += search.clear_and_repair(fraction)
        return Outcome(Termination.TIME_LIMIT, stats=stats | counts)
