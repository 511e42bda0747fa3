"""numba's random generator, seeded once per search (numba keeps one per thread, shared by every
jitted function), so that a seed and a number of iterations give the same result however the
iterations are chunked."""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit


@njit(cache=True)
def seed_numba_random(seed: int) -> None:
    """Seed numba's random generator (one per thread, shared by every jitted function)."""
    np.random.seed(seed)
