"""Rankings that aim the LNS's neighbourhoods at what the local search leaves: the rows the
incumbent pays for far above the Lagrangian bound, and the columns on which good covers disagree.

Both are :data:`cosolve.methods.glns.lns.Ranker` s: ``ranker(state, rng) -> columns`` (int64, best
first), which :func:`cosolve.methods.glns.neighborhood.free_columns_kernel` walks, freeing each
column's rows with their candidate columns and the incumbent's columns covering them.

- :func:`expensive_ranker`: the incumbent's columns by Lagrangian reduced cost
  ``r_j = c_j - sum_{i in j} u_i``, largest first, perturbed by Gumbel noise of one standard
  deviation of the incumbent's reduced costs: a column with a large ``r_j`` costs more than the
  bound values the rows it covers, so its rows are where the cover is expensive against the bound.
- :func:`disagreement_ranker`: the columns that are in some but not all covers of the search's
  pool (the cheapest distinct covers it has found, :class:`cosolve.heuristics.setcover.three_phase.CoverPool`), in
  random order, so the neighbourhood frees the rows where good covers differ; then random columns
  (all of them while the pool holds fewer than two covers or they all agree), so that a few
  disputed columns do not cap the neighbourhood below its size.

:func:`expensive_row` aims ``glns``'s learned ranking instead of replacing it: its region grows
from a row of the column the expensive ranking puts first.
"""

from __future__ import annotations

import numpy as np

from cosolve.methods.glns.lns import POOL_SIZE, SearchState, random_ranker


def _expensive_keys(state: SearchState, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The incumbent's columns (k,) and their Gumbel-perturbed reduced costs (k,), in units of the
    reduced costs' standard deviation."""
    chosen = np.flatnonzero(state.x)
    reduced = state.lagrangian.reduced[chosen]
    scale = float(reduced.std()) or 1.0
    return chosen, reduced / scale + rng.gumbel(size=chosen.size)


def expensive_ranker(state: SearchState, rng: np.random.Generator) -> np.ndarray:
    """The incumbent's columns, largest Gumbel-perturbed reduced cost first."""
    chosen, keys = _expensive_keys(state, rng)
    return chosen[np.argsort(-keys)]


def disagreement_ranker(state: SearchState, rng: np.random.Generator) -> np.ndarray:
    """The columns in some but not all of the pool's covers, in random order, then random columns."""
    covers = [x for _, x in state.pool.covers.values()] if state.pool is not None else []
    if len(covers) >= 2:
        count = np.sum(covers, axis=0, dtype=np.int64)
        disputed = np.flatnonzero((count > 0) & (count < len(covers)))
        if disputed.size:  # then random columns, so that the neighbourhood can still reach its size
            return np.concatenate([rng.permutation(disputed), random_ranker(state, rng)])
    return random_ranker(state, rng)


def expensive_row(state: SearchState, rng: np.random.Generator) -> int:
    """A random row of the first column of :func:`expensive_ranker`: where ``glns``'s learned
    ranking grows its region with ``--set region_seed=expensive``."""
    chosen, keys = _expensive_keys(state, rng)
    j = int(chosen[np.argmax(keys)])
    rows = state.col_idx[state.col_ptr[j] : state.col_ptr[j + 1]]
    return int(rows[rng.integers(rows.size)])


#: ``glns``'s ``region_seed`` option values: how the learned ranking picks the row its region grows from.
REGION_SEEDS = {"random": None, "expensive": expensive_row}

#: ``neighbourhood`` option values other than "ranked" (the method's own ranking).
TARGETED_RANKERS = {"expensive": expensive_ranker, "disagreement": disagreement_ranker}

#: How many covers the search keeps in its pool for a ``neighbourhood`` value (none: no pool).
POOL_SIZES = {"disagreement": POOL_SIZE}
