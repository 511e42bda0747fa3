"""Fuzzing every instance reader (and the solution reader) with hypothesis.

Each reader gets random bytes, a valid file of its format truncated at a token boundary, a valid
file with one token replaced (by another number, a negative or huge one, a word, nothing) and a
valid file with a line dropped or repeated. Every case must end in a Problem or in cosolve's
one-line error naming the file (:class:`~cosolve.errors.InputError`): never another exception.
A truncated file must be refused, or read as the very instance it was cut from (when only an
optional ``EOF`` went): never as a smaller instance. Edge lists declare no count, so a cut one is
a smaller graph by design; they are held to the other properties.

Examples per property: 40 by default (the suite's bounded profile, a few seconds in all), or
``COSOLVE_FUZZ_EXAMPLES`` (the long profile runs 10,000), e.g.::

    COSOLVE_FUZZ_EXAMPLES=10000 python -m pytest tests/io/test_fuzz_readers.py --hypothesis-show-statistics -q
"""

from __future__ import annotations

import os
import re
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosolve.errors import InputError
from cosolve.generators.graphs import erdos_renyi
from cosolve.io import read, read_solution
from cosolve.io.graphfiles import write_dimacs, write_edgelist, write_metis, write_rudy
from cosolve.io.orlib import write_orlib, write_rail
from cosolve.io.tsplib import read_tour, write_tsplib
from cosolve.problems import TSP, GraphProblem, SetCover
from tests.io.model_texts import LP, MPS

