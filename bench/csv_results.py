"""Shared by the benchmark scripts that train or solve in-process and keep a CSV of their runs."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path


def git_commit() -> str:
    """The short commit of the working tree, or "unknown"."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def read_rows(path: Path) -> list[dict]:
    """The rows of the CSV at ``path`` as dicts of strings; none if the file does not exist yet."""
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def append_row(path: Path, fields: list[str], row: dict) -> None:
    """Append ``row`` to the CSV at ``path``, writing the header first if the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fields)
        if new:
            writer.writeheader()
        writer.writerow(row)
