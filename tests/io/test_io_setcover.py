"""Set cover text files: OR-Library (row-wise) and rail (column-wise), the generator, errors."""

import re
from pathlib import Path

import numpy as np
import pytest

from cosolve.errors import InputError
from cosolve.generators.setcover import random_setcover
from cosolve.io import read
from cosolve.io.orlib import format_ints, read_orlib, read_rail, write_orlib, write_rail
from cosolve.problems import SetCover

ROOT = Path(__file__).resolve().parents[2]
SCP41 = ROOT / "instances" / "setcover" / "scp41.txt"


def same(a: SetCover, b: SetCover) -> bool:
    return a.matrix.shape == b.matrix.shape and np.array_equal(a.costs, b.costs) and (a.matrix != b.matrix).nnz == 0


def test_scp41_sizes():
    p = read(SCP41)
    assert isinstance(p, SetCover) and p.name == "scp41"
    assert (p.n_rows, p.n_cols, p.matrix.nnz) == (200, 1000, 4009)
    assert p.costs[:3].tolist() == [1, 1, 1]


@pytest.mark.parametrize("costs", ["integer", "decimal"])
@pytest.mark.parametrize("layout", ["orlib", "rail"])
def test_round_trip(tmp_path, layout, costs):
    sc = random_setcover(30, 80, nnz=400, seed=3)
    if costs == "decimal":
        sc = SetCover(sc.costs / 4 + 0.1, sc.matrix, name=sc.name)
    path = tmp_path / f"inst_{layout}.txt"
    (write_orlib if layout == "orlib" else write_rail)(sc, path)
    back = (read_orlib if layout == "orlib" else read_rail)(path)
    assert same(sc, back)
    detected = read(path)  # layout detected from the content
    assert same(sc, detected)


def test_rail_detected_by_name_and_content(tmp_path):
    text = "3 2\n2 2 1 2\n3 2 2 3\n"  # rail: column 1 covers rows 1, 2; column 2 rows 2, 3
    for name in ("plain.txt", "rail3.txt"):
        (tmp_path / name).write_text(text)
        p = read(tmp_path / name)
        assert p.costs.tolist() == [2, 3]
        assert p.matrix.toarray().tolist() == [[1, 0], [1, 1], [0, 1]]


def test_orlib_preferred_when_both_layouts_fit(tmp_path):
    # "2 2 / 1 1 / 1 1 / 1 2" fits orlib (rows {1}, {2}) and rail (columns cost 1 rows {1}, cost 1 rows {2})
    path = tmp_path / "both.txt"
    path.write_text("2 2\n1 1\n1 1\n1 2\n")
    assert read(path).costs.tolist() == [1, 1]
    (tmp_path / "rail_both.txt").write_text("2 2\n5 1 1\n7 1 2\n")
    assert read(tmp_path / "rail_both.txt").costs.tolist() == [5, 7]


def test_wrapped_tokens(tmp_path):
    path = tmp_path / "wrap.txt"
    path.write_text("3\n4 1 1\n1 1 2\n1 2 1\n3 1\n4\n")
    p = read(path, format="orlib")
    assert p.matrix.toarray().tolist() == [[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("3 4\n1 1 1 1\n2 1 2\n2 x 3\n1 4\n", 4, "not a number: 'x'"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3 4-\n1 4\n", 4, "not a number"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3 4\n", 4, "truncated"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3 4\n2 1\n", 5, "truncated"),
        ("3 4\n1 1\n", 2, "truncated"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3 4\n1 5\n", 5, "column index 5 out of range 1..4"),
        ("3 4\n1 1 1 1\n2 1 2\n-2 3 4\n1 4\n", 4, "negative count"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3 4\n1 4 2\n", 5, "extra number"),
        ("3 4\n1 1 1 1\n2 1 2\n0\n1 4\n", 4, "row 2 is covered by no column"),
        ("3 4\n1 1 1 1\n2 1 2\n2 3.5 4\n1 4\n", 4, "must be an integer"),
        ("-3 4\n1 1 1 1\n", 1, "non-negative"),
    ],
)
def test_malformed_orlib_names_file_and_line(tmp_path, text, line, needle):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read(path)
    assert f"{path}:{line}:" in str(err.value)
    assert needle in str(err.value)


def test_rail_index_out_of_range_is_reported_for_rail(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("3 2\n2.5 2 1 2\n3 2 2 4\n")  # fits neither; rail's layout fits, its index 4 does not
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:3: row index 4 out of range 1..3"):
        read(path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("  \n\n")
    with pytest.raises(InputError, match="empty"):
        read(path, format="orlib")


def test_line_numbers_on_a_larger_file(tmp_path):
    sc = random_setcover(50, 300, nnz=2000, seed=1)
    path = tmp_path / "big.txt"
    write_orlib(sc, path)
    lines = path.read_text().splitlines()
    lines[37] = lines[37].replace(" ", " 1x ", 1) if " " in lines[37] else lines[37] + " 1x"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:38: not a number: '1x'"):
        read(path)


def test_format_ints():
    values = np.array([0, 7, 10, 99, 100, 123456789012])
    seps = np.array([32, 32, 10, 32, 32, 10], dtype=np.uint8)
    assert format_ints(values, seps) == b"0 7 10\n99 100 123456789012\n"


def test_generator_balas_ho_properties():
    sc = random_setcover(40, 120, nnz=900, cost_range=(5, 9), seed=7)
    assert sc.matrix.nnz == 900
    assert np.diff(sc.matrix.indptr).min() >= 2  # every row covered at least twice
    assert np.diff(sc.csc.indptr).min() >= 1  # every column covers a row
    assert sc.costs.min() >= 5 and sc.costs.max() <= 9 and np.all(sc.costs == np.round(sc.costs))
    again = random_setcover(40, 120, nnz=900, cost_range=(5, 9), seed=7)
    assert same(sc, again)
    assert not same(sc, random_setcover(40, 120, nnz=900, cost_range=(5, 9), seed=8))
    dense = random_setcover(5, 6, density=0.9, seed=1)
    assert dense.matrix.nnz == 27
    with pytest.raises(InputError):
        random_setcover(10, 20, nnz=25)
