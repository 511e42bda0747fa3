"""Benchmark metrics on hand-computed cases."""

import math

import numpy as np
import pytest

from cosolve.harness.benchmark_metrics import gap_at, performance_profile, primal_gap, primal_integral, shifted_geometric_mean


@pytest.mark.parametrize(
    ("objective", "reference", "expected"),
    [(100, 100, 0.0), (110, 100, 10 / 110), (90, 100, 0.1), (None, 100, 1.0), (-5, 5, 1.0), (0, 0, 0.0), (3, 0, 1.0)],
)
def test_primal_gap(objective, reference, expected):
    assert primal_gap(objective, reference) == pytest.approx(expected)
    assert math.isnan(primal_gap(objective, None))


def test_primal_integral_by_hand():
    # reference 100; no solution for 1 s (gap 1), then 125 (gap 0.2) until 3 s, then 100 (gap 0) until T = 10 s
    trace = [(1.0, 125.0), (3.0, 100.0)]
    assert primal_integral(trace, 100.0, 10.0) == pytest.approx(1.0 * 1 + 0.2 * 2 + 0.0 * 7)
    assert primal_integral([], 100.0, 10.0) == pytest.approx(10.0)  # never a solution
    assert primal_integral([(0.0, 100.0)], 100.0, 5.0) == 0.0
    # an event after the horizon counts only up to it
    assert primal_integral([(2.0, 200.0), (12.0, 100.0)], 100.0, 10.0) == pytest.approx(2 + 0.5 * 8)
    # maximisation: reference 50, incumbent 40 (gap 0.2) from 0.5 s
    assert primal_integral([(0.5, 40.0)], 50.0, 2.0) == pytest.approx(0.5 + 0.2 * 1.5)


def test_gap_at_steps_through_the_trace():
    trace = [(1.0, 125.0), (3.0, 100.0)]
    np.testing.assert_allclose(gap_at(trace, 100.0, np.array([0.5, 1.0, 2.0, 3.5])), [1.0, 0.2, 0.2, 0.0])


def test_shifted_geometric_mean():
    assert shifted_geometric_mean([1.0, 1.0]) == pytest.approx(1.0)
    assert shifted_geometric_mean([0.0, 8.0], shift=1.0) == pytest.approx(math.sqrt(1 * 9) - 1)
    assert math.isnan(shifted_geometric_mean([]))


def test_performance_profile():
    # 3 problems x 2 methods; method 0 best on two, method 1 fails on one
    costs = np.array([[1.0, 2.0], [4.0, 2.0], [3.0, np.inf]])
    profile = performance_profile(costs, np.array([1.0, 2.0, 4.0]))
    np.testing.assert_allclose(profile[:, 0], [2 / 3, 1.0, 1.0])
    np.testing.assert_allclose(profile[:, 1], [1 / 3, 2 / 3, 2 / 3])
