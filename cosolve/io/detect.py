"""Open an instance file, tell its format, and dispatch to the format's reader.

:func:`read` is the one entry point (``cosolve.io.read``), and :func:`load_instance` takes a
Problem or a path. The file helpers the readers share are in :mod:`cosolve.io.files`.
Readers are imported lazily, so ``import cosolve.io`` does not load HiGHS or SCIP.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cosolve.core.problem import Problem
from cosolve.errors import InputError, UnknownFormatError, UsageError
from cosolve.io.files import COMPRESSED_SUFFIXES, check_file, read_bytes, read_text
from cosolve.io.formats import ALL_FORMATS, EXTENSIONS, FORMATS, Format

_SNIFF_BYTES = 1 << 16
_TSPLIB_HEADER = re.compile(r"^[A-Z][A-Z_0-9]*\s*:")
_TSPLIB_SECTIONS = ("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "TOUR_SECTION", "DISPLAY_DATA_SECTION")
_MPS_FIRST = ("NAME", "ROWS", "OBJSENSE", "OBJSENS", "OBJNAME")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_LP_FIRST = ("minimize", "maximize", "minimise", "maximise", "minimum", "maximum", "min", "max")
_NOT_INSTANCES = (".csv", ".md", ".tour", ".json", ".toml", ".sqlite")


def instance_files(folder: str | os.PathLike) -> list[Path]:
    """The instance files of ``folder``, sorted: every regular file but hidden ones, READMEs and
    metadata (CSV, Markdown, JSON, TOML, SQLite, TSPLIB tours)."""
    folder = Path(os.fspath(folder))
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith((".", "README")) and not p.name.lower().endswith(_NOT_INSTANCES)
    )


def format_from_extension(path: str | os.PathLike) -> str | None:
    """The format implied by the file name (``.mps``, ``.mps.gz``, ``.lp.xz``, ``.tsp``, ...), or None."""
    name = Path(os.fspath(path)).name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return EXTENSIONS.get(Path(name).suffix)


def sniff_format(path: str | os.PathLike, problem: str | None = None) -> str:
    """Guess the format from the first 64 KiB of the file.

    Returns a name from :data:`~cosolve.io.formats.FORMATS`, or ``"numbers"`` for numeric text
    whose layout (orlib or rail) is only known after reading it all. Numeric text is rudy when
    its first line is ``N M`` and exactly M lines ``u v w`` with 1 <= u, v <= N follow (a header
    that could also be an edge is refused, see :func:`_rudy_shape`); an edge list if it has
    ``#``/``%`` comment lines, or if ``problem`` is a kind that edge lists hold and its lines are
    all ``u v [w]``; else orlib or rail.
    """
    raw_head = read_bytes(path, limit=_SNIFF_BYTES)
    for fmt in ALL_FORMATS.values():
        if fmt.magic and raw_head.startswith(fmt.magic):
            return fmt.name
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
            graph = problem in holders("rudy")
            complete = len(raw_head) < _SNIFF_BYTES
            if not comments and (graph or problem is None) and _rudy_shape(path, lines, at, complete=complete, refuse=graph):
                return "rudy"
            if comments or (problem in holders("edgelist") and _pairs(lines[at : at + 200])):
                return "edgelist"
            return "numbers"
        break
    raise UnknownFormatError(
        f"cannot tell the format of this file; pass --format ({', '.join(FORMATS)}; format= in Python)",
        where=str(path),
    )


def _rudy_shape(path: str | os.PathLike, lines: list[str], at: int, *, complete: bool, refuse: bool) -> bool:
    """Whether the numeric text whose first non-blank line is ``lines[at]`` is a rudy graph: that
    line is ``N M`` and exactly M lines of three fields ``u v w`` with 1 <= u, v <= N follow.
    ``complete``: ``lines`` hold the whole file (else it is read once the start looks right).

    With ``refuse`` (a graph was asked for), raises :class:`InputError` when the first line could
    be a header or an edge: ``N M`` followed by three-field lines that match it in number or in
    node range but not both (a weighted edge list whose first edge has no weight, or a damaged
    rudy file), or by exactly M two-field lines within 1..N (an unweighted edge list, or a rudy
    file without weights)."""
    from cosolve.io.graphfiles import rudy_header

    header = rudy_header(lines[at])
    if header is None:
        return False
    for check_all in (False, True):
        if check_all:
            if complete:
                break
            lines, at = read_text(path).splitlines(), 0
            while not lines[at].strip():
                at += 1
        body = [line.split() for line in lines[at + 1 :] if line.strip()]
        widths = {len(fields) for fields in body}
        if not body or not widths <= {2, 3} or len(widths) > 1:
            return False
        if not all(f[0].isdigit() and f[1].isdigit() and _NUMBER.match(f[-1]) for f in body):
            return False
    n, m = header
    inside = all(1 <= int(f[0]) <= n and 1 <= int(f[1]) <= n for f in body)
    if widths == {3} and len(body) == m and inside:
        return True
    if refuse and ((widths == {3} and (len(body) == m or inside)) or (len(body) == m and inside)):
        raise InputError(
            f"the first line ({n} {m}) may be a rudy header (N nodes, M edges) or an edge; "
            "pass --format rudy or --format edgelist (format= in Python)",
            where=f"{path}:{at + 1}",
        )
    return False


def _pairs(lines: list[str]) -> bool:
    """True if every non-blank line has 2 or 3 fields (``u v [w]``), as in an edge list."""
    return all(len(line.split()) in (2, 3) for line in lines if line.strip())


def holders(fmt: str) -> tuple[str, ...]:
    """The problem kinds a file of format ``fmt`` may hold."""
    from cosolve.problems.registry import kinds_in_format

    either = ALL_FORMATS[fmt].either
    if either:
        return tuple(dict.fromkeys(kind for name in either for kind in kinds_in_format(name)))
    return kinds_in_format(fmt)


def choose_kind(fmt: Format) -> tuple[str, ...]:
    """The problem kinds a reader of ``fmt`` cannot tell apart, so that the caller must name one
    (graph files: mis, maxcut, maxclique, mds); empty when the format holds one kind or its
    reader works out which."""
    kinds = holders(fmt.name)
    return kinds if not fmt.tells_kind and len(kinds) > 1 else ()


def detect_format(path: str | os.PathLike, *, format: str | None = None, problem: str | None = None) -> Format:
    """The format of ``path``: ``format`` when given (a name from
    :data:`~cosolve.io.formats.FORMATS`), else from the file name, else from the content."""
    if format is not None:
        fmt = str(format).lower()
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {format!r}; valid formats: {', '.join(FORMATS)}")
        _not_empty(check_file(path))
        return ALL_FORMATS[fmt]
    p = _not_empty(check_file(path))
    return ALL_FORMATS[format_from_extension(p) or sniff_format(p, problem)]


def _not_empty(p: Path) -> Path:
    """``p``, or :class:`InputError` if it has no bytes (no format's instance is empty)."""
    if p.stat().st_size == 0:
        raise InputError("empty file", where=str(p))
    return p


def read(path: str | os.PathLike, *, format: str | None = None, problem: str | None = None) -> Problem:
    """Read an instance file into a :class:`~cosolve.core.problem.Problem`.

    ``format``: a name from :data:`~cosolve.io.formats.FORMATS` (default: from the extension,
    else from the content). ``problem``: the problem kind the caller wants; it must be one the
    format holds, and is needed when several kinds share a format the reader cannot tell apart
    (graph files: mis, maxcut, maxclique or mds); ``mip`` keeps an MPS/LP set cover a general
    MIP. Raises :class:`InputError` for a missing, unreadable or malformed file (naming
    ``path:line`` where there is one) and :class:`UsageError` for an unknown format or problem name.
    """
    if problem is not None:
        from cosolve.problems.registry import get_kind

        get_kind(problem)  # an unknown name lists the valid ones
    fmt = detect_format(path, format=format, problem=problem)
    kinds = holders(fmt.name)
    choose = f"; pass --problem {'|'.join(kinds)} (problem= in Python)" if choose_kind(fmt) else ""
    shown = " or ".join(fmt.either) if fmt.either else fmt.name  # the sniffer's own formats by the names users know
    if problem is not None and problem not in kinds:
        from cosolve.problems.registry import get_kind

        held = " or ".join(dict.fromkeys(get_kind(k).title for k in kinds)) or "no known"
        raise InputError(f"the file ({shown}) holds {held} instances, not {problem}{choose}", where=str(path))
    if problem is None and choose:
        other = " (or --format rail|orlib if it is a set cover)" if fmt.name == "rudy" else ""
        raise InputError(f"a {shown} file may hold any of {', '.join(kinds)}{choose}{other}", where=str(path))
    return fmt.read(path, problem if problem is not None or fmt.tells_kind else kinds[0])


def load_instance(instance: Problem | str | os.PathLike, *, problem: str | None = None, format: str | None = None) -> Problem:
    """A :class:`Problem` as given (``problem``, when given, must be its kind), or read from a
    path with :func:`read`."""
    if isinstance(instance, Problem):
        if problem is not None and problem != instance.kind:
            raise UsageError(f"instance is a {instance.kind} problem, not {problem}")
        return instance
    if not isinstance(instance, str | os.PathLike):
        raise UsageError(f"instance must be a Problem or the path of an instance file, got {type(instance).__name__}")
    return read(instance, format=format, problem=problem)
