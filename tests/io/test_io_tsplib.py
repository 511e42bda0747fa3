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
        (SMALL.replace("EUC_2D", "EUC_3D"), 4, "EDGE_WEIGHT_TYPE EUC_3D is not supported (supported: EUC_2D, CEIL_2D"),
        (SMALL.replace("EUC_2D", "EXPLICIT"), 4, "EXPLICIT needs an EDGE_WEIGHT_SECTION"),
        (SMALL.replace("NODE_COORD_SECTION", "NODE_COORD_TYPE : THREED_COORDS\nNODE_COORD_SECTION"), 5, "THREED_COORDS"),
        (SMALL.replace("TYPE : TSP", "TYPE : ATSP"), 2, "TYPE ATSP"),
        (SMALL.replace("4 4 0\nEOF\n", ""), 8, "truncated"),
        (SMALL.replace("4 4 0\n", ""), 9, "truncated"),
        (SMALL.replace("3 4 3", "3 4 x"), 8, "id x y"),
        (SMALL.replace("3 4 3", "7 4 3"), 8, "out of range"),
        (SMALL.replace("3 4 3", "2 4 3"), 8, "twice"),
        (SMALL.replace("DIMENSION : 4", "DIMENSION : four"), 3, "DIMENSION"),
        (SMALL.replace("DIMENSION : 4", "DIMENSION : 4\nDIMENSION : 6"), 4, "DIMENSION given twice (first on line 3)"),
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


TYPES = ROOT / "instances" / "tsplib-types"


@pytest.mark.parametrize(
    ("name", "metric", "optimum"),
    [("att48", "ATT", 10628), ("ulysses16", "GEO", 6859), ("bayg29", "EXPLICIT", 1610), ("bays29", "EXPLICIT", 2020)],
)
def test_published_optimal_tours_of_each_edge_weight_type(name, metric, optimum):
    """TSPLIB95's optimal tours score their published lengths: ATT pseudo-Euclidean, GEO on the
    idealised sphere, EXPLICIT UPPER_ROW (bayg29) and FULL_MATRIX (bays29)."""
    tsp = read(TYPES / f"{name}.tsp")
    assert tsp.metric == metric
    verdict = tsp.evaluate(read_tour(TYPES / f"{name}.opt.tour"))
    assert verdict.feasible and verdict.objective == optimum


def test_gr24_lower_diag_row_has_its_published_optimum():
    """gr24 (EXPLICIT LOWER_DIAG_ROW) has no tour file; SCIP proves TSPLIB95's optimum, 1272."""
    import cosolve

    tsp = read(TYPES / "gr24.tsp")
    assert tsp.metric == "EXPLICIT" and tsp.coords is None and tsp.distances[23, 22] == 169
    result = cosolve.solve(tsp, method="scip", time_limit=60)
    assert result.status is cosolve.Status.OPTIMAL and result.objective == 1272


def test_display_data_places_the_cities_of_an_explicit_instance():
    tsp = read(TYPES / "bays29.tsp")
    assert tsp.coords is not None and tsp.coords[28].tolist() == [360.0, 1980.0]


def _symmetric(n: int, seed: int = 0) -> np.ndarray:
    w = np.random.default_rng(seed).integers(1, 1000, (n, n)).astype(float)
    w = np.triu(w, 1)
    return w + w.T


@pytest.mark.parametrize(
    ("written", "declared"),
    [("FULL_MATRIX", "FULL_MATRIX"), ("UPPER_ROW", "UPPER_ROW"), ("LOWER_ROW", "LOWER_ROW"),
     ("UPPER_DIAG_ROW", "UPPER_DIAG_ROW"), ("LOWER_DIAG_ROW", "LOWER_DIAG_ROW"), ("LOWER_ROW", "UPPER_COL"),
     ("UPPER_ROW", "LOWER_COL"), ("LOWER_DIAG_ROW", "UPPER_DIAG_COL"), ("UPPER_DIAG_ROW", "LOWER_DIAG_COL")],
)  # fmt: skip
def test_every_edge_weight_format_reads_the_same_matrix(tmp_path, written, declared):
    """A column-wise format of a symmetric matrix lists the entries of the row-wise one named."""
    tsp = TSP(weights=_symmetric(6), metric="EXPLICIT", name="m")
    write_tsplib(tsp, tmp_path / "m.tsp", edge_weight_format=written)
    text = (tmp_path / "m.tsp").read_text().replace(f"FORMAT : {written}", f"FORMAT : {declared}")
    (tmp_path / "m.tsp").write_text(text)
    np.testing.assert_array_equal(read(tmp_path / "m.tsp").distances, tsp.distances)


def test_weights_may_wrap_across_lines_of_any_length(tmp_path):
    w = _symmetric(5, 1)
    entries = w[np.triu_indices(5, 1)].astype(int).tolist()
    body = "\n".join(" ".join(map(str, entries[k : k + 3])) for k in range(0, len(entries), 3))
    path = tmp_path / "wrap.tsp"
    header = "DIMENSION: 5\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
    path.write_text(f"{header}{body}\nEOF\n")
    np.testing.assert_array_equal(read(path).distances, w)


