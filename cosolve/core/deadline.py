"""One wall-clock deadline shared by every method of a solve."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class Deadline:
    """A wall-clock budget that starts when the object is created.

    ``time_limit`` is in seconds (``math.inf`` for none); ``uncounted``, when given, returns a
    running total of seconds the budget does not count. ``interrupt()`` is called from a
    signal handler (Ctrl-C) or another thread; methods poll :attr:`stop_requested` and
    hand :meth:`remaining` to the sub-solvers they call.
    """

    def __init__(self, time_limit: float = math.inf, *, uncounted: Callable[[], float] | None = None) -> None:
        if not (time_limit > 0):  # also rejects NaN
            raise ValueError(f"time limit must be positive, got {time_limit}")
        self.time_limit = float(time_limit)
        self._uncounted = uncounted
        self._uncounted_at_start = 0.0 if uncounted is None else uncounted()
        self.start = time.perf_counter()
        self._interrupted = threading.Event()

    def elapsed(self) -> float:
        """Seconds since the deadline started, less those ``uncounted()`` grew by meanwhile (say,
        numba's compile seconds, for a warm-up that must not be cut short by compiling)."""
        seconds = time.perf_counter() - self.start
        if self._uncounted is not None:
            seconds -= self._uncounted() - self._uncounted_at_start
        return seconds

    def remaining(self) -> float:
        """Seconds left before the deadline (never negative; ``inf`` without a limit)."""
        return max(0.0, self.time_limit - self.elapsed())

    def expired(self) -> bool:
        return self.elapsed() >= self.time_limit

    def interrupt(self) -> None:
        """Ask the running method to stop and return its incumbent."""
        self._interrupted.set()

    @property
    def interrupted(self) -> bool:
        return self._interrupted.is_set()

    @property
    def stop_requested(self) -> bool:
        """True once the time is up or an interrupt was requested."""
        return self.interrupted or self.expired()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds`` (less if the deadline comes first); True if interrupted."""
        return self._interrupted.wait(min(seconds, self.remaining()))
