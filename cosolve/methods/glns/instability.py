"""GLNS's neighbourhood ranking: where a denoising trajectory around the incumbent is unstable.

One *generation* (bounded cost, whatever the instance size):

1. Region: from a seed row, a breadth-first walk over rows and their candidate and incumbent
   columns until ``region`` columns are gathered (:func:`region_kernel`). The region's set cover
   energy (:class:`~cosolve.diffusion.energies.CoverEnergy`, costs divided by the region's largest)
   covers, with its columns, every row they touch that no incumbent column outside the region
   covers (:func:`extract_region`); the incumbent restricted to the region covers them all.
2. Trajectory: K chains start at the incumbent with each bit redrawn with probability ``noise``
   (partial noising) and run T tau-leaping steps of a flip rule: the learned CAM policy or, for
   the ablation, RLSA's energy-gradient rule (:func:`cosolve.diffusion.sampler.rlsa_rule`).
3. Instability of each region column (:func:`instability_scores`): how often the lowest-energy
   state of each chain's path disagrees with the incumbent, plus (weighted by ``FLIP_WEIGHT``)
   its flips along the path, each weighted by how late it came; averaged over chains. (The best
   state rather than the last: RLSA's rule keeps moving about k - 1 columns per step.)

The columns, most unstable first, seed the neighbourhood (:mod:`cosolve.methods.glns.neighborhood`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cosolve.core.numba_compile import njit
from cosolve.diffusion.energies import CoverEnergy
from cosolve.diffusion.sampler import FlipRule, rlsa_rule, rollout
from cosolve.methods.glns.glns_config import COVER_PENALTY
from cosolve.methods.glns.lns import Ranker, SearchState


@njit(cache=True)
def region_kernel(
    seed_row: int,
    row_ptr: np.ndarray,
    row_idx: np.ndarray,
    col_ptr: np.ndarray,
    col_idx: np.ndarray,
    cand_ptr: np.ndarray,
    cand_idx: np.ndarray,
    x: np.ndarray,
    max_columns: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns (int64) reached from ``seed_row`` breadth-first: a row brings its candidate
    columns and the incumbent's columns covering it; a column brings its rows. Stops after the
    row during which the column count reached ``max_columns``."""
    m = row_ptr.size - 1
    n = col_ptr.size - 1
    row_seen = np.zeros(m, np.bool_)
    col_seen = np.zeros(n, np.bool_)
    queue = np.empty(m, np.int64)
    cols = np.empty(n, np.int64)
    head, tail, nc = 0, 1, 0
    queue[0] = seed_row
    row_seen[seed_row] = True
    while head < tail and nc < max_columns:
        i = queue[head]
        head += 1
        for side in range(2):
            start = cand_ptr[i] if side == 0 else row_ptr[i]
            end = cand_ptr[i + 1] if side == 0 else row_ptr[i + 1]
            for q in range(start, end):
                j = cand_idx[q] if side == 0 else row_idx[q]
                if col_seen[j] or (side == 1 and x[j] == 0):
                    continue
                col_seen[j] = True
                cols[nc] = j
                nc += 1
                for p in range(col_ptr[j], col_ptr[j + 1]):
                    r = col_idx[p]
                    if not row_seen[r]:
                        row_seen[r] = True
                        queue[tail] = r
                        tail += 1
    return queue[:head].copy(), cols[:nc].copy()


@dataclass
class Region:
    """A local set cover: ``rows`` (r,) and ``columns`` (c,) of the instance, the 0/1 ``matrix``
    (r x c), the ``costs`` (c,) and Lagrangian ``reduced`` costs (c,), both divided by the region's
    largest cost, and the incumbent ``start`` (c,) int8 restricted to it."""

    rows: np.ndarray
    columns: np.ndarray
    matrix: sp.csr_array
    costs: np.ndarray
    reduced: np.ndarray
    start: np.ndarray

    def energy(self, penalty: float = COVER_PENALTY) -> CoverEnergy:
        return CoverEnergy(self.matrix, self.costs, penalty=penalty)


