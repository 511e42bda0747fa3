"""TSPLIB files: symmetric ``.tsp`` instances and ``.tour`` files.

An instance is ``KEY : value`` header lines (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE,
EDGE_WEIGHT_FORMAT, ...), then data sections, then an optional ``EOF``:

- ``NODE_COORD_SECTION``: DIMENSION lines ``id x y`` (ids 1..DIMENSION, any order), for
  EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT and GEO;
- ``EDGE_WEIGHT_SECTION``: for EXPLICIT, the matrix's entries as whitespace-separated integers
  (any line breaks) in the order EDGE_WEIGHT_FORMAT names: FULL_MATRIX, UPPER_ROW, LOWER_ROW,
  UPPER_DIAG_ROW, LOWER_DIAG_ROW (and the column-wise UPPER_COL, LOWER_COL, UPPER_DIAG_COL,
  LOWER_DIAG_COL, which for a symmetric matrix list the same entries as LOWER_ROW, UPPER_ROW,
  LOWER_DIAG_ROW, UPPER_DIAG_ROW);
- ``DISPLAY_DATA_SECTION`` (optional): ``id x y`` lines placing the cities of an EXPLICIT
  instance in pictures.

A tour file has ``TOUR_SECTION`` followed by the 1-based cities, ended by ``-1``.
"""

from __future__ import annotations

import os

import numpy as np

from cosolve.errors import InputError
from cosolve.io.files import atomic_write, check_declared, instance_name, parses_as_float, read_text
from cosolve.problems.tsp import EDGE_WEIGHT_TYPES, TSP, invalid_weights

_SECTIONS = ("NODE_COORD_SECTION", "TOUR_SECTION", "EDGE_WEIGHT_SECTION", "DISPLAY_DATA_SECTION",
             "FIXED_EDGES_SECTION", "DEMAND_SECTION", "DEPOT_SECTION", "EDGE_DATA_SECTION")  # fmt: skip
_READ_SECTIONS = ("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION", "DISPLAY_DATA_SECTION")
#: EDGE_WEIGHT_FORMAT -> the row-wise layout listing the same entries of a symmetric matrix.
_LAYOUTS = {
    "FULL_MATRIX": "FULL_MATRIX", "UPPER_ROW": "UPPER_ROW", "LOWER_ROW": "LOWER_ROW",
    "UPPER_DIAG_ROW": "UPPER_DIAG_ROW", "LOWER_DIAG_ROW": "LOWER_DIAG_ROW",
    "UPPER_COL": "LOWER_ROW", "LOWER_COL": "UPPER_ROW", "UPPER_DIAG_COL": "LOWER_DIAG_ROW", "LOWER_DIAG_COL": "UPPER_DIAG_ROW",
}  # fmt: skip
#: Header values cosolve reads as given (other values of these keys are refused).
_ACCEPTED = {
    "TYPE": ("TSP",),
    "EDGE_WEIGHT_TYPE": EDGE_WEIGHT_TYPES,
    "EDGE_WEIGHT_FORMAT": (*_LAYOUTS, "FUNCTION"),
    "NODE_COORD_TYPE": ("TWOD_COORDS", "NO_COORDS"),
    "DISPLAY_DATA_TYPE": ("COORD_DISPLAY", "TWOD_DISPLAY", "NO_DISPLAY"),
}


def _split_header(line: str) -> tuple[str, str] | None:
    """(KEY, value) of a ``KEY : value`` line, (SECTION, "") of a section line, None otherwise."""
    key, colon, value = line.partition(":")
    key = key.strip().upper()
    if colon:
        return key, value.strip()
    if key in _SECTIONS or key == "EOF":
        return key, ""
    return None


