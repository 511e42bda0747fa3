"""torch for the conjoint optimisers, imported only when a solver needs it (the QP paths run without it):
the module itself, a thread limit, and conversions between numpy policies and float64 tensors.

A policy is a list of D probability vectors (L_d,), numpy arrays or torch tensors.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    import torch

#: A policy: one probability vector (L_d,) per factor, numpy arrays or torch tensors.
Policy: TypeAlias = "list[np.ndarray] | list[torch.Tensor]"


def torch_module() -> Any:
    """The ``torch`` module, imported on first use."""
    import torch

    return torch


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with torch (imported here), BLAS and numba limited to ``n`` threads, then
    restore them (:class:`cosolve.core.threads.ThreadLimits`)."""
    from cosolve.core.threads import ThreadLimits

    torch_module()
    with ThreadLimits(max(1, int(n))):
        yield


def as_tensor(w: np.ndarray) -> torch.Tensor:
    """``w`` as a float64 tensor (sharing its memory where it can)."""
    torch = torch_module()
    return torch.as_tensor(w, dtype=torch.float64)


def as_policy(pi: Policy) -> list[torch.Tensor]:
    """Policies (lists of (L_d,), numpy or torch) as float64 tensors."""
    torch = torch_module()
    return [torch.as_tensor(np.asarray(p.detach() if hasattr(p, "detach") else p), dtype=torch.float64) for p in pi]


def concrete(p: Any) -> np.ndarray:
    """One probability vector (numpy or torch) as a float64 numpy array, detached from any graph."""
    return np.asarray(p.detach() if hasattr(p, "detach") else p, dtype=np.float64)


def detach(p: Any) -> Any:
    """A tensor without its graph (numpy arrays as they are)."""
    return p.detach() if hasattr(p, "detach") else p


def to_numpy(pi: list[torch.Tensor]) -> list[np.ndarray]:
    """A policy of tensors as numpy copies (list of (L_d,))."""
    return [p.detach().numpy().copy() for p in pi]