def test_ceil_2d_tours_match_brute_force(tmp_path):
    """CEIL_2D: every tour's length is the sum of ceil(euclidean) over its edges (checked on all
    tours of 6 cities), and the optimum found by SCIP is the brute-force minimum."""
    import itertools
    import math

    import cosolve

    coords = np.random.default_rng(4).uniform(0, 50, (6, 2)).round(2)
    tsp = TSP(coords, metric="CEIL_2D")
    write_tsplib(tsp, tmp_path / "c.tsp")
    again = read(tmp_path / "c.tsp")
    assert again.metric == "CEIL_2D" and np.array_equal(again.coords, coords)

    def length(tour):
        return sum(math.ceil(math.dist(coords[a], coords[b])) for a, b in zip(tour, tour[1:] + tour[:1], strict=True))

    best = math.inf
    for rest in itertools.permutations(range(1, 6)):
        tour = [0, *rest]
        assert again.evaluate(np.array(tour)).objective == length(tour)
        best = min(best, length(tour))
    assert cosolve.solve(again, method="scip", time_limit=30).objective == best


@pytest.mark.parametrize("metric", ["EUC_2D", "CEIL_2D", "ATT", "GEO"])
def test_coordinate_metrics_round_trip(tmp_path, metric):
    coords = np.random.default_rng(5).uniform(-80, 80, (9, 2)).round(2)
    tsp = TSP(coords, metric=metric, name="r")
    write_tsplib(tsp, tmp_path / "r.tsp")
    again = read(tmp_path / "r.tsp")
    assert again.metric == metric and np.array_equal(again.coords, coords)
    np.testing.assert_array_equal(again.distances, tsp.distances)


def test_explicit_round_trip_keeps_display_coordinates(tmp_path):
    coords = np.random.default_rng(6).uniform(0, 9, (5, 2))
    tsp = TSP(coords, metric="EXPLICIT", weights=_symmetric(5, 2), name="e")
    write_tsplib(tsp, tmp_path / "e.tsp", edge_weight_format="LOWER_DIAG_ROW")
    again = read(tmp_path / "e.tsp")
    assert np.array_equal(again.coords, coords) and np.array_equal(again.weights, tsp.weights)


EXPLICIT = """NAME : e
TYPE : TSP
DIMENSION : 3
EDGE_WEIGHT_TYPE : EXPLICIT
EDGE_WEIGHT_FORMAT : FULL_MATRIX
EDGE_WEIGHT_SECTION
0 1 2
1 0 3
2 3 0
EOF
"""


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        (EXPLICIT.replace("1 0 3", "1 0 4"), 9, "FULL_MATRIX is not symmetric: entry (3, 2) is 3 but (2, 3) is 4"),
        (EXPLICIT.replace("2 3 0\n", ""), 9, "truncated: EDGE_WEIGHT_SECTION has 6 of 9 weights"),
        (EXPLICIT.replace("2 3 0", "2 3 0 7"), 9, "more than the 9 weights"),
        (EXPLICIT.replace("1 0 3", "1 0 3.5"), 8, "weight 3.5 is not a non-negative integer"),
        (EXPLICIT.replace("1 0 3", "1 0 -3"), 8, "weight -3 is not"),
        (EXPLICIT.replace("1 0 3", "1 0 x"), 8, "expected a weight, got 'x'"),
        (EXPLICIT.replace("EDGE_WEIGHT_FORMAT : FULL_MATRIX\n", ""), 5, "needs an EDGE_WEIGHT_FORMAT before it"),
        (EXPLICIT.replace("FULL_MATRIX", "UPPER_ROWS"), 5, "EDGE_WEIGHT_FORMAT UPPER_ROWS is not supported"),
        (EXPLICIT.replace("EXPLICIT", "EUC_2D"), 4, "EDGE_WEIGHT_SECTION given, but EDGE_WEIGHT_TYPE is EUC_2D"),
        (EXPLICIT.replace("DIMENSION : 3", "DIMENSION : 20"), 6, "declares 400 weights (FULL_MATRIX, 20 cities), more than"),
    ],
)
def test_malformed_explicit(tmp_path, text, line, needle):
    path = tmp_path / "bad.tsp"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read(path)
    assert f"{path}:{line}:" in str(err.value) and needle in str(err.value), str(err.value)


def test_an_explicit_instance_without_coordinates_cannot_be_drawn():
    from cosolve.problems.tsp import draw_tour

    tsp = TSP(weights=_symmetric(4), metric="EXPLICIT", name="e")
    with pytest.raises(InputError, match="no coordinates to draw"):
        draw_tour(tsp, np.arange(4))


def test_bad_tsp_arguments_are_refused():
    with pytest.raises(InputError, match="metric must be one of"):
        TSP(np.zeros((3, 2)), metric="MAN_2D")
    with pytest.raises(InputError, match="exactly when the metric is EXPLICIT"):
        TSP(np.zeros((3, 2)), weights=np.zeros((3, 3)))
    with pytest.raises(InputError, match="not symmetric"):
        TSP(weights=np.array([[0, 1, 2], [1, 0, 3], [2, 4, 0]]), metric="EXPLICIT")


def test_coordinates_whose_distances_overflow_are_refused_and_the_file_is_named(tmp_path):
    # 1e300 is finite, but a distance of 1e300 is not an integer anything can add (it came back as a
    # negative tour length, reported optimal)
    with pytest.raises(InputError, match="below 2\\^53"):
        TSP(np.array([[0.0, 0.0], [1e300, 0.0], [0.0, 4.0]]))
    TSP(np.array([[0.0, 0.0], [1e15, 0.0], [0.0, 4.0]]))  # large, but exact
    TSP(np.array([[0.0, 0.0], [1e300, 0.0], [0.0, 4.0]]), metric="GEO")  # GEO distances are bounded
    path = tmp_path / "huge.tsp"
    header = "NAME : huge\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
    path.write_text(header + "NODE_COORD_SECTION\n1 0 0\n2 1e300 0\n3 0 4\nEOF\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}.*below 2\^53"):
        read(path)
