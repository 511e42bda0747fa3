import math
import threading
import time

import pytest

from cosolve.core.deadline import Deadline


def test_deadline_counts_down_and_expires():
    d = Deadline(0.05)
    assert not d.expired() and 0 < d.remaining() <= 0.05
    time.sleep(0.06)
    assert d.expired() and d.remaining() == 0.0 and d.stop_requested


def test_interrupt_stops_and_wakes_a_wait():
    d = Deadline(math.inf)
    assert d.remaining() == math.inf and not d.stop_requested
    d.interrupt()
    assert d.interrupted and d.stop_requested
    assert d.wait(5.0)  # interrupted: True, without waiting
    waiting = Deadline(math.inf)
    woken = []
    waiter = threading.Thread(target=lambda: woken.append(waiting.wait(600.0)))
    waiter.start()
    waiting.interrupt()
    waiter.join(60)  # a wait that the interrupt did not wake would still be asleep
    assert woken == [True]


@pytest.mark.parametrize("bad", [0, -1, float("nan")])
def test_deadline_rejects_non_positive_limits(bad):
    with pytest.raises(ValueError):
        Deadline(bad)


def test_seconds_the_uncounted_clock_grew_by_are_not_counted():
    uncounted = [0.0]
    deadline = Deadline(0.3, uncounted=lambda: uncounted[0])
    time.sleep(0.2)
    uncounted[0] += 0.2  # say, numba compiled for those 0.2 s
    assert deadline.elapsed() < 0.1 and not deadline.expired()
    time.sleep(0.35)
    assert deadline.expired()
