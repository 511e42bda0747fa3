"""Thread limits for one solve or one fit: BLAS and OpenMP pools (threadpoolctl), numba and torch
all set to the budget's ``threads`` and restored afterwards.

Libraries are limited only once they are loaded: :class:`ThreadLimits` never imports torch or
numba itself. A method that loads one inside the block (torch in a learned method's ``prepare``)
is covered by calling :meth:`ThreadLimits.apply` again after it, which the Solver does. numba's
thread pool is limited only once a parallel kernel has started it: setting its size would start
it, and its OpenMP threads, idle but spinning, would take a second core from a one-thread solve
(cosolve's own kernels are serial).
"""

from __future__ import annotations

import sys
from typing import Any


class ThreadLimits:
    """``with ThreadLimits(n):`` — at most ``n`` threads in BLAS/OpenMP pools, numba's parallel
    kernels and torch's intra-op pool while the block runs; the previous settings afterwards."""

    def __init__(self, threads: int) -> None:
        self.threads = int(threads)
        self._pools: list[Any] = []  # threadpoolctl limiters, restored in reverse order
        self._torch: int | None = None
        self._numba: int | None = None
        self._libraries: set[str] = set()

    def __enter__(self) -> ThreadLimits:
        self.apply()
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()

    def apply(self) -> None:
        """Limit every library loaded by now that is not limited yet (cheap when nothing is new)."""
        self._limit_pools()
        torch = sys.modules.get("torch")
        if torch is not None and self._torch is None and hasattr(torch, "set_num_threads"):
            self._torch = torch.get_num_threads()
            torch.set_num_threads(self.threads)
        numba = _started_numba()
        if numba is not None and self._numba is None:
            self._numba = numba.get_num_threads()
            numba.set_num_threads(max(1, min(self.threads, numba.config.NUMBA_NUM_THREADS)))

    def _limit_pools(self) -> None:
        from threadpoolctl import threadpool_info, threadpool_limits

        loaded = {info["filepath"] for info in threadpool_info()}
        if loaded <= self._libraries:
            return
        self._libraries |= loaded
        self._pools.append(threadpool_limits(limits=self.threads))

    def restore(self) -> None:
        """Put back every setting :meth:`apply` changed."""
        if self._torch is not None:
            sys.modules["torch"].set_num_threads(self._torch)
            self._torch = None
        if self._numba is not None:
            sys.modules["numba"].set_num_threads(self._numba)
            self._numba = None
        while self._pools:
            self._pools.pop().restore_original_limits()
        self._libraries.clear()


def _started_numba() -> Any:
    """The numba module when its parallel thread pool is running, else None."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return None
    return sys.modules["numba"]
