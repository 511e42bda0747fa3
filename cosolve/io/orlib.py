"""Set cover text files: OR-Library row-wise (``orlib``) and column-wise (``rail``).

``orlib``: ``m n``, then the n column costs, then per row i: ``k_i`` and k_i column indices.
``rail``:  ``m n``, then per column j: its cost, ``k_j`` and k_j row indices.
Indices are 1-based; tokens are whitespace separated and may wrap across lines anywhere.
Costs may be integers or decimals; everything else must be an integer.

Reading is vectorised: one byte-class pass validates the text, ``np.fromstring`` parses it,
the CSR arrays come from index arithmetic. Only the pointer chase that finds where each
row's count sits is a loop, doing O(1) integer work per row (no allocation per row). The
line of an offending token is worked out only when something is wrong.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import scipy.sparse as sp

from cosolve.errors import InputError
from cosolve.io.files import atomic_write, instance_name, read_bytes
from cosolve.problems.setcover import SetCover

# byte classes: 0 whitespace, 1 digit, 2 other character of a number, 3 anything else
_CLASS = np.full(256, 3, dtype=np.uint8)
_SPACE = (b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c")
_CLASS[list(b"".join(_SPACE))] = 0
_CLASS[list(b"0123456789")] = 1
_CLASS[list(b"+-.eE")] = 2
_INT = re.compile(rb"[+-]?\d+")
_FLOAT = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_WRAP = 12  # numbers per line when writing


def _fromstring(data: bytes, dtype: type) -> np.ndarray | None:
    """``np.fromstring(data, dtype, sep=" ")``, or None where the text does not parse (numpy 2
    raises; older numpy warns and stops early, which we turn into a failure)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return np.fromstring(data, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


class Tokens:
    """The numbers of a whitespace-separated numeric text, and where each one sits.

    ``values``: int64 array (float64 if any token is a decimal) of all tokens in order.
    Raises :class:`InputError` at ``where:line`` for the first token that is not a number.
    """

    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.where = where
        classes = _CLASS[np.frombuffer(data, dtype=np.uint8)]
        top = int(classes.max()) if len(classes) else 0
        if top == 0:
            raise InputError("the file is empty", where=where)
        if top == 3:
            self._bad_token(int(np.argmax(classes == 3)))
        if top == 1:  # digits and whitespace only: an exact integer parse
            del classes
            values = _fromstring(data, np.int64)
            if values is None:
                raise InputError("cannot parse the numbers", where=where)
            self.values = values
            return
        word = classes != 0
        special = np.flatnonzero(classes == 2)
        del classes
        self.values = self._parse_mixed(word, special)

    def _parse_mixed(self, word: np.ndarray, special: np.ndarray) -> np.ndarray:
        """Parse a text where some tokens hold a sign, point or exponent (``special``: offsets
        of those bytes; ``word``: non-whitespace mask). Those tokens are parsed as floats on
        their own, the rest as integers (with the special tokens blanked to ``0``), and the two
        are merged: int64 if every number is integral, else float64.

        A malformed token makes ``fromstring`` fail or split it in two, so a count that differs
        from the number of tokens sends us to the slow path that names the token and its line.
        """
        buf = np.frombuffer(self.data, dtype=np.uint8)
        begin = word.copy()
        begin[1:] &= ~word[:-1]
        starts = np.flatnonzero(begin)
        del begin
        finish = word.copy()
        finish[:-1] &= ~word[1:]
        ends = np.flatnonzero(finish) + 1
        del finish
        owner = np.searchsorted(starts, special, side="right") - 1  # token of each special byte, sorted
        keep = np.ones(len(owner), dtype=bool)
        keep[1:] = owner[1:] != owner[:-1]
        ids = owner[keep]
        del owner, keep
        first, lengths = starts[ids], ends[ids] - starts[ids]
        del ends
        inside = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        src = np.repeat(first, lengths) + inside  # the bytes of the special tokens
        dst = np.repeat(np.cumsum(lengths + 1) - (lengths + 1), lengths) + inside  # packed, space separated
        packed = np.full(int(lengths.sum()) + len(ids), ord(" "), dtype=np.uint8)
        packed[dst] = buf[src]
        del dst, inside
        floats = _fromstring(packed.tobytes(), np.float64)
        if floats is None or len(floats) != len(ids):
            self._check_special(special)
            raise InputError("cannot parse the numbers", where=self.where)
        if not np.isfinite(floats).all():
            raise self.error(int(ids[np.flatnonzero(~np.isfinite(floats))[0]]), "number out of range")
        blank = buf.copy()
        blank[src] = ord(" ")
        blank[first] = ord("0")
        values = _fromstring(blank.tobytes(), np.int64)  # digits and spaces only: cannot fail
        del blank, src
        if values is None or len(values) != len(starts):
            raise InputError("cannot parse the numbers", where=self.where)
        if np.all(floats == np.floor(floats)) and np.abs(floats).max() < 2**53:
            values[ids] = floats.astype(np.int64)
            return values
        values = values.astype(np.float64)
        values[ids] = floats
        return values

    # -- locating tokens (only on the error path) ---------------------------------------

    def _bad_token(self, offset: int) -> None:
        start, end = self._token_span(offset)
        token = self.data[start : min(end, start + 40)].decode("utf-8", errors="replace")
        raise InputError(f"not a number: {token!r}", where=f"{self.where}:{self.line_of_offset(offset)}")

    def _token_span(self, offset: int) -> tuple[int, int]:
        """[start, end) of the token holding byte ``offset``."""
        data = self.data
        start = max(data.rfind(c, 0, offset) for c in _SPACE) + 1
        ends = [i for i in (data.find(c, offset) for c in _SPACE) if i >= 0]
        return start, min(ends, default=len(data))

    def _check_special(self, special: np.ndarray) -> None:
        """Check each token holding a byte of ``special`` (offsets of signs, points, exponents)
        against the number grammar; raise at the first that is not a number."""
        starts: set[int] = set()
        for offset in special.tolist():
            start, end = self._token_span(offset)
            if start in starts:
                continue
            starts.add(start)
            token = self.data[start:end]
            if not (_INT.fullmatch(token) or _FLOAT.fullmatch(token)):
                self._bad_token(offset)

    def line_of_offset(self, offset: int) -> int:
        """1-based line number of byte ``offset``."""
        return self.data.count(b"\n", 0, offset) + 1

    def offset_of(self, k: int) -> int:
        """Byte offset where token ``k`` (0-based) starts."""
        word = _CLASS[np.frombuffer(self.data, dtype=np.uint8)] != 0
        starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
        if word[0]:
            starts = np.r_[0, starts]
        return int(starts[k])

    def error(self, k: int, message: str) -> InputError:
        """An :class:`InputError` at the line of token ``k``."""
        return InputError(message, where=f"{self.where}:{self.line_of_offset(self.offset_of(k))}")

    def truncated(self, message: str) -> InputError:
        """An :class:`InputError` at the last line holding a token."""
        end = len(self.data.rstrip())
        return InputError(f"truncated: {message}", where=f"{self.where}:{self.line_of_offset(end)}")


def _header(tok: Tokens) -> tuple[int, int]:
    v = tok.values
    if len(v) < 2:
        raise tok.truncated("expected 'm n' (numbers of rows and columns)")
    for k, what in ((0, "rows"), (1, "columns")):
        if not np.isfinite(v[k]) or v[k] != np.floor(v[k]) or v[k] < 0:
            raise tok.error(k, f"the number of {what} must be a non-negative integer, got {v[k]:g}")
        if v[k] > len(v):  # every row and every column takes at least one number of the file
            raise tok.error(k, f"the header declares {v[k]:g} {what}, more than this file can hold (at most {len(v)})")
    return int(v[0]), int(v[1])


#: Floats from this magnitude on are not all integers a count or an index can be exactly.
_EXACT = 2.0**53


def _integers(tok: Tokens, values: np.ndarray, base: int, what: str) -> np.ndarray:
    """``values`` (tokens ``base``...) as int64; InputError at the first non-integer."""
    if values.dtype.kind == "i":
        return values
    frac = (values != np.floor(values)) | (np.abs(values) >= _EXACT)
    if frac.any():
        k = int(np.argmax(frac))
        raise tok.error(base + k, f"{what} must be an integer (of magnitude below 2^53), got {values[k]:g}")
    return values.astype(np.int64)


def _chase(tok: Tokens, body: np.ndarray, base: int, records: int, count_at: int, what: str) -> np.ndarray:
    """Start positions (in ``body``) of ``records`` records, each ``count_at + 1`` leading
    numbers whose last is the count k of the indices that follow.

    ``body`` holds tokens ``base``... The loop does O(1) integer work per record.
    """
    end = len(body)
    if records > end // (count_at + 1):
        raise tok.truncated(f"the header promises {records} {what}s but the file holds only {end} more numbers")
    starts = np.empty(records, dtype=np.int64)
    view = memoryview(body)
    head = count_at + 1
    pos = 0
    for i in range(records):
        if pos + count_at >= end:
            raise tok.truncated(f"the file ends after {i} of the {records} {what}s")
        k = view[pos + count_at]
        if k != int(k):
            raise tok.error(base + pos + count_at, f"the count of {what} {i + 1} must be an integer, got {k:g}")
        if k < 0:
            raise tok.error(base + pos + count_at, f"negative count {int(k)} in {what} {i + 1}")
        starts[i] = pos
        pos += head + int(k)
    if pos > end:
        k = int(view[int(starts[-1]) + count_at])
        raise tok.truncated(f"{what} {records} should list {k} indices but the file ends after {k - (pos - end)}")
    if pos < end:
        extra = end - pos
        raise tok.error(
            base + pos,
            f"{extra} extra number{'s' if extra > 1 else ''} after the last {what} (does the header 'm n' match the data?)",
        )
    return starts


def _content(error: InputError) -> InputError:
    """Mark ``error`` as found after the layout fitted (used to pick the error to report)."""
    error.layout_fits = True
    return error


def _indices(tok: Tokens, body: np.ndarray, base: int, is_head: np.ndarray, limit: int, what: str) -> np.ndarray:
    """The non-head tokens of ``body`` as 0-based int32 indices, checked to be integers in 1..limit."""
    idx = body[~is_head]
    if idx.dtype.kind == "f":
        frac = (idx != np.floor(idx)) | (np.abs(idx) >= _EXACT)
        if frac.any():
            k = int(np.argmax(frac))
            pos = int(np.flatnonzero(~is_head)[k])
            raise _content(tok.error(base + pos, f"{what} index must be an integer (of magnitude below 2^53), got {idx[k]:g}"))
        idx = idx.astype(np.int64)
    if idx.size and (idx.min() < 1 or idx.max() > limit):
        k = int(np.argmax((idx < 1) | (idx > limit)))
        pos = int(np.flatnonzero(~is_head)[k])
        raise _content(tok.error(base + pos, f"{what} index {int(idx[k])} out of range 1..{limit}"))
    out = idx.astype(np.int32)
    out -= 1
    return out


def _indptr(counts: np.ndarray) -> np.ndarray:
    total = int(counts.sum())
    dtype = np.int32 if total < 2**31 - 1 else np.int64
    indptr = np.zeros(len(counts) + 1, dtype=dtype)
    np.cumsum(counts, out=indptr[1:])
    return indptr


def _parse_orlib(tok: Tokens) -> tuple[np.ndarray, sp.csr_array]:
    m, n = _header(tok)
    v = tok.values
    if len(v) < 2 + n:
        raise tok.truncated(f"the file ends after {len(v) - 2} of the {n} column costs")
    costs = v[2 : 2 + n].astype(np.float64)
    base = 2 + n
    body = _integers(tok, v[base:], base, "a count or column index")
    starts = _chase(tok, body, base, m, 0, "row")
    counts = body[starts]
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        i = int(empty[0])
        raise _content(tok.error(base + int(starts[i]), f"set cover is infeasible: row {i + 1} is covered by no column"))
    is_head = np.zeros(len(body), dtype=bool)
    is_head[starts] = True
    indices = _indices(tok, body, base, is_head, n, "column")
    data = np.ones(len(indices), dtype=np.int8)
    return costs, sp.csr_array((data, indices, _indptr(counts)), shape=(m, n))


def _parse_rail(tok: Tokens) -> tuple[np.ndarray, sp.csc_array]:
    m, n = _header(tok)
    base = 2
    body = tok.values[base:]
    starts = _chase(tok, body, base, n, 1, "column")
    costs = body[starts].astype(np.float64)
    counts = body[starts + 1].astype(np.int64)
    is_head = np.zeros(len(body), dtype=bool)
    is_head[starts] = True
    is_head[starts + 1] = True
    indices = _indices(tok, body, base, is_head, m, "row")
    data = np.ones(len(indices), dtype=np.int8)
    return costs, sp.csc_array((data, indices, _indptr(counts)), shape=(m, n))


_PARSERS = {"orlib": _parse_orlib, "rail": _parse_rail}


def read_setcover(path: str | os.PathLike, *, layout: str | None = None) -> SetCover:
    """Read a set cover text file in ``layout`` ``"orlib"`` or ``"rail"``.

    With ``layout=None`` both are tried and the one that consumes exactly all numbers with
    valid indices wins (orlib first, rail first for names starting with ``rail``); if
    neither fits, the error of the one whose layout fitted (failing on an index) is
    raised, else that of the first tried. The instance name is the file stem.
    """
    where = str(path)
    tok = Tokens(read_bytes(path), where)
    name = instance_name(path)
    order = ["rail", "orlib"] if name.lower().startswith("rail") else ["orlib", "rail"]
    if layout is not None:
        order = [layout]
    errors: list[InputError] = []
    for fmt in order:
        try:
            costs, matrix = _PARSERS[fmt](tok)
        except InputError as e:
            errors.append(e.with_traceback(None))  # do not keep the parse's arrays alive
            continue
        del tok
        try:
            return SetCover(costs, matrix, name=name)
        except InputError as e:
            raise InputError(str(e), where=where) from None
    # neither layout fits: report the one whose layout fitted and failed on content, else the first
    raise next((e for e in errors if getattr(e, "layout_fits", False)), errors[0])


def read_orlib(path: str | os.PathLike, *, problem: str | None = None) -> SetCover:
    """Read a row-wise OR-Library set cover file."""
    return read_setcover(path, layout="orlib")


def read_rail(path: str | os.PathLike, *, problem: str | None = None) -> SetCover:
    """Read a column-wise (rail) set cover file."""
    return read_setcover(path, layout="rail")


def read_either_layout(path: str | os.PathLike, *, problem: str | None = None) -> SetCover:
    """Read a set cover text file whose layout (orlib or rail) is told apart by reading it."""
    return read_setcover(path, layout=None)


# -- writing ------------------------------------------------------------------------------


def format_ints(values: np.ndarray, separators: np.ndarray) -> bytes:
    """ASCII of non-negative integers ``values`` (n,), each followed by its separator byte
    (``separators``: (n,) uint8, e.g. ``ord(' ')`` or ``ord('\\n')``). Vectorised, no Python
    object per number."""
    v = np.asarray(values, dtype=np.int64)
    if not v.size:
        return b""
    if v.min() < 0:
        raise ValueError("format_ints writes non-negative integers only")
    digits = np.ones(len(v), dtype=np.int64)
    power = 10
    top = int(v.max())
    while power <= top:
        digits += v >= power
        power *= 10
    ends = np.cumsum(digits + 1)
    out = np.empty(int(ends[-1]), dtype=np.uint8)
    out[ends - 1] = separators
    last = ends - 2
    rest = v.copy()
    for d in range(int(digits.max())):
        if d == 0:
            out[last] = rest % 10 + 48
        else:
            sel = np.flatnonzero(digits > d)
            out[last[sel] - d] = rest[sel] % 10 + 48
        rest //= 10
    return out.tobytes()


def _wrapped(counts: np.ndarray, width: int) -> np.ndarray:
    """Separators for runs of ``counts`` numbers: newline after every ``width``-th and after each run's last."""
    total = int(counts.sum())
    run_start = np.repeat(np.cumsum(counts) - counts, counts)
    q = np.arange(total) - run_start
    last = q == np.repeat(counts, counts) - 1
    return np.where(last | (q % width == width - 1), ord("\n"), ord(" ")).astype(np.uint8)


def _integral(costs: np.ndarray) -> bool:
    return bool(np.all(costs == np.round(costs)) and (not costs.size or costs.max() < 2**53))


def _cost_text(costs: np.ndarray) -> bytes:
    if _integral(costs):
        return format_ints(costs.astype(np.int64), _wrapped(np.array([len(costs)]), _WRAP))
    words = [repr(c) for c in costs.tolist()]
    lines = [" ".join(words[i : i + _WRAP]) for i in range(0, len(words), _WRAP)]
    return ("\n".join(lines) + "\n").encode() if lines else b""


def orlib_bytes(problem: SetCover) -> bytes:
    """The instance as row-wise OR-Library text (vectorised)."""
    a = problem.matrix
    m, n = a.shape
    counts = np.diff(a.indptr).astype(np.int64)
    heads = a.indptr[:-1].astype(np.int64) + np.arange(m)  # position of each count in the body
    body = np.empty(m + a.nnz, dtype=np.int64)
    seps = np.empty(m + a.nnz, dtype=np.uint8)
    is_head = np.zeros(m + a.nnz, dtype=bool)
    is_head[heads] = True
    body[heads] = counts
    seps[heads] = ord("\n")
    body[~is_head] = a.indices.astype(np.int64) + 1
    seps[~is_head] = _wrapped(counts, _WRAP)
    return f"{m} {n}\n".encode() + _cost_text(problem.costs) + format_ints(body, seps)


def rail_bytes(problem: SetCover) -> bytes:
    """The instance as column-wise (rail) text, one column per line."""
    a = problem.csc
    m, n = a.shape
    counts = np.diff(a.indptr).astype(np.int64)
    rows = a.indices.astype(np.int64) + 1
    header = f"{m} {n}\n".encode()
    if not _integral(problem.costs):
        lines = [
            " ".join([repr(c), str(k), *map(str, rows[a.indptr[j] : a.indptr[j + 1]].tolist())])
            for j, (c, k) in enumerate(zip(problem.costs.tolist(), counts.tolist(), strict=True))
        ]
        return header + ("\n".join(lines) + "\n").encode()
    heads = a.indptr[:-1].astype(np.int64) + 2 * np.arange(n)
    size = 2 * n + a.nnz
    body = np.empty(size, dtype=np.int64)
    is_head = np.zeros(size, dtype=bool)
    is_head[heads] = is_head[heads + 1] = True
    body[heads] = problem.costs.astype(np.int64)
    body[heads + 1] = counts
    body[~is_head] = rows
    seps = np.full(size, ord(" "), dtype=np.uint8)
    line_end = np.r_[heads[1:], size] - 1  # last number of each column's record
    seps[line_end] = ord("\n")
    return header + format_ints(body, seps)


def write_orlib(problem: SetCover, path: str | os.PathLike) -> None:
    """Write ``problem`` as a row-wise OR-Library file (atomically)."""
    atomic_write(path, orlib_bytes(problem))


def write_rail(problem: SetCover, path: str | os.PathLike) -> None:
    """Write ``problem`` as a column-wise (rail) file (atomically)."""
    atomic_write(path, rail_bytes(problem))
