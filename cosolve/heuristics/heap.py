"""An indexed binary max-heap of node ids keyed by a float array, as numba helpers.

``heap[:size]`` holds node ids, ``pos[v]`` the slot of node v (-1 when v is not in the heap) and
``key[v]`` its key; the largest key is at ``heap[0]``, ties broken by the smaller node id. The
keys live outside the heap: after changing ``key[v]`` call :func:`heap_fix`. Each operation is
O(log size).
"""

from __future__ import annotations

import numpy as np

from cosolve.core.numba_compile import njit


@njit(cache=True, inline="always")
def _above(key: np.ndarray, a: int, b: int) -> bool:
    return key[a] > key[b] or (key[a] == key[b] and a < b)


@njit(cache=True)
def heap_fix(heap: np.ndarray, pos: np.ndarray, key: np.ndarray, size: int, v: int) -> None:
    """Restore the heap order around node v (in the heap) after its key changed."""
    p = pos[v]
    while p > 0:  # sift up
        q = (p - 1) // 2
        hq = heap[q]
        if not _above(key, v, hq):
            break
        heap[p] = hq
        pos[hq] = p
        p = q
    while True:  # sift down
        c = 2 * p + 1
        if c >= size:
            break
        if c + 1 < size and _above(key, heap[c + 1], heap[c]):
            c += 1
        hc = heap[c]
        if not _above(key, hc, v):
            break
        heap[p] = hc
        pos[hc] = p
        p = c
    heap[p] = v
    pos[v] = p


@njit(cache=True)
def heap_push(heap: np.ndarray, pos: np.ndarray, key: np.ndarray, size: int, v: int) -> int:
    """Insert node v (not in the heap); returns the new size."""
    heap[size] = v
    pos[v] = size
    heap_fix(heap, pos, key, size + 1, v)
    return size + 1


@njit(cache=True)
def heap_remove(heap: np.ndarray, pos: np.ndarray, key: np.ndarray, size: int, v: int) -> int:
    """Remove node v (in the heap); returns the new size."""
    p = pos[v]
    last = heap[size - 1]
    pos[v] = -1
    size -= 1
    if last != v:
        heap[p] = last
        pos[last] = p
        heap_fix(heap, pos, key, size, last)
    return size


@njit(cache=True)
def heap_build(heap: np.ndarray, pos: np.ndarray, key: np.ndarray, nodes: np.ndarray) -> int:
    """Fill the heap with ``nodes`` (every other pos set to -1); returns the size."""
    pos[:] = -1
    size = np.int64(0)  # not the literal 0, which would compile heap_push a second time
    for v in nodes:
        size = heap_push(heap, pos, key, size, v)
    return size
