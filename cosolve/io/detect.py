"""Open an instance file, tell its format, and dispatch to the format's reader.

:func:`read` is the one entry point (``cosolve.io.read``). The helpers :func:`check_file`,
:func:`read_bytes`, :func:`read_text` and :func:`instance_name` are shared by the readers.
Readers are imported lazily, so ``import cosolve.io`` does not load HiGHS or SCIP.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from pathlib import Path

from cosolve.errors import InputError, UsageError
from cosolve.problems.base import Problem

FORMATS: dict[str, str] = {
    "orlib": "set cover, row-wise OR-Library text: m n, n costs, per row k and k column indices",
    "rail": "set cover, column-wise text: m n, per column cost, k and k row indices",
    "mps": "MIP in fixed or free MPS, optionally gzipped (read by HiGHS); set cover when it is one",
    "lp": "MIP in CPLEX LP format (read by HiGHS); set cover when it is one",
    "dimacs": "graph, DIMACS: 'p edge N M' and 'e u v [w]' lines (needs --problem)",
    "edgelist": "graph, 'u v [w]' per line, '#'/'%' comments (needs --problem)",
    "tsplib": "TSP, TSPLIB with EDGE_WEIGHT_TYPE EUC_2D",
    "jigsaw": "jigsaw puzzle, NumPy .npz with arrays pieces (p, s, s[, c]), grid (rows, cols) and optionally truth",
}

GRAPH_KINDS = ("mis", "maxcut", "maxclique", "mds")
SETCOVER_FORMATS = ("orlib", "rail")
GRAPH_FORMATS = ("dimacs", "edgelist")

_EXTENSIONS = {
    ".mps": "mps",
    ".lp": "lp",
    ".tsp": "tsplib",
    ".npz": "jigsaw",
    ".col": "dimacs",
    ".clq": "dimacs",
    ".dimacs": "dimacs",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
}
_SNIFF_BYTES = 1 << 16
_TSPLIB_HEADER = re.compile(r"^[A-Z][A-Z_0-9]*\s*:")
_TSPLIB_SECTIONS = ("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "TOUR_SECTION", "DISPLAY_DATA_SECTION")
_MPS_FIRST = ("NAME", "ROWS", "OBJSENSE", "OBJSENS", "OBJNAME")
_LP_FIRST = ("minimize", "maximize", "minimise", "maximise", "minimum", "maximum", "min", "max")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


def check_file(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`Path` if it names a readable regular file, else :class:`InputError`."""
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError("no such file", where=str(path))
    if p.is_dir():
        raise InputError("is a directory, not an instance file", where=str(path))
    return p


