"""Shared by the benchmark scripts that train or solve in-process and keep a CSV of their runs."""

from __future__ import annotations

import csv
import subprocess
import time
from collections.abc import Callable
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


def run_missing(
    path: Path, fields: list[str], todo: list[tuple], run: Callable[..., dict], describe: Callable[[tuple, dict], str]
) -> None:
    """Run ``run(*key)`` for every key of ``todo`` (the runs not yet in the CSV at ``path``), append
    each row as it comes, and print ``[i/n] describe(key, row) (seconds)``."""
    print(f"{len(todo)} runs to do (the others are already in {path})", flush=True)
    for i, key in enumerate(todo, 1):
        started = time.perf_counter()
        row = run(*key)
        append_row(path, fields, row)
        print(f"[{i}/{len(todo)}] {describe(key, row)} ({time.perf_counter() - started:.0f} s)", flush=True)


def group_rows(path: Path, key: Callable[[dict], tuple]) -> dict[tuple, list[dict]]:
    """The CSV rows at ``path`` grouped by ``key(row)``, in sorted key order."""
    groups: dict[tuple, list[dict]] = {}
    for row in read_rows(path):
        groups.setdefault(key(row), []).append(row)
    return dict(sorted(groups.items()))


def write_report(out: Path, lines: list[str]) -> str:
    """Write ``lines`` as the report at ``out`` and return its text."""
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text
