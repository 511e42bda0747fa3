"""Reading and writing policy checkpoints: ``model.pt`` (format tag, config, meta, weights) and the
model card ``README.md`` beside it, shared by CAM's graph policies and GLNS's set cover policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cosolve.errors import InputError


def write_checkpoint(folder: Path, fmt: str, config: dict[str, Any], meta: dict[str, Any], state_dict: dict, card: str) -> None:
    """Write ``folder/model.pt`` and ``folder/README.md``, each atomically."""
    import torch

    from cosolve.io.solution import atomic_path, atomic_write

    folder.mkdir(parents=True, exist_ok=True)
    payload = {"format": fmt, "config": config, "meta": meta, "state_dict": state_dict}
    with atomic_path(folder / "model.pt") as tmp:
        torch.save(payload, tmp)
    atomic_write(folder / "README.md", card)


def read_checkpoint(path: str | Path, fmt: str, what: str) -> tuple[Path, dict[str, Any]]:
    """The file and payload of the checkpoint ``path`` (a file, or a folder holding ``model.pt``) of
    format ``fmt``; ``what`` names the kind in errors (e.g. "CAM"). Raises :class:`InputError`."""
    import torch

    path = Path(path)
    if path.is_dir():
        path = path / "model.pt"
    if not path.is_file():
        raise InputError(f"{path}: no such checkpoint")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # a truncated or foreign file
        raise InputError(f"{path}: not a readable {what} checkpoint ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    if not isinstance(payload, dict) or payload.get("format") != fmt:
        raise InputError(f"{path}: not a {what} checkpoint (expected format {fmt})")
    return path, payload


def load_weights(policy: Any, payload: dict[str, Any], path: Path) -> None:
    """Load the payload's weights into ``policy`` and switch it to eval mode."""
    try:
        policy.load_state_dict(payload["state_dict"])
    except RuntimeError as e:
        raise InputError(f"{path}: weights do not match the stored configuration ({str(e).splitlines()[0]})") from None
    policy.eval()
