"""Name resolution for data sets bundled in ``instances/`` (a checkout's, absent from a wheel)."""

from __future__ import annotations

import os
from pathlib import Path

from cosolve.errors import InputError


def resolve_named(name: str | os.PathLike, bundled: dict[str, Path], what: str) -> Path:
    """``name`` as a path if such a file exists, else the bundled data set of that short name in
    ``bundled``; InputError listing the bundled names otherwise (``what`` says which kind)."""
    path = Path(name)
    if path.exists():
        return path
    if str(name) in bundled:
        return bundled[str(name)]
    known = ", ".join(bundled) or "none in this installation"
    raise InputError(f"no such file, and no bundled {what} data set of that name (bundled: {known})", where=str(name))