def is_gzip(path: Path) -> bool:
    """True if the file starts with the gzip magic bytes."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", where=str(path)) from None


def read_bytes(path: str | os.PathLike, *, limit: int | None = None) -> bytes:
    """The file's bytes, gunzipped if it is gzip data; at most ``limit`` bytes if given."""
    p = check_file(path)
    try:
        if is_gzip(p):
            with gzip.open(p, "rb") as f:
                return f.read() if limit is None else f.read(limit)
        with open(p, "rb") as f:
            return f.read() if limit is None else f.read(limit)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise InputError(f"corrupt gzip data ({e})", where=str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", where=str(path)) from None


def read_text(path: str | os.PathLike) -> str:
    """The file as text (UTF-8; undecodable bytes become U+FFFD and fail later as bad tokens)."""
    return read_bytes(path).decode("utf-8", errors="replace")


def instance_name(path: str | os.PathLike) -> str:
    """The instance name: the file name without ``.gz`` and its last extension (``scp41.txt`` -> ``scp41``)."""
    name = Path(os.fspath(path)).name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def format_from_extension(path: str | os.PathLike) -> str | None:
    """The format implied by the file name (``.mps``, ``.mps.gz``, ``.lp``, ``.tsp``, ...), or None."""
    name = Path(os.fspath(path)).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return _EXTENSIONS.get(Path(name).suffix)


def sniff_format(path: str | os.PathLike, problem: str | None = None) -> str:
    """Guess the format from the first 64 KiB of the file.

    Returns a name from :data:`FORMATS`, or ``"setcover"`` for numeric text whose layout
    (orlib or rail) is only known after reading it all. Numeric text is an edge list if it
    has ``#``/``%`` comment lines, or if a graph ``problem`` is given and its lines are all
    ``u v [w]``; else set cover.
    """
    raw_head = read_bytes(path, limit=_SNIFF_BYTES)
    if raw_head.startswith(b"PK\x03\x04"):  # a zip archive: the only one cosolve reads is a jigsaw .npz
        return "jigsaw"
    lines = raw_head.decode("utf-8", errors="replace").splitlines()
    if len(raw_head) == _SNIFF_BYTES:
        lines = lines[:-1]  # the last line may be cut
    comments = False
    for at, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        token = line.split()[0]
        if token in ("c", "p"):
            return "dimacs"
        if _TSPLIB_HEADER.match(line) or line.split(":")[0].strip() in _TSPLIB_SECTIONS:
            return "tsplib"
        if line.startswith("*") or (raw[:1].isalpha() and token.upper() in _MPS_FIRST):
            return "mps"
        if line.startswith("\\") or token.lower().rstrip(":") in _LP_FIRST:
            return "lp"
        if line[0] in "#%":
            comments = True
            continue
        if _NUMBER.match(token):
            if comments or (problem in GRAPH_KINDS and _pairs(lines[at : at + 200])):
                return "edgelist"
            return "setcover"
        break
    raise InputError(
        f"cannot tell the format of this file; pass --format ({', '.join(FORMATS)})",
        where=str(path),
    )


def _pairs(lines: list[str]) -> bool:
    """True if every non-blank line has 2 or 3 fields (``u v [w]``), as in an edge list."""
    return all(len(line.split()) in (2, 3) for line in lines if line.strip())


def _check_problem_name(problem: str | None) -> None:
    from cosolve.problems import PROBLEM_KINDS

    if problem is not None and problem not in PROBLEM_KINDS:
        raise UsageError(f"unknown problem {problem!r}; valid problems: {', '.join(PROBLEM_KINDS)}")


def _mismatch(path: str | os.PathLike, holds: str, problem: str) -> InputError:
    return InputError(f"the file holds a {holds} instance, not {problem}", where=str(path))


def read(path: str | os.PathLike, *, format: str | None = None, problem: str | None = None) -> Problem:
    """Read an instance file into a :class:`~cosolve.problems.base.Problem`.

    ``format``: one of :data:`FORMATS` (default: from the extension, else from the content).
    ``problem``: the problem kind the caller wants; graph files need one of ``mis``,
    ``maxcut``, ``maxclique``, ``mds``; for other files it must match what the file holds
    (``mip`` keeps an MPS/LP set cover a general MIP). Raises :class:`InputError` for a
    missing, unreadable or malformed file (naming ``path:line`` where there is one) and
    :class:`UsageError` for an unknown format or problem name.
    """
    _check_problem_name(problem)
    if format is not None:
        fmt = str(format).lower()
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {format!r}; valid formats: {', '.join(FORMATS)}")
    else:
        fmt = None
    p = check_file(path)
    if fmt is None:
        fmt = format_from_extension(p) or sniff_format(p, problem)

    if fmt in GRAPH_FORMATS:
        if problem not in GRAPH_KINDS:
            what = "no problem was given" if problem is None else f"{problem} is not a graph problem"
            raise InputError(f"a graph file ({fmt}) but {what}; pass --problem mis|maxcut|maxclique|mds", where=str(path))
        from cosolve.io.graphfiles import read_dimacs, read_edgelist

        reader = read_dimacs if fmt == "dimacs" else read_edgelist
        return reader(path, problem=problem)

    if fmt in ("mps", "lp"):
        from cosolve.io.mps import read_mps

        if problem not in (None, "mip", "setcover"):
            raise _mismatch(path, "MIP", problem)
        return read_mps(path, format=fmt, problem=problem)

    if fmt == "tsplib":
        if problem not in (None, "tsp"):
            raise _mismatch(path, "tsp", problem)
        from cosolve.io.tsplib import read_tsplib

        return read_tsplib(path)

    if fmt == "jigsaw":
        if problem not in (None, "jigsaw"):
            raise _mismatch(path, "jigsaw", problem)
        from cosolve.io.jigsawfile import read_jigsaw

        return read_jigsaw(path)

    # orlib, rail, or numeric text of either layout
    if problem not in (None, "setcover"):
        raise _mismatch(path, "set cover", problem)
    from cosolve.io.orlib import read_setcover

    return read_setcover(path, layout=None if fmt == "setcover" else fmt)
