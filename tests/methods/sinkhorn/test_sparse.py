"""Sparse Gumbel–Sinkhorn: on the full pattern it is the dense operator (Sinkhorn, double centring,
the entropy-adaptive temperature); on candidate edges rows and columns sum to one."""

import numpy as np
import pytest
import torch

from cosolve.heuristics.tsp.tour_construction import candidate_lists
from cosolve.methods.sinkhorn.operator import TemperatureSchedule, double_centre, log_sinkhorn
from cosolve.methods.sinkhorn.sparse import (
    SparsePattern,
    segment_logsumexp,
    sparse_double_centre,
    sparse_gumbel_sinkhorn,
    sparse_log_sinkhorn,
    sparse_temperature,
)


def full_pattern(n):
    rows, cols = np.divmod(np.arange(n * n), n)
    reverse = cols * n + rows
    return SparsePattern(n, torch.from_numpy(rows), torch.from_numpy(cols), torch.from_numpy(reverse))


def test_segment_logsumexp_is_the_log_sum_exp_of_each_segment():
    x = torch.randn(3, 10, dtype=torch.float64) * 5
    index = torch.tensor([0, 2, 2, 0, 1, 1, 1, 3, 0, 2])
    out = segment_logsumexp(x, index, 5)
    for s in range(4):
        assert torch.allclose(out[:, s], torch.logsumexp(x[:, index == s], dim=-1))
    assert torch.isinf(out[:, 4]).all()  # an empty segment


def test_on_the_full_pattern_sinkhorn_and_centring_equal_the_dense_ones():
    n = 6
    x = torch.randn(2, n, n, dtype=torch.float64)
    pattern = full_pattern(n)
    assert torch.allclose(sparse_log_sinkhorn(x.reshape(2, -1), pattern, 7), log_sinkhorn(x, 7).reshape(2, -1))
    assert torch.allclose(sparse_double_centre(x.reshape(2, -1), pattern), double_centre(x).reshape(2, -1))


@pytest.mark.parametrize("variant", ["adaptive", "fixed", "annealed"])
def test_on_the_full_pattern_the_temperature_is_the_dense_one(variant):
    n = 7
    logits = torch.randn(n, n, dtype=torch.float64) * 3
    schedule = TemperatureSchedule(variant, threshold=0.3, max_boost=0.5)
    dense = schedule(logits, 3, 10)
    sparse = sparse_temperature(schedule, logits.reshape(-1), full_pattern(n), 3, 10)
    if variant == "adaptive":
        assert torch.allclose(sparse, dense.reshape(-1))
        assert float(sparse.max()) > float(sparse.min())  # the boost acts
    else:
        assert sparse == dense


def test_the_symmetric_pattern_of_candidate_lists():
    rng = np.random.default_rng(0)
    coords = rng.uniform(0, 1, (30, 2))
    lists = candidate_lists(coords, 4)
    pattern = SparsePattern.symmetric(lists)
    rows, cols = pattern.rows.numpy(), pattern.cols.numpy()
    pairs = set(zip(rows.tolist(), cols.tolist(), strict=True))
    expected = {(i, int(j)) for i in range(30) for j in lists[i]} | {(int(j), i) for i in range(30) for j in lists[i]}
    assert pairs == expected and len(pairs) == len(rows)
    assert np.array_equal(rows[pattern.reverse.numpy()], cols) and np.array_equal(cols[pattern.reverse.numpy()], rows)
    index = pattern.index_of(np.repeat(np.arange(30), 4), lists.ravel())
    assert np.array_equal(rows[index], np.repeat(np.arange(30), 4)) and np.array_equal(cols[index], lists.ravel())


def test_sparse_gumbel_sinkhorn_is_doubly_stochastic_on_the_pattern():
    rng = np.random.default_rng(1)
    pattern = SparsePattern.symmetric(candidate_lists(rng.uniform(0, 1, (40, 2)), 5))
    logits = torch.randn(len(pattern.rows), dtype=torch.float64)
    temperature = sparse_temperature(TemperatureSchedule("adaptive"), logits, pattern, 0, 10)
    p = sparse_gumbel_sinkhorn(
        logits, temperature, pattern, samples=3, iterations=200, generator=torch.Generator().manual_seed(0)
    )
    for index in (pattern.rows, pattern.cols):
        sums = torch.zeros(3, 40, dtype=torch.float64).scatter_add(-1, index.expand_as(p), p)
        assert torch.allclose(sums, torch.ones_like(sums), atol=1e-6)
