"""Shared by the conjoint game tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """These tensors are tiny: intra-op threads only add overhead (much of it on a busy machine)."""
    from cosolve.methods.conjoint.tensors import torch_threads

    with torch_threads(1):
        yield
