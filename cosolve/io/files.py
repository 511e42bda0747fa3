"""File helpers every reader and writer of :mod:`cosolve.io` uses: checked opening, transparent
decompression (gzip, bz2, xz), size checks of declared counts, instance names, and atomic writes
(all of a file or nothing)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from cosolve.errors import InputError


def parses_as_float(token: str) -> bool:
    """True if ``float(token)`` accepts ``token`` (including ``nan``, ``inf``, ``1e5``)."""
    try:
        float(token)
    except ValueError:
        return False
    return True


def check_file(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`Path` if it names a readable regular file, else :class:`InputError`."""
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError("no such file", where=str(path))
    if p.is_dir():
        raise InputError("is a directory, not an instance file", where=str(path))
    return p


#: The first bytes of each compressed container cosolve reads, and its name.
COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz"}
#: File name endings of compressed files (stripped before the format's own extension is looked at).
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def compression(path: Path) -> str | None:
    """``"gzip"``, ``"bz2"`` or ``"xz"`` if the file starts with that container's magic bytes, else None."""
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", where=str(path)) from None
    return next((name for magic, name in COMPRESSIONS.items() if head.startswith(magic)), None)


def read_bytes(path: str | os.PathLike, *, limit: int | None = None) -> bytes:
    """The file's bytes, decompressed if it is gzip, bzip2 or xz data; at most ``limit`` bytes if given."""
    p = check_file(path)
    kind = compression(p)
    opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(kind or "", open)
    try:
        with opener(p, "rb") as f:
            return f.read() if limit is None else f.read(limit)
    except (gzip.BadGzipFile, EOFError, zlib.error, lzma.LZMAError) as e:
        raise InputError(f"corrupt {kind} data ({e})", where=str(path)) from None
    except OSError as e:
        if kind is not None and e.strerror is None:  # bz2 reports bad data as a bare OSError
            raise InputError(f"corrupt {kind} data ({e})", where=str(path)) from None
        raise InputError(f"cannot read: {e.strerror}", where=str(path)) from None


def read_text(path: str | os.PathLike) -> str:
    """The file as text (UTF-8; undecodable bytes become U+FFFD and fail later as bad tokens)."""
    return read_bytes(path).decode("utf-8", errors="replace")


def check_declared(count: int, limit: int, what: str, where: str) -> None:
    """Refuse a header that declares more ``what`` (nodes, cities, ...) than the file can hold:
    ``limit`` is worked out by the reader from the file's length, so that a damaged header is a
    one-line error rather than an attempt to allocate terabytes."""
    if count > limit:
        raise InputError(f"the header declares {count} {what}, more than this file can hold (at most {limit})", where=where)


def instance_name(path: str | os.PathLike) -> str:
    """The instance name: the file name without a compression suffix (``.gz``, ``.bz2``, ``.xz``) and
    its last extension (``scp41.txt.xz`` -> ``scp41``)."""
    name = Path(os.fspath(path)).name
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


#: File names in an instance folder that are not instances (metadata kept beside them).


def _default_mode() -> int:
    """0666 less the process umask, the mode ``open(path, "w")`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path in the target's folder; on success it replaces ``path``.

    The temporary name keeps the target's extensions (``.mps``, ``.mps.gz``) because some
    writers pick the format from the name. On any failure the temporary file is removed and
    ``path`` is left as it was.
    """
    target = Path(os.fspath(path))
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write: folder {folder} does not exist", where=str(path))
    suffix = "".join(target.suffixes[-2:]) if target.name.lower().endswith(".gz") else target.suffix
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{suffix}", dir=folder)
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", where=str(path)) from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, _default_mode())  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, target)
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", where=str(path)) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def atomic_write(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` (str as UTF-8) to ``path`` atomically: all of it, or nothing changes."""
    raw = data.encode() if isinstance(data, str) else data
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(raw)
