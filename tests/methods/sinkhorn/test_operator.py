"""The Sinkhorn operator against a direct implementation, doubly stochastic outputs, the adaptive
temperature's range and threshold, Hungarian decoding against brute force, and the metrics."""

import numpy as np
import pytest
import torch

from cosolve.methods.sinkhorn.hungarian import apply, hungarian, permutation_matrix
from cosolve.methods.sinkhorn.operator import (
    TemperatureSchedule,
    adaptive_temperature,
    double_centre,
    gumbel_sinkhorn,
    log_sinkhorn,
    normalized_entropy,
)
from cosolve.methods.sinkhorn.permutation_metrics import any_error, kendall_tau, wrong_positions
from tests.oracles import brute_force_permutation


def direct_sinkhorn(a, iterations):
    k = np.exp(a - a.max())
    for _ in range(iterations):
        k = k / k.sum(axis=1, keepdims=True)
        k = k / k.sum(axis=0, keepdims=True)
    return k


@pytest.mark.parametrize("n", [1, 3, 8])
def test_log_sinkhorn_equals_the_direct_iteration(n):
    a = np.random.default_rng(n).normal(size=(n, n)) * 2
    got = torch.exp(log_sinkhorn(torch.tensor(a), 7)).numpy()
    np.testing.assert_allclose(got, direct_sinkhorn(a, 7), rtol=1e-10, atol=1e-12)


def test_outputs_are_doubly_stochastic():
    torch.manual_seed(0)
    logits = torch.randn(4, 20, 20, dtype=torch.float64) * 3
    for t in (2.0, 1.0, 0.5):
        p = gumbel_sinkhorn(logits, t, samples=3, iterations=100_000, tol=1e-6, generator=torch.Generator().manual_seed(1))
        assert p.shape == (3, 4, 20, 20)
        assert torch.isfinite(p).all()
        torch.testing.assert_close(p.sum(-2), torch.ones(3, 4, 20, dtype=torch.float64), atol=1e-5, rtol=0)
        torch.testing.assert_close(p.sum(-1), torch.ones(3, 4, 20, dtype=torch.float64), atol=1e-5, rtol=0)


