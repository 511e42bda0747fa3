"""Fitting denoising steps into a deadline from the measured cost of a step and of decoding.

A denoising step of K chains on a graph of tens of thousands of edges takes tens of
milliseconds, so checking the deadline only before each step lets the step in flight (and the
decoding after it) run past the budget. :class:`Pacer` keeps running estimates of the seconds
per chain of a step and of decoding, and starts a step only when the step and the decoding after
it fit in the time left.

Rounds keep their K chains when time is short rather than run fewer chains to the end: tried at
0.1 s per graph (20 rb-small and 10 rb-large graphs, with the machine's other core busy),
decoding 16 chains cut after a step or two (or none) gave better sets (mean 21.20 and 42.60)
than whole rounds of the 1 to 12 chains that fit (20.65 and 40.30).
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Pacer:
    """Running cost estimates, in seconds per chain, and the decision drawn from them.

    ``remaining()`` gives the seconds left (``inf`` without a limit); ``clock()`` a monotonic time
    in seconds. ``step`` is the cost of one tau-leaping step and ``decode`` of decoding, per
    chain; each measurement moves an estimate halfway (an exponential average), and the decision
    multiplies the estimated cost by ``safety`` against timing noise. Charging a step wholly per
    chain overestimates it when the first measurement has fewer chains than the steps to come
    (a step's fixed cost is counted once per chain), which errs on the side of the deadline.
    """

    def __init__(
        self,
        remaining: Callable[[], float],
        *,
        safety: float = 1.5,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.remaining = remaining
        self.safety = safety
        self.clock = clock
        self.step = 0.0
        self.decode = 0.0

    @staticmethod
    def _average(old: float, seconds: float, chains: int) -> float:
        new = max(seconds, 0.0) / max(chains, 1)
        return 0.5 * (old + new) if old else new

    def observe_step(self, seconds: float, chains: int) -> None:
        self.step = self._average(self.step, seconds, chains)

    def observe_decode(self, seconds: float, chains: int) -> None:
        self.decode = self._average(self.decode, seconds, chains)

    def step_fits(self, chains: int) -> bool:
        """Whether one more step of ``chains`` chains and decoding them fits in the time left."""
        return self.remaining() >= self.safety * chains * (self.step + self.decode)

    def stop_rule(self, chains: int, stop_requested: Callable[[], bool]) -> Callable[[], bool]:
        """A ``stop`` callable for :func:`cosolve.diffusion.sampler.rollout`, called before every
        step: it times the step since its previous call (so a step is measured whole: rule, flips,
        bookkeeping) and says stop once ``stop_requested()`` or the next step would not fit."""
        last: list[float] = []

        def stop() -> bool:
            now = self.clock()
            if last:
                self.observe_step(now - last[0], chains)
                last[0] = now
            else:
                last.append(now)
            return stop_requested() or not self.step_fits(chains)

        return stop
