"""MPS and LP model files, read by HiGHS (``highspy``), as a :class:`MIP` or a :class:`SetCover`.

HiGHS prints nothing (its banner and log go to a callback). It accepts some malformed MPS
silently (a non-numeric value reads as 0), so MPS text is first checked line by line by
:func:`check_mps_text`; LP syntax errors come with a line from HiGHS's own message. Any error
or warning HiGHS logs while reading becomes an :class:`InputError`.

A minimising model over binary variables with non-negative costs, no offset, every
coefficient 1 and every row ``>= 1`` (no upper bound) is returned as a :class:`SetCover`
(same column order) unless ``problem="mip"``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from cosolve.core.problem import Problem
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.io.files import check_file, compression, instance_name, parses_as_float, read_bytes
from cosolve.problems.mip import MIP
from cosolve.problems.setcover import SetCover

_SECTIONS = {
    "NAME", "ROWS", "USERCUTS", "LAZYCONS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "SOS", "ENDATA",
    "OBJSENSE", "OBJSENS", "OBJNAME", "QUADOBJ", "QMATRIX", "QSECTION", "QCMATRIX", "CSECTION",
    "INDICATORS", "GENCONS", "PWLOBJ", "PWLNAM", "PWLCON",
}  # fmt: skip
_BOUND_TYPES = {"UP", "LO", "FX", "FR", "MI", "PL", "BV", "LI", "UI", "SC", "SI"}
_NO_VALUE = {"FR", "MI", "PL", "BV"}
_SENSES = {"MAX", "MIN", "MAXIMIZE", "MINIMIZE"}
_HIGHS_WHERE = re.compile(r"-->\s*(.+?):(\d+)(?::\d+)?\s*$", re.MULTILINE)
_banner_silenced = False


def check_mps_text(text: str, where: str) -> None:
    """Check the structure of MPS text: known section names, row types, numeric values and
    bound types, field counts. Raises :class:`InputError` at ``where:line``. Lenient on what
    HiGHS handles itself (names, free/fixed format, sections it does not need checked)."""
    section = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("*"):
            continue
        fields = line.split()
        at = f"{where}:{no}"
        if not raw[0].isspace() and fields[0].upper() in _SECTIONS:
            section = fields[0].upper()
            if section == "ENDATA":
                return
            if section in ("OBJSENSE", "OBJSENS") and len(fields) > 1 and fields[1].upper() not in _SENSES:
                raise InputError(f"unknown objective sense {fields[1]!r}", where=at)
            continue
        if section is None:
            raise InputError(f"not an MPS file: expected a NAME or ROWS line, got {line.strip()[:40]!r}", where=at)
        if section == "ROWS":
            if len(fields) != 2 or fields[0].upper() not in ("N", "E", "L", "G"):
                raise InputError(f"a ROWS line is 'type name' with type N, E, L or G, got {line.strip()[:40]!r}", where=at)
        elif section == "COLUMNS":
            if len(fields) >= 3 and "MARKER" in fields[1].upper():
                continue
            if len(fields) not in (3, 5):
                raise InputError(f"a COLUMNS line is 'column row value [row value]', got {len(fields)} fields", where=at)
            for value in fields[2::2]:
                if not parses_as_float(value):
                    raise InputError(f"not a number: {value!r}", where=at)
        elif section in ("RHS", "RANGES"):
            values = fields[2::2] if len(fields) % 2 else fields[1::2]
            if len(fields) not in (2, 3, 4, 5) or not all(map(parses_as_float, values)):
                raise InputError(f"a {section} line is '[set] row value [row value]', got {line.strip()[:40]!r}", where=at)
        elif section == "BOUNDS":
            kind = fields[0].upper()
            if kind not in _BOUND_TYPES or len(fields) > 4:
                known = ", ".join(sorted(_BOUND_TYPES))
                raise InputError(f"unknown bound type {fields[0]!r} (expected one of {known})", where=at)
            if kind not in _NO_VALUE and (len(fields) < 3 or not parses_as_float(fields[-1])):
                raise InputError(f"bound {kind} needs a numeric value, got {line.strip()[:40]!r}", where=at)
        elif section in ("OBJSENSE", "OBJSENS") and fields[0].upper() not in _SENSES:
            raise InputError(f"unknown objective sense {fields[0]!r}", where=at)
    if section is None:
        raise InputError("not an MPS file: no NAME or ROWS section", where=where)
    raise InputError("truncated: the file ends before its ENDATA line", where=f"{where}:{len(text.splitlines())}")


@contextlib.contextmanager
def _stdout_to_devnull() -> Iterator[None]:
    """Send file descriptor 1 to /dev/null (C-level output, e.g. the HiGHS banner)."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        with contextlib.suppress(Exception):
            ctypes.CDLL(None).fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _highs():  # -> highspy.Highs
    """A silent HiGHS instance (the banner HiGHS prints once per process is discarded)."""
    global _banner_silenced
    import highspy

    if _banner_silenced:
        h = highspy.Highs()
    else:
        with _stdout_to_devnull():
            h = highspy.Highs()
        _banner_silenced = True
    h.setOptionValue("log_to_console", False)
    h.setOptionValue("output_flag", True)  # keep logging on so errors reach the callback
    return h


def _highs_name(path: Path, fmt: str, tmp: str, text: str) -> str:
    """A path HiGHS will parse as ``fmt``: the file itself, a link with the right extension, or (for
    bzip2 and xz, which HiGHS does not read) ``text`` written out plain."""
    kind = compression(path)
    if kind not in (None, "gzip"):
        plain = os.path.join(tmp, f"model.{fmt}")
        with open(plain, "w", encoding="utf-8") as f:
            f.write(text)
        return plain
    wanted = f".{fmt}" + (".gz" if kind == "gzip" else "")
    if path.name.lower().endswith(wanted):
        return str(path)
    link = os.path.join(tmp, "model" + wanted)
    os.symlink(path.resolve(), link)
    return link