def test_row_and_column_offsets_change_nothing_under_any_temperature():
    """Sinkhorn ignores row and column constants of its input; with the entry-wise adaptive
    temperature this holds because the noisy logits are double-centred first."""
    torch.manual_seed(0)
    logits = torch.randn(2, 7, 7, dtype=torch.float64)
    shifted = logits + 40.0 * torch.randn(2, 7, 1, dtype=torch.float64) + 3.0 * torch.randn(2, 1, 7, dtype=torch.float64)
    centred = double_centre(shifted)
    torch.testing.assert_close(centred.mean(-1), torch.zeros(2, 7, dtype=torch.float64), atol=1e-12, rtol=0)
    torch.testing.assert_close(centred.mean(-2), torch.zeros(2, 7, dtype=torch.float64), atol=1e-12, rtol=0)
    temperature = adaptive_temperature(torch.exp(log_sinkhorn(logits, 10)), 0.7, max_boost=0.1)
    assert temperature.std() > 0.005  # entries get different temperatures
    a = gumbel_sinkhorn(logits, temperature, samples=2, generator=torch.Generator().manual_seed(3))
    b = gumbel_sinkhorn(shifted, temperature, samples=2, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(a, b, atol=1e-9, rtol=0)
    # a scalar temperature needs no centring: the offsets drop out at Sinkhorn's fixed point
    options = {"samples": 2, "iterations": 100_000, "tol": 1e-12}
    a = gumbel_sinkhorn(logits, 0.7, generator=torch.Generator().manual_seed(3), **options)
    b = gumbel_sinkhorn(shifted, 0.7, generator=torch.Generator().manual_seed(3), **options)
    torch.testing.assert_close(a, b, atol=1e-6, rtol=0)


def test_gradients_flow_through_the_operator():
    logits = torch.randn(5, 5, requires_grad=True)
    p = gumbel_sinkhorn(logits, 0.7, samples=2)
    (p * torch.arange(25.0).reshape(5, 5)).sum().backward()
    assert torch.isfinite(logits.grad).all() and logits.grad.abs().sum() > 0


def test_adaptive_temperature_range_and_threshold():
    n = 6
    confident = torch.eye(n) * 0.98 + 0.02 / n  # low entropy everywhere
    uniform = torch.full((n, n), 1.0 / n)  # entropy 1 everywhere
    assert torch.allclose(adaptive_temperature(confident, 0.8), torch.full((n, n), 0.8))
    assert torch.allclose(adaptive_temperature(uniform, 0.8, max_boost=0.1), torch.full((n, n), 0.88))
    # one uncertain row: only its entries (and by half) are boosted under "mean"
    mixed = confident.clone()
    mixed[2] = 1.0 / n
    t = adaptive_temperature(mixed, 1.0, max_boost=0.1)
    assert torch.all(t >= 1.0) and torch.all(t <= 1.1 + 1e-12)
    assert torch.allclose(t[2], torch.full((n,), 1.05), atol=1e-6)  # row boost 0.1, column boosts 0: their mean
    others = torch.cat([t[:2], t[3:]])
    h_cols = normalized_entropy(mixed, -2)
    assert torch.allclose(others[:, h_cols <= 0.7], torch.ones_like(others[:, h_cols <= 0.7]))
    tmax = adaptive_temperature(mixed, 1.0, combine="max")
    assert torch.allclose(tmax[2], torch.full((n,), 1.1))
    with pytest.raises(ValueError, match="combine"):
        adaptive_temperature(mixed, 1.0, combine="median")


def test_adaptive_temperature_of_random_assignments_stays_in_range():
    p = torch.exp(log_sinkhorn(torch.randn(10, 12, 12), 20))
    t = adaptive_temperature(p, 0.6, threshold=0.5, max_boost=0.2)
    assert torch.all(t >= 0.6 - 1e-12) and torch.all(t <= 0.72 + 1e-12)


def test_schedule_variants():
    logits = torch.randn(7, 7)
    assert TemperatureSchedule("fixed", fixed=0.9)(logits, 5, 10) == 0.9
    annealed = TemperatureSchedule("annealed")
    assert annealed.base(0, 100) == pytest.approx(1.5) and annealed.base(99, 100) == pytest.approx(0.5)
    t = TemperatureSchedule("adaptive")(logits, 50, 100)
    base = annealed.base(50, 100)
    assert t.shape == (7, 7) and torch.all(t >= base - 1e-9) and torch.all(t <= base * 1.1 + 1e-9)
    with pytest.raises(ValueError, match="valid: adaptive, fixed, annealed"):
        TemperatureSchedule("cold")


@pytest.mark.parametrize("seed", range(6))
def test_hungarian_matches_brute_force(seed):
    n = 5
    s = np.random.default_rng(seed).normal(size=(n, n))
    best = brute_force_permutation(n, lambda p: sum(s[i, p[i]] for i in range(n)))
    assert hungarian(s).tolist() == list(best)
    assert hungarian(s[None])[0].tolist() == list(best)


def test_decode_helpers_and_bad_input():
    perm = np.array([2, 0, 1])
    assert permutation_matrix(perm).tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    assert apply(perm, np.array([10, 20, 30])).tolist() == [20, 30, 10]
    with pytest.raises(ValueError, match="square"):
        hungarian(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        hungarian(np.array([[0.0, np.nan], [1.0, 2.0]]))


def test_metrics_on_hand_made_cases():
    true = np.array([[0, 1, 2, 3], [0, 1, 2, 3]])
    pred = np.array([[0, 1, 2, 3], [1, 0, 2, 3]])
    assert wrong_positions(pred, true) == pytest.approx(2 / 8)
    assert any_error(pred, true) == pytest.approx(0.5)
    # one swapped adjacent pair out of 6 pairs: tau = (5 - 1) / 6
    assert kendall_tau(pred, true) == pytest.approx((1 + 4 / 6) / 2)
    assert kendall_tau(true[0][::-1].copy(), true[0]) == pytest.approx(-1)
    with pytest.raises(ValueError, match="shape"):
        wrong_positions(np.zeros(3), np.zeros(4))
