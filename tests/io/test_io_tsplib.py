"""TSPLIB instances and tours."""

import re
from pathlib import Path

import numpy as np
import pytest

from cosolve.errors import InputError
from cosolve.io import read
from cosolve.io.tsplib import read_tour, write_tsplib
from cosolve.problems import TSP

ROOT = Path(__file__).resolve().parents[2]
EIL51 = ROOT / "instances" / "tsplib" / "eil51.tsp"

SMALL = """NAME : small
TYPE : TSP
DIMENSION : 4
EDGE_WEIGHT_TYPE : EUC_2D
NODE_COORD_SECTION
1 0 0
2 0 3
3 4 3
4 4 0
EOF
"""


def test_eil51_and_its_optimal_tour():
    tsp = read(EIL51)
    assert isinstance(tsp, TSP) and tsp.n == 51 and tsp.name == "eil51"
    tour = read_tour(EIL51.with_name("eil51.opt.tour"))
    assert sorted(tour.tolist()) == list(range(51))
    verdict = tsp.evaluate(tour)
    assert verdict.feasible and verdict.objective == 426


def test_small_round_trip(tmp_path):
    path = tmp_path / "small.tsp"
    path.write_text(SMALL)
    tsp = read(path)
    assert tsp.coords.tolist() == [[0, 0], [0, 3], [4, 3], [4, 0]]
    assert tsp.evaluate(np.arange(4)).objective == 14
    out = tmp_path / "again.tsp"
    write_tsplib(tsp, out)
    assert np.array_equal(read(out).coords, tsp.coords)
    (tmp_path / "nocolon.tsp").write_text(SMALL.replace(" : ", ": ").replace("EOF\n", ""))  # EOF optional
    assert read(tmp_path / "nocolon.tsp").n == 4


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        (SMALL.replace("EUC_2D", "GEO"), 4, "EDGE_WEIGHT_TYPE GEO is not supported; only EUC_2D"),
        (SMALL.replace("TYPE : TSP", "TYPE : ATSP"), 2, "TYPE ATSP"),
        (SMALL.replace("4 4 0\nEOF\n", ""), 8, "truncated"),
        (SMALL.replace("4 4 0\n", ""), 9, "truncated"),
        (SMALL.replace("3 4 3", "3 4 x"), 8, "id x y"),
        (SMALL.replace("3 4 3", "7 4 3"), 8, "out of range"),
        (SMALL.replace("3 4 3", "2 4 3"), 8, "twice"),
        (SMALL.replace("DIMENSION : 4", "DIMENSION : four"), 3, "DIMENSION"),
    ],
)
def test_malformed_tsplib(tmp_path, text, line, needle):
    path = tmp_path / "bad.tsp"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read(path)
    assert f"{path}:{line}:" in str(err.value) and needle in str(err.value)


def test_tour_errors(tmp_path):
    path = tmp_path / "t.tour"
    path.write_text("NAME : t\nTYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n1\n3\n3\n-1\nEOF\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:7: city 3 appears twice"):
        read_tour(path)
    path.write_text("TYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n1 2\n3\n-1\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:5: truncated"):
        read_tour(path)
    path.write_text("TOUR_SECTION\n2 1 3 -1\n")
    assert read_tour(path).tolist() == [1, 0, 2]


def test_a_tour_written_to_a_tour_file_is_tsplib(tmp_path):
    import numpy as np

    from cosolve.io import read, write_solution
    from cosolve.io.tsplib import read_tour

    problem = read(EIL51)
    tour = np.random.default_rng(0).permutation(problem.n)
    write_solution(problem, tour, tmp_path / "t.tour")
    text = (tmp_path / "t.tour").read_text()
    assert "TYPE : TOUR" in text and text.rstrip().endswith("-1\nEOF")
    np.testing.assert_array_equal(read_tour(tmp_path / "t.tour"), tour)
    from cosolve.io import read_solution

    np.testing.assert_array_equal(read_solution(problem, tmp_path / "t.tour"), tour)
