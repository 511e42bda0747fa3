"""The targeted rankings of the set cover LNS (expensive rows, pool disagreement) and the pool of
covers the search keeps for them."""

from types import SimpleNamespace

import numpy as np
import pytest

import cosolve.methods.glns.targeted as targeted
from cosolve import Solver
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
from cosolve.heuristics.setcover.three_phase import CoverPool
from cosolve.heuristics.sparse_index import index_arrays
from cosolve.methods.glns.lns import POOL_SIZE
from cosolve.methods.glns.targeted import disagreement_ranker, expensive_ranker, expensive_row
from tests.heuristics.setcover.setcover_cases import random_cover
from tests.methods.glns.test_lns_parts import planted_instance


def test_expensive_ranking_puts_the_columns_paid_far_above_the_bound_first():
    # the planted block's incumbent pays 5 + 5 for rows a single column of cost 1 covers; every
    # other block's incumbent column is the block's cheapest, priced at the bound
    p, x = planted_instance()
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=200)
    assert lag.reduced[0] == pytest.approx(lag.reduced[1]) and lag.reduced[0] > lag.reduced[2:][x[2:] == 1].max() + 4
    state = SimpleNamespace(x=x, lagrangian=lag, pool=None)
    rankings = [expensive_ranker(state, np.random.default_rng(seed)) for seed in range(200)]
    assert all(sorted(r.tolist()) == np.flatnonzero(x).tolist() for r in rankings)
    # perturbed, so not always first; at random the pair would lead 1 ranking in 78
    assert np.mean([set(r[:2].tolist()) == {0, 1} for r in rankings]) > 0.25
    assert np.mean([0 in r[:2] for r in rankings]) > 0.5  # at random 2 in 13


def test_the_learned_rankings_region_grows_from_a_row_the_cover_pays_for_above_the_bound():
    p, x = planted_instance()  # blocks of 6 rows; the planted, expensive one is rows 0-5
    lag = lagrangian_bound(p.costs, p.matrix, p.csc, upper=float(p.costs @ x), iterations=200)
    _, _, col_ptr, col_idx = index_arrays(p.matrix, p.csc)
    state = SimpleNamespace(x=x, lagrangian=lag, pool=None, col_ptr=col_ptr, col_idx=col_idx)
    rows = [expensive_row(state, np.random.default_rng(seed)) for seed in range(200)]
    assert all(0 <= r < p.n_rows for r in rows)
    assert np.mean(np.array(rows) < 6) > 0.5  # a random row would be there 1 time in 12


def pool_of(covers):
    pool = CoverPool(10)
    for k, cover in enumerate(covers):
        pool.offer(np.array(cover, np.int8), float(k))
    return pool


def test_disagreement_ranking_starts_with_the_columns_some_but_not_all_covers_of_the_pool_hold():
    pool = pool_of([[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 1, 1]])
    state = SimpleNamespace(x=np.array([1, 1, 0, 0, 1, 0], np.int8), pool=pool)
    ranking = disagreement_ranker(state, np.random.default_rng(0))
    assert sorted(ranking[:3].tolist()) == [1, 2, 5]
    assert sorted(set(ranking[3:].tolist())) == list(range(6))  # then random columns: a few cannot cap the size


@pytest.mark.parametrize("covers", [[[1, 0, 1, 0]], [[1, 0, 1, 0], [1, 0, 1, 0]]])
def test_disagreement_ranking_is_random_while_the_pool_has_nothing_to_disagree_on(covers):
    state = SimpleNamespace(x=np.array([1, 0, 1, 0], np.int8), pool=pool_of(covers))
    ranking = disagreement_ranker(state, np.random.default_rng(0))
    assert sorted(ranking.tolist()) == [0, 1, 2, 3]


def test_the_search_pools_its_cheapest_distinct_covers_for_the_rankers(monkeypatch):
    p = random_cover(np.random.default_rng(0), 200, 2000, 0.02)  # not solved before the loop starts
    seen = []

    def spy(state, rng):
        covers = {key: (cost, cover.copy()) for key, (cost, cover) in state.pool.covers.items()}
        seen.append((state.x.copy(), covers))
        return disagreement_ranker(state, rng)

    monkeypatch.setitem(targeted.TARGETED_RANKERS, "disagreement", spy)
    options = dict(refine_share=0, refine_patience=0, refine_balance=0, repair_probation=0, size=20)
    r = Solver("lns-random", time_limit=1, seed=0, neighbourhood="disagreement", **options).solve(p)
    assert seen, "the loop ran no repair"
    incumbent, last = seen[-1]
    assert 1 <= len(last) <= POOL_SIZE
    assert incumbent.tobytes() in {cover.tobytes() for _, cover in last.values()}
    for cost, cover in last.values():
        assert p.evaluate(cover).feasible and p.evaluate(cover).objective == cost
    assert len({cover.tobytes() for _, cover in last.values()}) == len(last)
    assert min(cost for cost, _ in last.values()) >= r.objective
