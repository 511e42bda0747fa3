"""The pacer that fits denoising steps into a deadline, on a fake clock."""

import pytest

from cosolve.diffusion.pacing import Pacer


class FakeClock:
    def __init__(self, limit: float) -> None:
        self.now, self.limit = 0.0, limit

    def remaining(self) -> float:
        return max(0.0, self.limit - self.now)


def test_costs_are_per_chain_running_averages():
    pacer = Pacer(lambda: 1.0)
    pacer.observe_step(0.004, chains=1)
    assert pacer.step == pytest.approx(0.004)
    pacer.observe_step(0.032, chains=16)  # 0.002 per chain: halfway from 0.004
    assert pacer.step == pytest.approx(0.003)
    pacer.observe_decode(0.01, chains=10)
    assert pacer.decode == pytest.approx(0.001)


def test_a_step_fits_only_with_room_to_decode_after_it():
    clock = FakeClock(limit=1.0)
    pacer = Pacer(clock.remaining, safety=1.0)
    pacer.observe_step(0.08, chains=4)  # 0.02 per chain
    pacer.observe_decode(0.04, chains=4)  # 0.01 per chain
    # a step of 10 chains: 10 * (0.02 + 0.01) = 0.3 s with decoding
    clock.now = 0.69
    assert pacer.step_fits(10)
    clock.now = 0.72
    assert not pacer.step_fits(10) and pacer.step_fits(5)


def test_the_stop_rule_learns_the_step_time_and_stops_before_the_deadline():
    clock = FakeClock(limit=1.0)
    pacer = Pacer(clock.remaining, safety=1.0, clock=lambda: clock.now)
    pacer.observe_step(0.01, chains=1)  # a cheap guess: 0.01 s a step
    stop = pacer.stop_rule(2, stop_requested=lambda: False)
    taken = 0
    while not stop():
        clock.now += 0.15  # each step really takes 0.15 s
        taken += 1
    # the first step is measured at 0.15 s, the estimate averages up towards it
    assert clock.now <= 1.0 and taken >= 5 and pacer.step > 0.03
    assert pacer.stop_rule(2, stop_requested=lambda: True)()  # an interrupt stops at once


def test_without_a_limit_every_step_fits():
    pacer = Pacer(lambda: float("inf"))
    pacer.observe_step(10.0, chains=1)
    assert pacer.step_fits(1000)