def _dimension(value: str, at: str, text_length: int) -> int:
    """DIMENSION's value: a positive integer no larger than the file can list (2 characters a city)."""
    try:
        n = int(value)
    except ValueError:
        raise InputError(f"DIMENSION must be an integer, got {value!r}", where=at) from None
    if n < 1:
        raise InputError(f"DIMENSION must be positive, got {n}", where=at)
    check_declared(n, text_length // 2 + 1, "cities", at)
    return n


def _entries(layout: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the matrix entries a row-wise ``layout`` lists, in file order."""
    if layout == "FULL_MATRIX":
        return np.divmod(np.arange(n * n, dtype=np.int64), n)
    offset = 0 if "DIAG" in layout else 1
    return np.triu_indices(n, offset) if layout.startswith("UPPER") else np.tril_indices(n, -offset)


class _Lines:
    """The file's lines with a cursor; ``at(no)`` names line ``no`` (1-based) as ``path:no``."""

    def __init__(self, where: str, text: str) -> None:
        self.where, self.lines, self.no = where, text.splitlines(), 0

    def at(self, no: int) -> str:
        return f"{self.where}:{no}"

    def next_data_line(self) -> str | None:
        """The next non-blank line (the cursor moves past it), or None at the end of the file."""
        while self.no < len(self.lines):
            line = self.lines[self.no].strip()
            self.no += 1
            if line:
                return line
        return None


def _coordinates(src: _Lines, n: int, section: str) -> np.ndarray:
    """The n ``id x y`` lines of a coordinate section, (n, 2) float64 by id."""
    coords, seen = np.zeros((n, 2)), np.zeros(n, dtype=bool)
    for _ in range(n):
        line = src.next_data_line()
        if line is None or _split_header(line) is not None:
            last = src.no if line is not None else len(src.lines)  # the line that ended the section, else the last
            raise InputError(f"truncated: {section} has {int(seen.sum())} of {n} cities", where=src.at(last))
        at = src.at(src.no)
        fields = line.split()
        if len(fields) != 3:
            raise InputError(f"expected 'id x y', got {line[:40]!r}", where=at)
        try:
            i, x, y = int(fields[0]), float(fields[1]), float(fields[2])
        except ValueError:
            raise InputError(f"expected 'id x y' with an integer id and numeric x, y, got {line[:40]!r}", where=at) from None
        if not 1 <= i <= n:
            raise InputError(f"city id {i} out of range 1..{n}", where=at)
        if seen[i - 1]:
            raise InputError(f"city {i} listed twice", where=at)
        if not (np.isfinite(x) and np.isfinite(y)):
            raise InputError("coordinates must be finite", where=at)
        coords[i - 1] = (x, y)
        seen[i - 1] = True
    return coords


def _weights(src: _Lines, n: int, fmt: str, text_length: int) -> np.ndarray:
    """The EDGE_WEIGHT_SECTION of an n-city instance in format ``fmt``: the symmetric (n, n) matrix."""
    count = n * n if fmt == "FULL_MATRIX" else n * (n - 1) // 2 + (n if "DIAG" in fmt else 0)
    check_declared(count, text_length // 2 + 1, f"weights ({fmt}, {n} cities)", src.at(src.no))
    rows, cols = _entries(_LAYOUTS[fmt], n)
    tokens: list[str] = []
    line_of: list[int] = []
    while len(tokens) < count:
        line = src.next_data_line()
        if line is None or _split_header(line) is not None:
            last = src.no if line is not None else len(src.lines)
            raise InputError(f"truncated: EDGE_WEIGHT_SECTION has {len(tokens)} of {count} weights ({fmt})", where=src.at(last))
        fields = line.split()
        if len(tokens) + len(fields) > count:
            raise InputError(f"EDGE_WEIGHT_SECTION lists more than the {count} weights of {fmt}", where=src.at(src.no))
        tokens.extend(fields)
        line_of.extend([src.no] * len(fields))
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        k = next(k for k, t in enumerate(tokens) if not parses_as_float(t))
        raise InputError(f"expected a weight, got {tokens[k][:40]!r}", where=src.at(line_of[k])) from None
    bad = invalid_weights(values)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"weight {tokens[k][:40]} is not a non-negative integer below 2^53", where=src.at(line_of[k]))
    w = np.zeros((n, n))
    w[rows, cols] = values
    if fmt == "FULL_MATRIX":
        asym = np.flatnonzero(values != w[cols, rows])
        if asym.size:  # report the second-listed entry of the first asymmetric pair
            i, j = int(cols[asym[0]]), int(rows[asym[0]])
            k = i * n + j
            raise InputError(
                f"FULL_MATRIX is not symmetric: entry ({i + 1}, {j + 1}) is {values[k]:g} but ({j + 1}, {i + 1}) is "
                f"{w[j, i]:g} (asymmetric TSP is not supported)",
                where=src.at(line_of[k]),
            )
    else:
        w[cols, rows] = values
    return w


#: header keys that fix the instance, so a second, different line would be a guess between the two
_ONCE = ("DIMENSION", "EDGE_WEIGHT_TYPE", "EDGE_WEIGHT_FORMAT", "TYPE")


def read_tsplib(path: str | os.PathLike, *, problem: str | None = None) -> TSP:
    """Read a symmetric TSPLIB instance (EUC_2D, CEIL_2D, ATT, GEO or EXPLICIT) into a :class:`TSP`."""
    where = str(path)
    text = read_text(path)
    src = _Lines(where, text)
    header: dict[str, str] = {}
    header_line: dict[str, int] = {}
    n: int | None = None
    sections: dict[str, np.ndarray] = {}
    while (line := src.next_data_line()) is not None:
        at = src.at(src.no)
        item = _split_header(line)
        if item is None:
            raise InputError(f"expected 'KEY : value' or a section name, got {line[:40]!r}", where=at)
        key, value = item
        if key == "EOF":
            break
        if key not in _SECTIONS:
            if key in header_line and key in _ONCE:
                raise InputError(f"{key} given twice (first on line {header_line[key]})", where=at)
            word = value.split()[0].upper() if value.split() else ""
            if key in _ACCEPTED and word not in _ACCEPTED[key]:
                supported = ", ".join(_ACCEPTED[key])
                raise InputError(f"{key} {value} is not supported (supported: {supported})", where=at)
            header[key], header_line[key] = word if key in _ACCEPTED else value, src.no
            if key == "DIMENSION":
                n = _dimension(value, at, len(text))
            continue
        if key not in _READ_SECTIONS:
            raise InputError(f"section {key} is not supported (only {', '.join(_READ_SECTIONS)})", where=at)
        if key in sections:
            raise InputError(f"{key} given twice", where=at)
        if n is None:
            raise InputError(f"{key} before DIMENSION", where=at)
        if key == "EDGE_WEIGHT_SECTION":
            fmt = header.get("EDGE_WEIGHT_FORMAT")
            if fmt is None or fmt == "FUNCTION":
                raise InputError("EDGE_WEIGHT_SECTION needs an EDGE_WEIGHT_FORMAT before it (e.g. FULL_MATRIX)", where=at)
            sections[key] = _weights(src, n, fmt, len(text))
        else:
            sections[key] = _coordinates(src, n, key)
    if header.get("DISPLAY_DATA_TYPE") == "TWOD_DISPLAY" and "DISPLAY_DATA_SECTION" not in sections:
        raise InputError(
            "DISPLAY_DATA_TYPE TWOD_DISPLAY promises a DISPLAY_DATA_SECTION; the file has none (truncated?)",
            where=src.at(header_line["DISPLAY_DATA_TYPE"]),
        )
    metric = header.get("EDGE_WEIGHT_TYPE")
    if metric is None:
        raise InputError(f"no EDGE_WEIGHT_TYPE (supported: {', '.join(EDGE_WEIGHT_TYPES)})", where=where)
    metric_at = src.at(header_line["EDGE_WEIGHT_TYPE"])
    if metric == "EXPLICIT":
        if "EDGE_WEIGHT_SECTION" not in sections:
            raise InputError("EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_SECTION", where=metric_at)
        coords = sections.get("DISPLAY_DATA_SECTION", sections.get("NODE_COORD_SECTION"))
        weights = sections["EDGE_WEIGHT_SECTION"]
    else:
        if "EDGE_WEIGHT_SECTION" in sections:
            raise InputError(f"EDGE_WEIGHT_SECTION given, but EDGE_WEIGHT_TYPE is {metric}, not EXPLICIT", where=metric_at)
        if "NODE_COORD_SECTION" not in sections:
            raise InputError(f"EDGE_WEIGHT_TYPE {metric} needs a NODE_COORD_SECTION", where=metric_at)
        coords, weights = sections["NODE_COORD_SECTION"], None
    try:
        return TSP(coords, metric=metric, weights=weights, name=instance_name(path))
    except InputError as e:
        raise InputError(str(e), where=where) from None


def read_tour(path: str | os.PathLike, *, check: bool = True) -> np.ndarray:
    """Read a TSPLIB tour file: the tour as an int64 array of 0-based cities (length n).

    With ``check``, checks that the cities are 1..n (n = DIMENSION if given, else the tour's
    length), each once; raises :class:`InputError` at ``path:line`` otherwise. Without, returns the
    cities as listed (a validator judges them).
    """
    where = str(path)
    text = read_text(path)
    lines = text.splitlines()
    n: int | None = None
    tour: list[int] = []
    where_of: list[int] = []
    in_tour = ended = False
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        at = f"{where}:{no}"
        if not in_tour:
            item = _split_header(line)
            if item is None:
                raise InputError(f"expected 'KEY : value' or TOUR_SECTION, got {line[:40]!r}", where=at)
            key, value = item
            if key == "TOUR_SECTION":
                in_tour = True
            elif key == "DIMENSION":
                n = _dimension(value, at, len(text))
            elif key == "TYPE" and value.split()[:1] != ["TOUR"]:
                raise InputError(f"TYPE {value} is not a tour", where=at)
            elif key == "EOF":
                break
            continue
        if line.upper() == "EOF":
            break
        for field in line.split():
            try:
                c = int(field)
            except ValueError:
                raise InputError(f"expected a city number, got {field!r}", where=at) from None
            if c == -1:
                ended = True
                break
            tour.append(c)
            where_of.append(no)
        if ended:
            break
    if not in_tour:
        raise InputError("no TOUR_SECTION", where=where)
    if not check:
        return np.array(tour, dtype=np.int64) - 1
    size = n if n is not None else len(tour)
    seen = np.zeros(size + 1, dtype=bool)
    for c, no in zip(tour, where_of, strict=True):
        if not 1 <= c <= size:
            raise InputError(f"city {c} out of range 1..{size}", where=f"{where}:{no}")
        if seen[c]:
            raise InputError(f"city {c} appears twice", where=f"{where}:{no}")
        seen[c] = True
    if len(tour) != size:
        last = where_of[-1] if where_of else len(lines)
        raise InputError(f"truncated: the tour lists {len(tour)} of {size} cities", where=f"{where}:{last}")
    return np.array(tour, dtype=np.int64) - 1


#: EDGE_WEIGHT_FORMATs :func:`write_tsplib` writes.
WRITTEN_FORMATS = ("FULL_MATRIX", "UPPER_ROW", "LOWER_ROW", "UPPER_DIAG_ROW", "LOWER_DIAG_ROW")


def tsplib_text(tsp: TSP, *, edge_weight_format: str = "FULL_MATRIX") -> str:
    """``tsp`` as TSPLIB text: coordinates with full float precision, or for EXPLICIT the matrix in
    ``edge_weight_format`` (one of :data:`WRITTEN_FORMATS`, one matrix row a line) and any
    coordinates as DISPLAY_DATA_SECTION."""
    if edge_weight_format not in WRITTEN_FORMATS:
        raise ValueError(f"edge_weight_format must be one of {', '.join(WRITTEN_FORMATS)}, got {edge_weight_format!r}")
    lines = [f"NAME : {tsp.name or 'tsp'}", "TYPE : TSP", f"DIMENSION : {tsp.n}", f"EDGE_WEIGHT_TYPE : {tsp.metric}"]
    if tsp.weights is not None:
        lines.append(f"EDGE_WEIGHT_FORMAT : {edge_weight_format}")
        if tsp.coords is not None:
            lines.append("DISPLAY_DATA_TYPE : TWOD_DISPLAY")
        lines.append("EDGE_WEIGHT_SECTION")
        rows, cols = _entries(edge_weight_format, tsp.n)
        values = tsp.weights[rows, cols].astype(np.int64)
        breaks = np.flatnonzero(np.diff(rows)) + 1
        lines.extend(" ".join(map(str, row)) for row in np.split(values, breaks) if row.size)
    section = "NODE_COORD_SECTION" if tsp.weights is None else "DISPLAY_DATA_SECTION"
    if tsp.coords is not None:
        lines.append(section)
        lines.extend(f"{i} {x:.17g} {y:.17g}" for i, (x, y) in enumerate(tsp.coords.tolist(), 1))
    lines.append("EOF")
    return "\n".join(lines) + "\n"


def write_tsplib(tsp: TSP, path: str | os.PathLike, *, edge_weight_format: str = "FULL_MATRIX") -> None:
    """Write ``tsp`` to ``path`` as TSPLIB (:func:`tsplib_text`)."""
    atomic_write(path, tsplib_text(tsp, edge_weight_format=edge_weight_format))
