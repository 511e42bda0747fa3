"""TSPLIB files: ``.tsp`` instances (TYPE TSP, EDGE_WEIGHT_TYPE EUC_2D) and ``.tour`` files.

An instance is ``KEY : value`` header lines (NAME, TYPE, COMMENT, DIMENSION,
EDGE_WEIGHT_TYPE, ...), then ``NODE_COORD_SECTION`` with DIMENSION lines ``id x y``
(ids 1..DIMENSION, any order), then an optional ``EOF``. A tour file has ``TOUR_SECTION``
followed by the 1-based cities, ended by ``-1``.
"""

from __future__ import annotations

import os

import numpy as np

from cosolve.errors import InputError
from cosolve.io.detect import check_declared, instance_name, read_text
from cosolve.io.solution import atomic_write
from cosolve.problems.tsp import TSP

_SECTIONS = ("NODE_COORD_SECTION", "TOUR_SECTION", "EDGE_WEIGHT_SECTION", "DISPLAY_DATA_SECTION",
             "FIXED_EDGES_SECTION", "DEMAND_SECTION", "DEPOT_SECTION", "EDGE_DATA_SECTION")  # fmt: skip


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


def read_tsplib(path: str | os.PathLike, *, problem: str | None = None) -> TSP:
    """Read a symmetric EUC_2D TSPLIB instance into a :class:`TSP` (coordinates (n, 2) float)."""
    where = str(path)
    text = read_text(path)
    lines = text.splitlines()
    header: dict[str, str] = {}
    n: int | None = None
    coords: np.ndarray | None = None
    seen: np.ndarray | None = None
    no = 0
    while no < len(lines):
        line = lines[no].strip()
        no += 1
        if not line:
            continue
        at = f"{where}:{no}"
        item = _split_header(line)
        if item is None:
            raise InputError(f"expected 'KEY : value' or a section name, got {line[:40]!r}", where=at)
        key, value = item
        if key == "EOF":
            break
        if key != "NODE_COORD_SECTION":
            if key in _SECTIONS:
                raise InputError(f"section {key} is not supported (only NODE_COORD_SECTION)", where=at)
            header[key] = value
            word = value.split()[0].upper() if value.split() else ""
            if key == "TYPE" and word != "TSP":
                raise InputError(f"TYPE {value} is not supported (only TSP)", where=at)
            if key == "EDGE_WEIGHT_TYPE" and word != "EUC_2D":
                raise InputError(f"EDGE_WEIGHT_TYPE {value} is not supported; only EUC_2D is supported", where=at)
            if key == "DIMENSION":
                n = _dimension(value, at, len(text))
            continue
        if n is None:
            raise InputError("NODE_COORD_SECTION before DIMENSION", where=at)
        coords, seen = np.zeros((n, 2)), np.zeros(n, dtype=bool)
        for _ in range(n):
            while no < len(lines) and not lines[no].strip():
                no += 1
            if no >= len(lines) or lines[no].strip().upper() == "EOF":
                last = no + 1 if no < len(lines) else no  # the EOF line, else the file's last line
                raise InputError(f"truncated: NODE_COORD_SECTION has {int(seen.sum())} of {n} cities", where=f"{where}:{last}")
            fields = lines[no].split()
            no += 1
            at = f"{where}:{no}"
            if len(fields) != 3:
                raise InputError(f"expected 'id x y', got {lines[no - 1].strip()[:40]!r}", where=at)
            try:
                i, x, y = int(fields[0]), float(fields[1]), float(fields[2])
            except ValueError:
                got = lines[no - 1].strip()[:40]
                raise InputError(f"expected 'id x y' with an integer id and numeric x, y, got {got!r}", where=at) from None
            if not 1 <= i <= n:
                raise InputError(f"city id {i} out of range 1..{n}", where=at)
            if seen[i - 1]:
                raise InputError(f"city {i} listed twice", where=at)
            if not (np.isfinite(x) and np.isfinite(y)):
                raise InputError("coordinates must be finite", where=at)
            coords[i - 1] = (x, y)
            seen[i - 1] = True
    if "EDGE_WEIGHT_TYPE" not in header:
        raise InputError("no EDGE_WEIGHT_TYPE (only EUC_2D is supported)", where=where)
    if coords is None:
        raise InputError("no NODE_COORD_SECTION", where=where)
    try:
        return TSP(coords, name=instance_name(path))
    except InputError as e:
        raise InputError(str(e), where=where) from None


def read_tour(path: str | os.PathLike) -> np.ndarray:
    """Read a TSPLIB tour file: the tour as an int64 array of 0-based cities (length n).

    Checks that the cities are 1..n (n = DIMENSION if given, else the tour's length), each
    once; raises :class:`InputError` at ``path:line`` otherwise.
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


def write_tsplib(tsp: TSP, path: str | os.PathLike) -> None:
    """Write ``tsp`` as a TSPLIB EUC_2D file (coordinates with full float precision)."""
    lines = [f"NAME : {tsp.name or 'tsp'}", "TYPE : TSP", f"DIMENSION : {tsp.n}", "EDGE_WEIGHT_TYPE : EUC_2D"]
    lines.append("NODE_COORD_SECTION")
    for i, (x, y) in enumerate(tsp.coords.tolist(), 1):
        lines.append(f"{i} {x:.17g} {y:.17g}")
    lines.append("EOF")
    atomic_write(path, "\n".join(lines) + "\n")
