"""The tau-leaping sampler and RLSA's flip rule."""

import numpy as np

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.sampler import rlsa_rule, rollout, times, uniform_start
from cosolve.generators.graphs import erdos_renyi


def test_rollout_flips_with_the_rule_probabilities():
    rng = np.random.default_rng(0)
    start = np.zeros((2000, 3), np.int8)
    out = rollout(lambda x, t, s: np.full(x.shape, 0.25), start, 1, rng, record=True)
    assert out.steps == 1 and len(out.states) == 1
    assert abs(out.final.mean() - 0.25) < 0.02
    np.testing.assert_allclose(out.marginal, 0.25)  # P(x = 1) after the step from 0


def test_rollout_never_flips_with_zero_and_always_with_one():
    rng = np.random.default_rng(0)
    start = uniform_start(5, 8, rng)
    assert rollout(lambda x, t, s: np.zeros(x.shape), start, 7, rng).final.tolist() == start.tolist()
    odd = rollout(lambda x, t, s: np.ones(x.shape), start, 3, rng).final
    np.testing.assert_array_equal(odd, 1 - start)


def test_rollout_passes_times_from_one_down_and_stops_when_asked():
    seen = []
    calls = iter(range(100))

    def rule(x, t, s):
        seen.append((t, s))
        return np.zeros(x.shape)

    out = rollout(rule, np.zeros((1, 2), np.int8), 4, np.random.default_rng(0), stop=lambda: next(calls) >= 2)
    assert seen == [(1.0, 0), (0.75, 1)] and out.steps == 2
    np.testing.assert_allclose(times(4), [1.0, 0.75, 0.5, 0.25])


def test_rlsa_rule_prefers_improving_flips():
    problem = erdos_renyi(12, 0.3, problem="mis", seed=0)
    energy = GraphBatch([problem]).energy
    x = np.ones((1, problem.n), np.int8)  # every edge violated: removing nodes improves
    p = rlsa_rule(energy.grad, 10, tau=0.01, d=5, rng=np.random.default_rng(0))(x, 1.0, 0)
    gain = energy.flip_gain(x)[0]
    best = np.argmin(gain)
    assert p[0, best] > 0.5 and np.all((p >= 0) & (p <= 1))
    assert p[0, gain >= 0].max() < 1e-6 if (gain >= 0).any() else True