def _clean(message: str) -> str:
    text = message.strip()
    for prefix in ("ERROR:", "WARNING:"):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    return text.splitlines()[0] if text else "unreadable model"


def _utf8_text(path: Path, where: str) -> str:
    """The file as UTF-8 text; other bytes are an error at their line (HiGHS's names must decode)."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{raw[e.start]:02x})", where=f"{where}:{line}") from None


def _read_lp(path: str | os.PathLike, fmt: str):  # -> highspy.HighsLp
    p = check_file(path)
    where = str(path)
    text = _utf8_text(p, where)
    if fmt == "mps":
        check_mps_text(text, where)
    h = _highs()
    messages: list[str] = []
    h.cbLogging.subscribe(lambda event: messages.append(str(event.message)))
    with tempfile.TemporaryDirectory() as tmp:
        target = _highs_name(p, fmt, tmp, text)
        status = h.readModel(target)
        problems = [m for m in messages if m.lstrip().startswith(("ERROR", "WARNING"))]
        if problems or status.name != "kOk":
            detail = next((m for m in problems if "-->" in m), problems[0] if problems else "")
            found = _HIGHS_WHERE.search(detail)
            at = f"{where}:{found.group(2)}" if found else where
            text = _clean(detail).replace(target, where) if detail else f"HiGHS cannot read this {fmt.upper()} file"
            raise InputError(text, where=at)
    if h.getModel().hessian_.dim_ > 0:
        raise InputError("quadratic objectives are not supported", where=where)
    return h.getLp()


def _mip(lp, name: str, where: str) -> MIP:  # lp: highspy.HighsLp
    import highspy

    n, m = lp.num_col_, lp.num_row_
    a = lp.a_matrix_
    parts = (np.asarray(a.value_, dtype=np.float64), np.asarray(a.index_, dtype=np.int64), np.asarray(a.start_, dtype=np.int64))
    if a.format_ == highspy.MatrixFormat.kRowwise:
        matrix = sp.csr_array(parts, shape=(m, n))
    else:
        matrix = sp.csc_array(parts, shape=(m, n))
    kinds = list(lp.integrality_)
    if kinds:
        unsupported = [k for k in kinds if k not in (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)]
        if unsupported:
            what = f"semi-continuous / semi-integer variables are not supported ({len(unsupported)} found)"
            raise InputError(what, where=where)
        integrality = np.array([k == highspy.HighsVarType.kInteger for k in kinds], dtype=bool)
    else:
        integrality = np.zeros(n, dtype=bool)
    sense = Sense.MAXIMIZE if lp.sense_ == highspy.ObjSense.kMaximize else Sense.MINIMIZE
    try:
        return MIP(
            np.asarray(lp.col_cost_, dtype=np.float64),
            matrix,
            np.asarray(lp.row_lower_, dtype=np.float64),
            np.asarray(lp.row_upper_, dtype=np.float64),
            np.asarray(lp.col_lower_, dtype=np.float64),
            np.asarray(lp.col_upper_, dtype=np.float64),
            integrality,
            sense=sense,
            offset=float(lp.offset_),
            var_names=list(lp.col_names_) or None,
            row_names=list(lp.row_names_) or None,
            name=name,
        )
    except InputError as e:
        raise InputError(str(e), where=where) from None


def setcover_structure(mip: MIP) -> str | None:
    """None if ``mip`` is a set cover (see the module docstring), else the first reason it is not."""
    a = mip.matrix
    checks = (
        (mip.sense is Sense.MINIMIZE, "it maximises"),
        (mip.offset == 0, "its objective has an offset"),
        (mip.m > 0, "it has no constraints"),
        (bool(mip.integrality.all()), "it has continuous variables"),
        (bool(np.all(mip.lower == 0) and np.all(mip.upper == 1)), "not every variable is binary"),
        (bool(np.all(mip.c >= 0)), "some costs are negative"),
        (bool(np.all(a.data == 1)), "some coefficients are not 1"),
        (bool(np.all(mip.row_lower == 1) and np.all(np.isposinf(mip.row_upper))), "not every row is '>= 1'"),
        (bool(np.all(np.diff(a.indptr) > 0)), "some row is empty"),
    )
    return next((why for ok, why in checks if not ok), None)


def read_mps(path: str | os.PathLike, *, problem: str | None = None, format: str = "mps") -> Problem:
    """Read an MPS (``format="mps"``, also gzipped) or LP (``format="lp"``) file.

    ``problem``: None -> a :class:`SetCover` if the model is one, else a :class:`MIP`;
    ``"mip"`` -> always the MIP; ``"setcover"`` -> the SetCover, or InputError saying why not.
    """
    if format not in ("mps", "lp"):
        raise ValueError(f"format must be 'mps' or 'lp', got {format!r}")
    where = str(path)
    mip = _mip(_read_lp(path, format), instance_name(path), where)
    if problem == "mip":
        return mip
    why = setcover_structure(mip)
    if why is None:
        return SetCover(mip.c, mip.matrix, name=mip.name)
    if problem == "setcover":
        raise InputError(f"the model is not a set cover: {why}", where=where)
    return mip


def read_lp(path: str | os.PathLike, *, problem: str | None = None) -> Problem:
    """Read a CPLEX LP file (see :func:`read_mps`)."""
    return read_mps(path, problem=problem, format="lp")
