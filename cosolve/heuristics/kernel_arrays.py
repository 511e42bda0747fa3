"""Array helpers for numba kernels that compile in milliseconds.

``dst[:] = src`` between two arrays inside a kernel makes numba compile, for its size check, an
error message formatter (string conversion and joining of the shapes) that costs about 1.5 s on
a cold cache; :func:`copy_into` is the plain loop.
"""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit


@njit(cache=True)
def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[i] = src[i]`` for every i of the 1-D arrays (the same length)."""
    for i in range(src.size):
        dst[i] = src[i]
