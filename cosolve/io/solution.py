"""Solution files: writing, reading and checking them against their instance.

A solution file holds ``problem.solution_lines(solution)`` one per line after a ``#`` header:
set cover: the selected columns (1-based); graphs: the selected nodes by label (MaxCut: the
nodes on side 1); TSP: the tour, one city per line (1-based); MIP: ``name value`` per nonzero.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil

import numpy as np

from cosolve.core.problem import Problem
from cosolve.errors import InputError, UsageError
from cosolve.io.files import atomic_path, atomic_write, read_text

#: how the first line of a solution file :func:`write_solution` writes begins
HEADER = "# cosolve solution:"


def write_solution(problem: Problem, solution: np.ndarray, path: str | os.PathLike) -> None:
    """Write ``solution`` of ``problem`` to ``path`` (atomically; an existing file is replaced).

    The first line is a comment ``# cosolve solution: problem=..., instance=..., objective=...``;
    then ``problem.solution_lines(solution)``, one per line. A TSP tour written to a ``.tour``
    file is a TSPLIB tour file instead (``TYPE : TOUR``, ``TOUR_SECTION``, 1-based cities, ``-1``),
    readable by :func:`cosolve.io.tsplib.read_tour` and other TSPLIB tools.
    """
    verdict = problem.evaluate(solution)
    if problem.kind == "tsp" and os.fspath(path).lower().endswith(".tour"):
        lines = [
            f"NAME : {problem.name or 'tour'}",
            f"COMMENT : cosolve tour, length {verdict.objective:.12g}",
            "TYPE : TOUR",
            f"DIMENSION : {len(solution)}",
            "TOUR_SECTION",
            *problem.solution_lines(solution),
            "-1",
            "EOF",
        ]
        atomic_write(path, "\n".join(lines) + "\n")
        return
    header = (
        f"{HEADER} problem={problem.kind}, instance={problem.name or '-'}, "
        f"objective={verdict.objective:.12g}, feasible={str(verdict.feasible).lower()}"
    )
    lines = [header, *problem.solution_lines(solution)]
    atomic_write(path, "\n".join(lines) + "\n")


def _lines(path: str | os.PathLike) -> list[tuple[int, str]]:
    """(line number, stripped text) of the non-blank, non-comment lines of a solution file."""
    return [(i, s) for i, line in enumerate(read_text(path).splitlines(), 1) if (s := line.strip()) and s[0] != "#"]


def _int(text: str, where: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"expected {what}, got {text!r}", where=where) from None


def solution_header(path: str | os.PathLike) -> dict[str, str]:
    """The fields of a solution file's :data:`HEADER` line (``# cosolve solution: problem=KIND,
    instance=NAME, objective=VALUE``, as :func:`write_solution` writes it); empty without one."""
    for line in read_text(path).splitlines():
        text = line.strip()
        if not text:
            continue
        if not text.startswith(HEADER):
            return {}
        return dict(part.strip().partition("=")[::2] for part in text.removeprefix(HEADER).split(","))
    return {}


def _once(seen: dict[int, int], item: int, what: str, where: str, no: int) -> None:
    """Record that ``item`` is on line ``no``; an :class:`InputError` if an earlier line has it."""
    if item in seen:
        raise InputError(f"{what} listed twice (first on line {seen[item]})", where=f"{where}:{no}")
    seen[item] = no


def read_solution(problem: Problem, path: str | os.PathLike) -> np.ndarray:
    """Parse a file written by :func:`write_solution` back into ``problem``'s solution array.

    Set cover -> int8 0/1 vector over columns; graphs -> int8 0/1 vector over nodes (lines are
    node labels); TSP -> int64 tour, the cities as listed, 0-based (lines are 1-based cities, or a
    TSPLIB ``.tour`` file; a closing repeat of the first city is dropped): a repeated, missing or
    out-of-range city makes it an infeasible tour for ``problem.evaluate``, not a bad file;
    MIP -> float64 values (lines ``name value``, unnamed variables 0). Other kinds: one value per line.
    Raises :class:`InputError` naming ``path:line`` for a bad entry (a column, node or variable
    listed twice included).
    """
    from cosolve.problems import MIP, TSP, GraphProblem, SetCover

    where = str(path)
    if isinstance(problem, TSP) and os.fspath(path).lower().endswith(".tour"):
        from cosolve.io.tsplib import read_tour

        return _open_tour(read_tour(path, check=False))
    rows = _lines(path)
    seen: dict[int, int] = {}
    if isinstance(problem, SetCover):
        x = np.zeros(problem.n_cols, dtype=np.int8)
        for no, text in rows:
            j = _int(text, f"{where}:{no}", "a column number")
            if not 1 <= j <= problem.n_cols:
                raise InputError(f"column {j} out of range 1..{problem.n_cols}", where=f"{where}:{no}")
            _once(seen, j, f"column {j}", where, no)
            x[j - 1] = 1
        return x
    if isinstance(problem, GraphProblem):
        index = {str(label): i for i, label in enumerate(problem.labels.tolist())}
        x = np.zeros(problem.n, dtype=np.int8)
        for no, text in rows:
            if text not in index:
                raise InputError(f"no node labelled {text!r} in {problem.name or 'the graph'}", where=f"{where}:{no}")
            _once(seen, index[text], f"node {text}", where, no)
            x[index[text]] = 1
        return x
    if isinstance(problem, TSP):
        tour = [_int(text, f"{where}:{no}", "a city number") - 1 for no, text in rows]
        return _open_tour(np.array(tour, dtype=np.int64))
    if isinstance(problem, MIP):
        index = {name: j for j, name in enumerate(problem.var_names)}
        x = np.zeros(problem.n, dtype=np.float64)
        for no, text in rows:
            parts = text.split()
            if len(parts) != 2 or parts[0] not in index:
                raise InputError(f"expected 'variable value' with a variable of the model, got {text!r}", where=f"{where}:{no}")
            _once(seen, index[parts[0]], f"variable {parts[0]}", where, no)
            try:
                x[index[parts[0]]] = float(parts[1])
            except ValueError:
                raise InputError(f"not a number: {parts[1]!r}", where=f"{where}:{no}") from None
        return x
    values = []
    for no, text in rows:
        try:
            values.append(float(text))
        except ValueError:
            raise InputError(f"not a number: {text!r}", where=f"{where}:{no}") from None
    return np.array(values)


def _open_tour(tour: np.ndarray) -> np.ndarray:
    """``tour`` without a last city that repeats its first (a closed tour written out)."""
    return tour[:-1] if tour.size > 1 and tour[-1] == tour[0] else tour


def write_mps(problem: Problem, path: str | os.PathLike) -> None:
    """Write ``problem``'s exact model for files (``problem.export_model()``; for TSP the compact
    MTZ model) with SCIP to ``path``; the format follows the extension (``.mps``, ``.lp``, ``.cip``, ...).

    Atomic, and silent: SCIP's "wrote problem to file" message is suppressed.
    """
    try:
        exact = problem.export_model()
    except NotImplementedError as e:  # sorting, jigsaw: no MIP model
        raise UsageError(f"cannot export {problem.name or problem.kind}: {e}; nothing written") from None
    model = exact.model
    model.hideOutput()
    gz = os.fspath(path).lower().endswith(".gz")
    with atomic_path(path) as tmp:
        plain = tmp[:-3] if gz else tmp  # SCIP writes uncompressed; gzip it here
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                model.writeProblem(plain, verbose=False)
            if gz:
                with open(plain, "rb") as src, gzip.open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        except Exception as e:  # pyscipopt raises plain Exception for an unknown extension
            raise InputError(f"SCIP cannot write this file ({e}); use a .mps, .lp or .cip name", where=str(path)) from None
        finally:
            if gz:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(plain)
