"""Model checkpoints and resumable training state, shared by every method trained with
:mod:`cosolve.training.adjoint`.

A checkpoint folder holds ``model.pt`` (format tag, hyperparameters, metadata, weights), the same
in ``model.npz`` (weights as float32 arrays, the rest as JSON: solving reads it without torch) and
the model card ``README.md``; during training it also holds ``training.pt``, the state a resumed run
continues from (weights, optimiser, random generators, clock, best model so far). Shipped
checkpoints live in the repository's top-level ``solvers/`` folder, which the package reaches as
``cosolve.checkpoints`` (a link that wheels include as package data).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from cosolve.errors import InputError, UsageError

MODEL_FILE = "model.pt"
NUMPY_FILE = "model.npz"
CARD_FILE = "README.md"
STATE_FILE = "training.pt"


def shipped_folder() -> Path:
    """The folder of the shipped checkpoints."""
    return Path(str(resources.files("cosolve.checkpoints")))


def resolve_checkpoint(option: str, shipped: str | None, missing: str) -> Path:
    """The ``model.pt`` that the ``checkpoint`` option names (a file, or a folder holding one), or
    else the shipped folder ``shipped``; ``missing`` is the UsageError text when none is shipped."""
    if option:
        path = Path(option)
        if path.is_dir():
            if not (path / MODEL_FILE).is_file():
                raise InputError(
                    f"checkpoint {option}: a folder without {MODEL_FILE}; name a folder a training wrote, or its {MODEL_FILE}"
                )
            path = path / MODEL_FILE
        if not path.is_file():
            raise InputError(f"checkpoint {option}: no such file or folder")
        return path
    path = shipped_folder() / shipped / MODEL_FILE if shipped else None
    if path is None or not path.is_file():
        raise UsageError(missing)
    return path


def write_checkpoint(folder: Path, fmt: str, config: dict[str, Any], meta: dict[str, Any], state_dict: dict, card: str) -> None:
    """Write ``folder/model.pt``, ``folder/model.npz`` and ``folder/README.md``, each atomically;
    the weights as CPU tensors, wherever the network was trained."""
    import torch

    from cosolve.io.files import atomic_path, atomic_write

    folder.mkdir(parents=True, exist_ok=True)
    weights = {k: v.detach().cpu() for k, v in state_dict.items()}
    payload = {"format": fmt, "config": config, "meta": meta, "state_dict": weights}
    with atomic_path(folder / MODEL_FILE) as tmp:
        torch.save(payload, tmp)
    write_numpy_checkpoint(folder, fmt, config, meta, {k: v.numpy() for k, v in weights.items()})
    atomic_write(folder / CARD_FILE, card)


def write_numpy_checkpoint(folder: Path, fmt: str, config: dict[str, Any], meta: dict[str, Any], weights: dict) -> None:
    """Write ``folder/model.npz``: ``weights`` (name -> array) as float32 arrays under ``w/NAME``,
    and the format tag, config and metadata as JSON strings."""
    import json

    import numpy as np

    from cosolve.io.files import atomic_path

    arrays = {f"w/{k}": np.asarray(v, dtype=np.float32) for k, v in weights.items()}
    header = {"format": fmt, "config": config, "meta": meta}
    with atomic_path(folder / NUMPY_FILE) as tmp, open(tmp, "wb") as f:
        np.savez(f, header=np.array(json.dumps(header, default=str)), **arrays)


def read_numpy_checkpoint(path: str | Path, fmt: str, what: str) -> tuple[Path, dict[str, Any], dict[str, Any]] | None:
    """``(file, header, weights)`` of the ``model.npz`` of the checkpoint ``path`` (the
    ``model.pt``, or its folder), None when there is none (then read the ``model.pt``).
    ``header`` holds ``format``, ``config`` and ``meta``. Raises :class:`InputError` when the file
    is unreadable or of another format."""
    import json

    import numpy as np

    path = Path(path)
    folder = path if path.is_dir() else path.parent
    file = folder / NUMPY_FILE
    if not file.is_file():
        return None
    try:
        with np.load(file, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            weights = {k[2:]: data[k] for k in data.files if k.startswith("w/")}
    except Exception as e:
        raise InputError(f"{file}: not a readable {what} checkpoint ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    if not isinstance(header, dict) or header.get("format") != fmt:
        raise InputError(f"{file}: not a {what} checkpoint (expected format {fmt})")
    return file, header, weights


def load_numpy_policy(
    path: str | Path, config_type: Any, build: Any, required: Any, from_torch: Any
) -> tuple[Any, Any, dict[str, Any]]:
    """``(policy, config, meta)`` of the checkpoint ``path`` from its ``model.npz``, without torch.

    ``config_type``: the config class (its ``checkpoint_format``, ``what``, ``from_dict`` and
    ``hidden``); ``build(weights, config)`` makes the numpy policy; ``required(config)`` gives the
    weight names it needs and the one whose rows must number ``config.hidden``. A checkpoint
    written before there were ``model.npz`` files is read by ``from_torch(path)`` (through torch)."""
    found = read_numpy_checkpoint(path, config_type.checkpoint_format, config_type.what)
    if found is None:
        return from_torch(path)
    file, header, weights = found
    config = config_type.from_dict(header["config"])
    names, sized = required(config)
    if not set(names) <= set(weights) or weights[sized].shape[0] != config.hidden:
        raise InputError(f"{file}: weights do not match the stored configuration")
    return build(weights, config), config, header.get("meta", {})


def read_checkpoint(path: str | Path, fmt: str, what: str) -> tuple[Path, dict[str, Any]]:
    """The file and payload of the checkpoint ``path`` (a file, or a folder holding ``model.pt``) of
    format ``fmt``; ``what`` names the kind in errors (e.g. "CAM"). Raises :class:`InputError`."""
    import torch

    path = Path(path)
    if path.is_dir():
        path = path / MODEL_FILE
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


def load_policy(path: str | Path, config_type: type) -> tuple[Any, Any, dict[str, Any]]:
    """Policy (eval mode), config and meta of a checkpoint of ``config_type`` (an
    :class:`~cosolve.training.hyperparameters.AdjointConfig`): a file, or a folder holding ``model.pt``."""
    path, payload = read_checkpoint(path, config_type.checkpoint_format, config_type.what)
    config = config_type.from_dict(payload["config"])
    policy = config.policy()
    load_weights(policy, payload, path)
    return policy, config, payload.get("meta", {})


def save_state(folder: Path, state: dict[str, Any]) -> None:
    """Write the resumable training state ``folder/training.pt`` atomically."""
    import torch

    from cosolve.io.files import atomic_path

    folder.mkdir(parents=True, exist_ok=True)
    with atomic_path(folder / STATE_FILE) as tmp:
        torch.save(state, tmp)


def load_state(folder: Path) -> dict[str, Any]:
    """The training state saved in ``folder`` (UsageError when there is none)."""
    import torch

    path = folder / STATE_FILE
    if not path.is_file():
        raise UsageError(f"{folder}: no training state ({STATE_FILE}) to resume from; start without resume")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise InputError(f"{path}: not a readable training state ({type(e).__name__})") from None


def _untrained_line(meta: dict[str, Any]) -> str:
    """The card's line on the untrained model's validation (empty for checkpoints that lack it)."""
    if meta.get("untrained_objective") is None:
        return ""
    kept = ": no validation beat it, so these are the untrained weights" if meta.get("iterations") == 0 else ""
    return f"- untrained model's validation (iteration 0): {meta['untrained_objective']:.4f}{kept}\n"


def model_card(title: str, about: str, config: dict[str, Any], meta: dict[str, Any], parameters: int) -> str:
    """The model card: ``title``, a paragraph ``about`` the model and how to use it, then the
    validation, training and data facts of ``meta`` and the hyperparameters ``config``."""
    nan = float("nan")
    settings = "\n".join(f"| {k} | {v} |" for k, v in config.items())
    untrained = _untrained_line(meta)
    return f"""# {title}

{about}

- parameters: {parameters}
- trained on: {meta.get("data", "(unknown)")}
- validation ({meta.get("validation", "")}): **{meta.get("validation_objective", nan):.4f}**,
  {meta.get("energy_label", "mean terminal energy")} {meta.get("validation_energy", nan):.4f}
{untrained}- training: {meta.get("trained_seconds")} s wall-clock until this checkpoint, {meta.get("iterations")} iterations,
  {meta.get("processes", 1)} process(es) x {meta.get("threads")} thread(s) on {meta.get("device", "cpu")},
  seed {meta.get("seed")}, torch {meta.get("torch")}
- command: `{meta.get("command") or "(Python API)"}`

## Hyperparameters

| setting | value |
|---|---|
{settings}
"""
