"""The index arrays numba kernels take for a sparse matrix (no numba here: a graph solve imports it
without loading the set cover kernels)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def index_arrays(*matrices: sp.csr_array | sp.csc_array) -> list[np.ndarray]:
    """``indptr, indices`` of each matrix, all int32 (int64 if any nonzero count needs it).

    One dtype for all index arrays keeps numba to a single compiled specialisation.
    """
    big = any(a.nnz >= np.iinfo(np.int32).max or max(a.shape) >= np.iinfo(np.int32).max for a in matrices)
    dtype = np.int64 if big else np.int32
    out = []
    for a in matrices:
        out += [np.ascontiguousarray(a.indptr, dtype=dtype), np.ascontiguousarray(a.indices, dtype=dtype)]
    return out
