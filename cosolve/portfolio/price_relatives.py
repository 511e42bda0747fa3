"""Price-relative matrices: reading them from CSV and finding the bundled data sets.

A file holds one trading day per line, one asset per column, comma-separated:
``x[t, i] = p[t, i] / p[t-1, i]`` (close to close, dimensionless, positive). An optional first
line of names (``s0,s1,..``) is skipped. Bundled data sets (``instances/olps/NAME.csv`` of a
checkout: ``djia``, ``nyse_o``, ``sp500``, ``tse``) can be named by ``NAME`` alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from cosolve.errors import InputError
from cosolve.io.bundled import resolve_named

#: where the bundled OLPS data sets live in a checkout (absent from an installed wheel)
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "instances" / "olps"


#: a file whose median value is above this (or below its inverse) holds prices, not relatives
PRICE_LIKE = 3.0
#: the largest daily price relative (and the inverse of the smallest) taken as data: a thousandfold
#: move in a day is a pasted price or a typo (the bundled markets stay within 0.37 and 1.94), and
#: relatives near the float range overflow the wealth
MAX_RELATIVE = 1e3


def implausible_relatives(x: np.ndarray) -> np.ndarray:
    """Mask (x's shape) of the price relatives beyond a factor of ``MAX_RELATIVE`` either way."""
    return (x > MAX_RELATIVE) | (x < 1.0 / MAX_RELATIVE)


def bundled_datasets() -> dict[str, Path]:
    """The bundled data sets by short name (``djia`` -> ``instances/olps/djia.csv``), sorted."""
    if not BUNDLED_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(BUNDLED_DIR.glob("*.csv"))}


def resolve_data(name: str | os.PathLike) -> Path:
    """A path to an existing file, or the bundled data set called ``name``; else InputError."""
    return resolve_named(name, bundled_datasets(), "price-relative")


def read_relatives(path: str | os.PathLike) -> np.ndarray:
    """The (T, n) float64 matrix of price relatives in the CSV file ``path`` (or the bundled data
    set of that name, e.g. ``"djia"``).

    Raises InputError naming the file and line (and column, 1-based) for: a missing or empty
    file, a non-numeric cell, rows of different lengths, a relative that is not a positive finite
    number, fewer than 2 days, and a median value above 3 or below 1/3 (prices, not relatives).
    """
    path = resolve_data(path)
    if path.is_dir():
        raise InputError("is a directory, not a CSV file", where=str(path))
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", where=str(path)) from None
    lines = [(k + 1, line) for k, line in enumerate(text.splitlines()) if line.strip()]
    if not lines:
        raise InputError("empty file (expected one line of price relatives per day)", where=str(path))
    first_no, first = lines[0]
    cells = [c.strip() for c in first.split(",")]
    if not _numeric(cells[0]):
        if any(not c for c in cells):
            raise InputError(f"header has an empty name in column {cells.index('') + 1}", where=f"{path}:{first_no}")
        lines = lines[1:]
        width = len(cells)
    else:
        width = len(cells)
    rows = []
    for line_no, line in lines:
        where = f"{path}:{line_no}"
        cells = line.split(",")
        if len(cells) != width:
            raise InputError(f"{len(cells)} columns where the first line has {width}", where=where)
        try:
            row = np.array(cells, dtype=np.float64)
        except ValueError:
            col = next(k for k, c in enumerate(cells) if not _numeric(c.strip()))
            raise InputError(f"column {col + 1}: {cells[col].strip()!r} is not a number", where=where) from None
        bad = ~(np.isfinite(row) & (row > 0))
        if bad.any():
            col = int(np.argmax(bad))
            raise InputError(
                f"column {col + 1}: price relative {cells[col].strip()} is not a positive finite number", where=where
            )
        wild = implausible_relatives(row)
        if wild.any():
            col = int(np.argmax(wild))
            raise InputError(
                f"column {col + 1}: price relative {cells[col].strip()} is a change by more than a factor of "
                f"{MAX_RELATIVE:g} in a day (a price, or a typo?)",
                where=where,
            )
        rows.append(row)
    if len(rows) < 2:
        raise InputError(f"{len(rows)} day(s) of price relatives; a backtest needs at least 2", where=str(path))
    x = np.vstack(rows)
    typical = float(np.median(x))
    if not 1.0 / PRICE_LIKE < typical < PRICE_LIKE:
        raise InputError(
            f"values look like prices, not price relatives (median {typical:.4g}; a relative p[t] / p[t-1] is near 1)",
            where=str(path),
        )
    return x


def _numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return bool(cell)
