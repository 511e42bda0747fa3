"""Where the shipped CAM checkpoints are, and how a ``checkpoint`` option resolves to a file.

Shipped checkpoints live in the repository's top-level ``solvers/`` folder, one folder per
model (``model.pt`` and its model card ``README.md``); the package reaches them as
``cosolve.checkpoints`` (a link to ``solvers/`` that wheels include as package data).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from cosolve.errors import InputError, UsageError

#: The default checkpoint folder for each problem.
DEFAULT_CHECKPOINTS = {
    "mis": "cam-mis-rb-small",
    "maxcut": "cam-maxcut-ba-small",
    "maxclique": "cam-maxclique-rb-small",
    "mds": "cam-mds-ba-small",
}


def shipped_folder() -> Path:
    return Path(str(resources.files("cosolve.checkpoints")))


def resolve_checkpoint(option: str, problem: str) -> Path:
    """The ``model.pt`` that ``option`` names (a file or folder), or the shipped one for ``problem``."""
    if option:
        path = Path(option)
        if path.is_dir():
            path = path / "model.pt"
        if not path.is_file():
            raise InputError(f"checkpoint {option}: no such file")
        return path
    name = DEFAULT_CHECKPOINTS.get(problem)
    path = shipped_folder() / name / "model.pt" if name else None
    if path is None or not path.is_file():
        raise UsageError(
            f"no CAM checkpoint is shipped for {problem}; train one with `cosolve train cam --problem {problem} "
            f"--dist DIST --time SECONDS --out DIR` and pass --set checkpoint=DIR"
        )
    return path
