"""Jigsaw puzzle files: NumPy ``.npz`` archives (no pickled objects).

Arrays:

- ``pieces``: (p, s, s) grey or (p, s, s, c) colour square pieces, ``uint8`` (0..255) or float in
  [0, 1], in shuffled order;
- ``grid``: (2,) integers ``rows, cols`` with ``rows * cols = p``;
- ``truth`` (optional): (p,) integers, the true grid position (row-major) of each piece, kept as
  ``problem.truth`` to score a reassembly against (solvers never see it).

:func:`write_jigsaw` writes one, e.g. for a puzzle cut from a picture::

    from matplotlib.image import imread
    from cosolve.problems.jigsaw import cut
    from cosolve.io.jigsawfile import write_jigsaw
    write_jigsaw(cut(imread("photo.png"), 4, seed=0), "photo-4x4.npz")
"""

from __future__ import annotations

import io
import math
import os
import zipfile
import zlib

import numpy as np

from cosolve.errors import InputError
from cosolve.io.files import atomic_path, check_declared, check_file, instance_name, read_bytes
from cosolve.problems.jigsaw import Jigsaw, unit_pixels

#: Deflate expands at most about 1032-fold; a member declaring more than this many bytes per
#: compressed byte (plus a little) cannot be honest, and is refused before anything is allocated.
_MAX_EXPANSION = 1100
_UNREADABLE = (
    ValueError, OSError, EOFError, zipfile.BadZipFile, io.UnsupportedOperation, zlib.error, NotImplementedError, RuntimeError
)  # fmt: skip


def _check_declared_sizes(archive: zipfile.ZipFile, compressed: int, where: str) -> None:
    """Refuse an archive whose members, or the arrays their ``.npy`` headers describe, declare more
    bytes than ``compressed`` bytes can hold (a damaged or hostile header, not a real array)."""
    limit = _MAX_EXPANSION * compressed + (1 << 20)
    declared = sum(info.file_size for info in archive.infolist())
    check_declared(declared, limit, "bytes of arrays", where)
    for info in archive.infolist():
        if not info.filename.endswith(".npy"):
            continue
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(member)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > info.file_size:
            name = info.filename.removesuffix(".npy")
            raise InputError(f"array {name} declares shape {shape} ({nbytes} bytes), more than the archive holds", where=where)


def _arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    p = check_file(path)
    where = str(path)
    data = read_bytes(p)  # decompressed if the archive was gzipped, bzipped or xz-ed
    magic = data[:6]
    if magic == b"\x93NUMPY":
        raise InputError("a single .npy array, not an .npz archive with pieces and grid", where=where)
    if not magic.startswith(b"PK\x03\x04"):
        raise InputError("not an .npz archive (it does not start as a zip file)", where=where)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            _check_declared_sizes(archive, len(data), where)
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except _UNREADABLE as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"not a readable .npz archive ({reason})", where=where) from None


def _pieces(raw: np.ndarray, where: str) -> np.ndarray:
    """The range of the values is checked by :class:`Jigsaw`."""
    try:
        pieces = unit_pixels(raw)
    except InputError as e:
        raise InputError(str(e).removeprefix("jigsaw: "), where=where) from None
    if raw.size and not np.all(np.isfinite(raw)):
        raise InputError("pieces hold NaN or infinite values", where=where)
    return pieces


def _integers(raw: np.ndarray, name: str, shape: str, where: str) -> np.ndarray:
    if raw.dtype.kind not in "iu":
        raise InputError(f"{name} must be integers {shape}, got {raw.dtype}", where=where)
    return raw.astype(np.int64)


def read_jigsaw(path: str | os.PathLike, *, problem: str | None = None) -> Jigsaw:
    """The :class:`~cosolve.problems.jigsaw.Jigsaw` in the ``.npz`` file at ``path`` (module
    docstring); :class:`InputError` naming the file for anything missing or malformed."""
    where = str(path)
    arrays = _arrays(path)
    missing = [key for key in ("pieces", "grid") if key not in arrays]
    if missing:
        found = ", ".join(sorted(arrays)) or "none"
        raise InputError(
            f"a jigsaw file needs arrays pieces and grid; missing {', '.join(missing)} (found: {found})", where=where
        )
    pieces = _pieces(arrays["pieces"], where)
    grid = _integers(arrays["grid"], "grid", "(rows, cols)", where)
    if grid.shape != (2,):
        raise InputError(f"grid must be two integers (rows, cols), got shape {grid.shape}", where=where)
    truth = arrays.get("truth")
    if truth is not None:
        truth = _integers(truth, "truth", "(p,)", where)
    try:
        return Jigsaw(pieces, (int(grid[0]), int(grid[1])), truth=truth, name=instance_name(path))
    except InputError as e:
        raise InputError(str(e).removeprefix("jigsaw: "), where=where) from None


def write_jigsaw(problem: Jigsaw, path: str | os.PathLike) -> None:
    """Write ``problem`` to ``path`` (``.npz``, atomically: an existing file is replaced whole or
    not at all). Pieces are stored as ``uint8`` when that loses nothing, else as float."""
    pieces = problem.pieces
    as_bytes = np.round(pieces * 255.0)
    stored = as_bytes.astype(np.uint8) if np.allclose(as_bytes / 255.0, pieces, rtol=0.0, atol=1e-12) else pieces
    arrays = {"pieces": stored, "grid": np.asarray(problem.grid, dtype=np.int64)}
    if problem.truth is not None:
        arrays["truth"] = np.asarray(problem.truth, dtype=np.int64)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