def extract_region(
    csc: sp.csc_array, costs: np.ndarray, reduced: np.ndarray, x: np.ndarray, cover: np.ndarray, columns: np.ndarray
) -> Region:
    """The :class:`Region` of ``columns`` around incumbent ``x`` (n,) with per-row cover counts
    ``cover`` (m,): every row those columns touch that no incumbent column outside them covers
    (the rows whose cover the region decides), by the region's columns."""
    sub = sp.csc_array(csc[:, columns])
    start = np.asarray(x, dtype=np.int8)[columns]
    touched = np.unique(sub.indices)
    inside = np.asarray(sub @ start.astype(np.int64)).ravel()  # the region's incumbent columns per row
    rows = touched[cover[touched] - inside[touched] == 0]
    matrix = sp.csr_array(sub[rows], dtype=np.float64)
    local = np.asarray(costs, dtype=np.float64)[columns]
    scale = local.max() if local.size and local.max() > 0 else 1.0
    return Region(rows, columns, matrix, local / scale, reduced[columns] / scale, start)


def partial_noise(start: np.ndarray, chains: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    """K copies of ``start`` (c,) with each bit redrawn uniformly with probability ``noise``: (K, c) int8."""
    x = np.broadcast_to(start, (chains, start.size)).copy()
    redraw = rng.random(x.shape) < noise
    x[redraw] = rng.integers(0, 2, int(redraw.sum()), dtype=np.int8)
    return x


#: Weight of the lateness-weighted flip frequency next to the best state's disagreement.
FLIP_WEIGHT = 0.25


def instability_scores(
    states: list[np.ndarray], final: np.ndarray, start: np.ndarray, energy: CoverEnergy, flip_weight: float = FLIP_WEIGHT
) -> np.ndarray:
    """Per column (c,): how often the lowest-energy state of each chain's path (``states``, each
    (K, c), the state before each step, then ``final``) disagrees with the incumbent ``start``,
    plus ``flip_weight`` times the column's flips along the path, each weighted by how late it
    came (step s of T weighs (s + 1) / T); averaged over chains."""
    path = [*states, final]
    steps = len(path) - 1
    flips = np.zeros(start.size)
    for s in range(steps):
        flips += (s + 1) / steps * (path[s + 1] != path[s]).mean(axis=0)
    energies = np.stack([energy.energy(x) for x in path[1:]])  # (T, K): after each step
    best = np.stack([path[1 + int(t)][k] for k, t in enumerate(energies.argmin(axis=0))])
    return (best != start[None, :]).mean(axis=0) + flip_weight * flips


#: ``make_rule(region, energy, steps, rng) -> FlipRule``: the flip rule run on a region.
RuleFactory = Callable[[Region, CoverEnergy, int, np.random.Generator], FlipRule]


def gradient_rule(tau: float = 0.1, d: int = 5) -> RuleFactory:
    """The untrained sampler: RLSA's regularised energy-gradient rule, annealed over the steps."""

    def make(region: Region, energy: CoverEnergy, steps: int, rng: np.random.Generator) -> FlipRule:
        return rlsa_rule(energy.grad, steps, tau=tau, d=d, rng=rng)

    return make


def generate(
    region: Region,
    make_rule: RuleFactory,
    *,
    chains: int,
    steps: int,
    noise: float,
    rng: np.random.Generator,
    penalty: float | None = None,
) -> np.ndarray:
    """One generation on ``region``: the instability score of each of its columns (c,)."""
    energy = region.energy(COVER_PENALTY if penalty is None else penalty)
    start = partial_noise(region.start, chains, noise, rng)
    out = rollout(make_rule(region, energy, steps, rng), start, steps, rng, record=True, start_time=noise)
    return instability_scores(out.states, out.final, region.start, energy)


def instability_ranker(
    make_rule: RuleFactory,
    *,
    region: int,
    chains: int,
    steps: int,
    noise: float,
    penalty: float | None = None,
    seed_row: Callable[[SearchState, np.random.Generator], int] | None = None,
) -> Ranker:
    """A ranker for :func:`cosolve.methods.glns.lns.run_lns`: one generation on the region around a
    row (at least twice the next free-set size), its columns most unstable first. ``seed_row(state,
    rng)`` picks the row; None: a random one."""

    def rank(state: SearchState, rng: np.random.Generator) -> np.ndarray:
        start = int(rng.integers(state.cover.size)) if seed_row is None else seed_row(state, rng)
        _, columns = region_kernel(
            start, state.row_ptr, state.row_idx, state.col_ptr, state.col_idx, state.cand_ptr, state.cand_idx,
            state.x, max(region, 2 * state.budget),
        )  # fmt: skip
        local = extract_region(state.problem.csc, state.problem.costs, state.lagrangian.reduced, state.x, state.cover, columns)
        scores = generate(local, make_rule, chains=chains, steps=steps, noise=noise, rng=rng, penalty=penalty)
        return columns[np.argsort(-scores, kind="stable")]

    return rank
