"""numba's ``njit`` behind a counter of the seconds numba spends compiling in this process
(:func:`compile_seconds`). Every kernel module takes ``njit`` from here.

numba compiles a kernel on its first call when its on-disk cache holds no copy (the first solve
after installing, or after the kernel's source changed); loading a cached copy is not counted.
Importing this module does not import numba: the first ``njit`` does, and starts the counter, so
code whose methods may never use numba (the command line, a benchmark job) can ask it for the
seconds without paying numba's import.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["compile_seconds", "njit", "on_first_compile"]

_clock: Any = None  # the listener, once a kernel module has asked for njit
_first_compile: list[Callable[[], None]] = []  # called once, when numba starts compiling for the first time


def _started_clock() -> Any:
    global _clock
    if _clock is None:
        from numba.core import event

        class CompileClock(event.Listener):
            """Wall-clock seconds inside outermost ``numba:compile`` events (a kernel's compile
            includes the helpers it calls, which fire nested events)."""

            def __init__(self) -> None:
                self.seconds = 0.0
                self.depth = 0
                self.started = 0.0

            def on_start(self, _event: event.Event) -> None:
                if self.depth == 0:
                    while _first_compile:
                        _first_compile.pop()()
                    self.started = time.perf_counter()
                self.depth += 1

            def on_end(self, _event: event.Event) -> None:
                self.depth -= 1
                if self.depth == 0:
                    self.seconds += time.perf_counter() - self.started

        _clock = CompileClock()
        event.register("numba:compile", _clock)
    return _clock


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit(*args, **kwargs)``, with the compile counter started."""
    _started_clock()
    from numba import njit as numba_njit

    return numba_njit(*args, **kwargs)


def on_first_compile(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` once, when numba next starts compiling (not when it loads a kernel from
    its cache): the command line says then why a first run takes seconds. Returns a function that
    withdraws the callback if it has not run."""
    _first_compile.append(callback)
    return lambda: _first_compile.remove(callback) if callback in _first_compile else None


def compile_seconds() -> float:
    """Seconds numba has spent compiling in this process (0.0 before any kernel module was imported)."""
    return 0.0 if _clock is None else _clock.seconds