EXAMPLES = int(os.environ.get("COSOLVE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ROOT = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="cosolve-fuzz-"))


def _cover() -> SetCover:
    rng = np.random.default_rng(0)
    a = (rng.random((6, 9)) < 0.35).astype(np.int8)
    a[np.arange(6), rng.integers(0, 9, 6)] = 1
    return SetCover(rng.integers(1, 10, 9).astype(float), sp.csr_array(a), name="f")


def _graph() -> GraphProblem:
    return erdos_renyi(8, 0.4, problem="maxcut", seed=2, weighted=True)


def _tsp(metric: str = "EUC_2D") -> TSP:
    coords = np.random.default_rng(3).uniform(0, 100, (7, 2)).round(1)
    if metric != "EXPLICIT":
        return TSP(coords, metric=metric, name="f")
    w = np.random.default_rng(4).integers(0, 500, (7, 7)).astype(float)
    w = np.triu(w, 1)
    return TSP(coords, metric="EXPLICIT", weights=w + w.T, name="f")


#: case -> (writer of the valid file, the problem kind to ask for, the instance it holds, the reader's format)
VALID = {
    "orlib": (write_orlib, "setcover", _cover(), "orlib"),
    "rail": (write_rail, "setcover", _cover(), "rail"),
    "dimacs": (write_dimacs, "maxcut", _graph(), "dimacs"),
    "rudy": (write_rudy, "maxcut", _graph(), "rudy"),
    "metis": (write_metis, "maxcut", _graph(), "metis"),
    "edgelist": (write_edgelist, "maxcut", _graph(), "edgelist"),
    "tsplib": (write_tsplib, "tsp", _tsp(), "tsplib"),
    "tsplib-geo": (write_tsplib, "tsp", _tsp("GEO"), "tsplib"),
    "tsplib-explicit": (partial(write_tsplib, edge_weight_format="UPPER_ROW"), "tsp", _tsp("EXPLICIT"), "tsplib"),
}
HAS_COUNTS = sorted(set(VALID) - {"edgelist"})


def _text(fmt: str) -> str:
    write, _, problem, _ = VALID[fmt]
    path = WORK / f"valid.{fmt}"
    write(problem, path)
    return path.read_text()


TEXTS = {fmt: _text(fmt) for fmt in VALID}


def same(a, b) -> bool:
    if isinstance(a, SetCover):
        return isinstance(b, SetCover) and np.array_equal(a.costs, b.costs) and (a.matrix != b.matrix).nnz == 0
    if isinstance(a, GraphProblem):
        return type(a) is type(b) and a.n == b.n and np.array_equal(a.edges, b.edges) and np.array_equal(a.weights, b.weights)
    return (
        isinstance(b, TSP)
        and a.metric == b.metric
        and np.array_equal(a.coords, b.coords)
        and (a.weights is None or np.array_equal(a.weights, b.weights))
    )


def outcome(path: Path, **kwargs):
    """The reader's result, or the InputError; anything else fails the test. The error is one line
    naming the file."""
    try:
        return read(path, **kwargs)
    except InputError as e:
        message = str(e)
        assert "\n" not in message and message.startswith(str(path)), message
        return e


def write(name: str, data: bytes | str) -> Path:
    path = WORK / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


TOKEN = re.compile(r"\S+")
replacement = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(["0", "-1", "1e308", "nan", "inf", "x", "EOF", "1.5", "", "99999999999999999999"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet="abcXYZ:-_.", min_size=1, max_size=6),
)


@pytest.mark.parametrize("fmt", sorted(VALID))
@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes_are_read_or_refused_in_one_line(fmt, data):
    _, kind, _, reader = VALID[fmt]
    path = write(f"bytes.{fmt}", data)
    outcome(path, format=reader, problem=kind)


@FUZZ
@given(data=st.binary(max_size=300), kind=st.sampled_from([None, "setcover", "maxcut", "tsp"]))
def test_random_bytes_are_detected_or_refused_in_one_line(data, kind):
    outcome(write("bytes.dat", data), problem=kind)


@pytest.mark.parametrize("fmt", HAS_COUNTS)
@FUZZ
@given(data=st.data())
def test_a_truncated_file_is_refused_or_is_the_same_instance(fmt, data):
    _, kind, problem, reader = VALID[fmt]
    text = TEXTS[fmt]
    ends = [m.end() for m in TOKEN.finditer(text)]
    cut = data.draw(st.integers(0, len(ends) - 2), label="tokens kept - 1")
    got = outcome(write(f"cut.{fmt}", text[: ends[cut]] + "\n"), format=reader, problem=kind)
    assert isinstance(got, InputError) or same(problem, got), f"cut after token {cut + 1} read as another instance"


@pytest.mark.parametrize("fmt", sorted(VALID))
@FUZZ
@given(data=st.data(), new=replacement)
def test_a_replaced_token_is_read_or_refused(fmt, data, new):
    _, kind, _, reader = VALID[fmt]
    text = TEXTS[fmt]
    spans = [m.span() for m in TOKEN.finditer(text)]
    start, end = spans[data.draw(st.integers(0, len(spans) - 1), label="token")]
    outcome(write(f"swap.{fmt}", text[:start] + new + text[end:]), format=reader, problem=kind)


@pytest.mark.parametrize("fmt", sorted(VALID))
@FUZZ
@given(data=st.data(), repeat=st.booleans())
def test_a_dropped_or_repeated_line_is_read_or_refused(fmt, data, repeat):
    _, kind, _, reader = VALID[fmt]
    lines = TEXTS[fmt].splitlines()
    k = data.draw(st.integers(0, len(lines) - 1), label="line")
    lines = lines[: k + 1] + lines[k:] if repeat else lines[:k] + lines[k + 1 :]
    outcome(write(f"lines.{fmt}", "\n".join(lines) + "\n"), format=reader, problem=kind)


TOUR = (ROOT / "instances" / "tsplib" / "eil51.opt.tour").read_text()


@FUZZ
@given(data=st.data(), new=replacement)
def test_tour_files_are_read_or_refused(data, new):
    spans = [m.span() for m in TOKEN.finditer(TOUR)]
    how = data.draw(st.sampled_from(["cut", "swap", "bytes"]))
    if how == "bytes":
        text = data.draw(st.binary(max_size=300)).decode("utf-8", errors="replace")
    else:
        k = data.draw(st.integers(0, len(spans) - 1))
        text = TOUR[: spans[k][1]] + "\n" if how == "cut" else TOUR[: spans[k][0]] + new + TOUR[spans[k][1] :]
    path = write("f.tour", text)
    try:
        tour = read_tour(path)
    except InputError as e:
        assert "\n" not in str(e) and str(e).startswith(str(path))
        return
    assert sorted(tour.tolist()) == list(range(tour.size))  # a permutation of its cities
    if how == "cut":
        assert tour.size == 51


@FUZZ
@given(data=st.binary(max_size=200), fmt=st.sampled_from(["setcover", "maxcut", "tsp"]))
def test_solution_files_are_read_or_refused(data, fmt):
    problem = {"setcover": _cover(), "maxcut": _graph(), "tsp": _tsp()}[fmt]
    path = write("f.sol", data)
    try:
        x = read_solution(problem, path)
    except InputError as e:
        assert "\n" not in str(e) and str(e).startswith(str(path))
        return
    assert isinstance(x, np.ndarray)


# --------------------------------------------------------------------------- MPS and LP (HiGHS)

MODELS = {"mps": MPS, "lp": LP}


def same_mip(a, b) -> bool:
    from cosolve.problems import MIP

    return (
        isinstance(b, MIP)
        and a.sense == b.sense
        and a.offset == b.offset
        and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("c", "row_lower", "row_upper", "lower", "upper"))
        and np.array_equal(a.integrality, b.integrality)
        and a.matrix.shape == b.matrix.shape
        and (sp.csr_array(a.matrix) != sp.csr_array(b.matrix)).nnz == 0
    )


def _model_outcome(fmt: str, text: str | bytes):
    return outcome(write(f"model.{fmt}", text), format=fmt, problem="mip")


@pytest.mark.parametrize("fmt", sorted(MODELS))
@FUZZ
@given(data=st.data(), new=replacement, how=st.sampled_from(["cut", "swap", "drop", "repeat", "bytes"]))
def test_mps_and_lp_files_are_read_or_refused(fmt, data, new, how):
    """HiGHS reads MPS and LP: whatever a damaged file holds ends in a MIP or a one-line error
    (never a crash, a hang or a traceback); a file cut short is refused (ENDATA / End missing)."""
    text = MODELS[fmt]
    if how == "bytes":
        _model_outcome(fmt, data.draw(st.binary(max_size=300)))
        return
    spans = [m.span() for m in TOKEN.finditer(text)]
    if how in ("cut", "swap"):
        k = data.draw(st.integers(0, len(spans) - 2 if how == "cut" else len(spans) - 1), label="token")
        damaged = text[: spans[k][1]] + "\n" if how == "cut" else text[: spans[k][0]] + new + text[spans[k][1] :]
    else:
        lines = text.splitlines()
        k = data.draw(st.integers(0, len(lines) - 1), label="line")
        damaged = "\n".join(lines[: k + 1] + lines[k:] if how == "repeat" else lines[:k] + lines[k + 1 :]) + "\n"
    got = _model_outcome(fmt, damaged)
    if how == "cut":
        original = _model_outcome(fmt, text)
        assert isinstance(got, InputError) or same_mip(original, got), f"cut after token {k + 1} read as another model"


# --------------------------------------------------------------------------- jigsaw .npz


def _jigsaw_bytes() -> bytes:
    from cosolve.io.jigsawfile import write_jigsaw
    from cosolve.problems.jigsaw import cut

    picture = np.random.default_rng(7).random((8, 8, 3))
    path = WORK / "valid-jigsaw.npz"
    write_jigsaw(cut(picture, 2, seed=0), path)
    return path.read_bytes()


JIGSAW = _jigsaw_bytes()


@FUZZ
@given(data=st.data(), how=st.sampled_from(["cut", "flip", "bytes"]))
def test_damaged_jigsaw_archives_are_read_or_refused(data, how):
    if how == "bytes":
        damaged = b"PK\x03\x04" + data.draw(st.binary(max_size=400))
    elif how == "cut":
        damaged = JIGSAW[: data.draw(st.integers(0, len(JIGSAW) - 1))]
    else:
        k = data.draw(st.integers(0, len(JIGSAW) - 1))
        damaged = JIGSAW[:k] + bytes([data.draw(st.integers(0, 255))]) + JIGSAW[k + 1 :]
    outcome(write("damaged.npz", damaged), format="jigsaw")


_dtypes = st.sampled_from(["uint8", "int64", "float64", "float32", "bool", "complex128", "U3", "int8"])


@FUZZ
@given(
    pieces_shape=st.lists(st.integers(0, 5), min_size=0, max_size=5),
    pieces_dtype=_dtypes,
    grid=st.lists(st.integers(-3, 5), min_size=0, max_size=3),
    grid_dtype=_dtypes,
    truth=st.one_of(st.none(), st.lists(st.integers(-2, 6), max_size=6)),
    fill=st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0, float("nan"), 255.0]),
)
def test_jigsaw_archives_with_any_arrays_are_read_or_refused(pieces_shape, pieces_dtype, grid, grid_dtype, truth, fill):
    """Well-formed archives whose arrays have any shape, dtype and values: a Jigsaw or one line."""
    with np.errstate(invalid="ignore"):  # NaN cast to integers: whatever numpy makes of it is fuzz too
        arrays = {"pieces": np.full(pieces_shape, fill).astype(pieces_dtype), "grid": np.array(grid).astype(grid_dtype)}
    if truth is not None:
        arrays["truth"] = np.array(truth, dtype=np.int64)
    path = WORK / "arrays.npz"
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    outcome(path, format="jigsaw")
