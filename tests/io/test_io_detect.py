"""Format detection, file errors, problem checks, and solution files."""

import re
from pathlib import Path

import numpy as np
import pytest

from cosolve.errors import InputError, UsageError
from cosolve.generators.graphs import erdos_renyi
from cosolve.generators.setcover import random_setcover
from cosolve.io import FORMATS, read, read_solution, write_solution
from cosolve.io.detect import sniff_format
from cosolve.problems import MIP, TSP, MaximumClique, SetCover

ORLIB = "3 4\n1 2 3 4\n2 1 2\n1 3\n2 2 4\n"
RAIL = "3 2\n2 2 1 2\n3 2 2 3\n"
DIMACS = "c tiny\np edge 3 2\ne 1 2\ne 2 3\n"
TSPLIB = "NAME : t\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\nEOF\n"
MPS = "NAME m\nROWS\n N obj\n G c\nCOLUMNS\n x obj 1 c 1\nRHS\n rhs c 1\nENDATA\n"
LP = "minimize\n obj: 2 x + y\nsubject to\n c: x + y >= 1\nend\n"


@pytest.mark.parametrize(
    ("text", "problem", "expected"),
    [
        (ORLIB, None, "numbers"),
        (RAIL, None, "numbers"),
        (DIMACS, "mis", "dimacs"),
        (TSPLIB, None, "tsplib"),
        (MPS, None, "mps"),
        (LP, None, "lp"),
        ("# graph\n1 2\n2 3\n", "mis", "edgelist"),
        ("1 2\n2 3\n", "mds", "edgelist"),
        ("1 2\n2 3\n", None, "numbers"),  # orlib or rail, told apart by reading it all
        (ORLIB, "mis", "numbers"),  # long lines: not an edge list
    ],
)
def test_sniffing(tmp_path, text, problem, expected):
    path = tmp_path / "instance.dat"
    path.write_text(text)
    assert sniff_format(path, problem) == expected


def test_detected_reads(tmp_path):
    files = {"a.txt": ORLIB, "b.txt": RAIL, "c.txt": DIMACS, "d.txt": TSPLIB, "e.txt": MPS, "f.txt": LP}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    orlib, rail = read(tmp_path / "a.txt"), read(tmp_path / "b.txt")
    assert isinstance(orlib, SetCover) and orlib.costs.tolist() == [1, 2, 3, 4]
    assert orlib.matrix.toarray().tolist() == [[1, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 1]]
    assert isinstance(rail, SetCover) and rail.costs.tolist() == [2, 3]
    assert isinstance(read(tmp_path / "c.txt", problem="maxclique"), MaximumClique)
    assert isinstance(read(tmp_path / "d.txt"), TSP)
    assert isinstance(read(tmp_path / "e.txt"), MIP)  # x is continuous: not a set cover
    assert isinstance(read(tmp_path / "f.txt"), MIP)


def test_extensions_win_over_content(tmp_path):
    path = tmp_path / "numbers.edges"
    path.write_text("1 2\n2 3\n")
    with pytest.raises(InputError, match="--problem"):
        read(path)
    assert read(path, problem="mis").n == 3


def test_file_errors(tmp_path):
    with pytest.raises(InputError, match=r"nosuch\.txt: no such file"):
        read(tmp_path / "nosuch.txt")
    with pytest.raises(InputError, match=re.escape(f"{tmp_path}: is a directory")):
        read(tmp_path)
    for name in ("empty.tsp", "empty.col", "empty.txt"):  # not "no EDGE_WEIGHT_TYPE" or "cannot tell the format"
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(InputError, match=rf"{name}: empty file$"):
            read(tmp_path / name, problem="mis" if name.endswith(".col") else None)
    odd = tmp_path / "odd.txt"
    odd.write_text("hello world\n")
    with pytest.raises(InputError, match=r"cannot tell the format .*--format"):
        read(odd)


def test_unknown_format_and_problem(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text(ORLIB)
    with pytest.raises(UsageError, match="valid formats: " + ", ".join(FORMATS)):
        read(path, format="xlsx")
    with pytest.raises(UsageError, match="valid problems"):
        read(path, problem="knapsack")


def test_problem_must_match_the_file(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text(ORLIB)
    assert isinstance(read(path, problem="setcover"), SetCover)
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}: .*set cover.*not mis"):
        read(path, problem="mis")
    tsp = tmp_path / "t.tsp"
    tsp.write_text(TSPLIB)
    with pytest.raises(InputError, match="not setcover"):
        read(tsp, problem="setcover")


def test_explicit_format_overrides_detection(tmp_path):
    path = tmp_path / "both.txt"
    path.write_text("2 2\n3 1\n1 1\n1 2\n")  # orlib: costs 3, 1; rail: column costs 3, 1 too but rows differ
    orlib = read(path, format="orlib")
    assert orlib.costs.tolist() == [3, 1] and orlib.matrix.toarray().tolist() == [[1, 0], [0, 1]]
    path.write_text("2 2\n3 2 1 2\n1 1 2\n")  # rail only: orlib would have an extra number
    with pytest.raises(InputError, match="extra number"):
        read(path, format="orlib")
    assert read(path, format="rail").costs.tolist() == [3, 1]
    with pytest.raises(InputError):
        read(path, format="tsplib")


def test_solution_round_trips(tmp_path):
    sc = random_setcover(6, 10, nnz=30, seed=0)
    x = np.ones(10, dtype=np.int8)
    x[3] = 0
    write_solution(sc, x, tmp_path / "sc.sol")
    lines = (tmp_path / "sc.sol").read_text().splitlines()
    assert lines[0].startswith("# cosolve solution: problem=setcover") and "4" not in lines[1:]
    assert np.array_equal(read_solution(sc, tmp_path / "sc.sol"), x)

    (tmp_path / "g.edges").write_text("10 20\n20 30\n")
    g = read(tmp_path / "g.edges", problem="mis")
    y = np.array([1, 0, 1], dtype=np.int8)
    write_solution(g, y, tmp_path / "g.sol")
    assert (tmp_path / "g.sol").read_text().splitlines()[1:] == ["10", "30"]
    assert np.array_equal(read_solution(g, tmp_path / "g.sol"), y)

    tsp = TSP(np.array([[0, 0], [0, 1], [1, 1], [1, 0]]))
    tour = np.array([2, 3, 0, 1])
    write_solution(tsp, tour, tmp_path / "t.sol")
    assert np.array_equal(read_solution(tsp, tmp_path / "t.sol"), tour)

    (tmp_path / "m.lp").write_text(LP.replace("end", "general\n x\nend"))
    mip = read(tmp_path / "m.lp")
    z = np.array([1.0, 0.0])
    write_solution(mip, z, tmp_path / "m.sol")
    assert np.array_equal(read_solution(mip, tmp_path / "m.sol"), z)


def test_bad_solution_file(tmp_path):
    sc = random_setcover(6, 10, nnz=30, seed=0)
    path = tmp_path / "bad.sol"
    path.write_text("# header\n1\n11\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:3: column 11 out of range"):
        read_solution(sc, path)
    g = erdos_renyi(4, 0.5, seed=0)
    path.write_text("1\n9\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:2: "):
        read_solution(g, path)


def test_an_item_listed_twice_is_a_bad_solution_file(tmp_path):
    # listed twice, a node counted once made an independent set look feasible with half its lines
    path = tmp_path / "twice.sol"
    at = re.escape(str(path))
    sc = random_setcover(6, 10, nnz=30, seed=0)
    path.write_text("# header\n2\n5\n2\n")
    with pytest.raises(InputError, match=rf"{at}:4: column 2 listed twice \(first on line 2\)"):
        read_solution(sc, path)
    (tmp_path / "g.edges").write_text("10 20\n20 30\n")
    g = read(tmp_path / "g.edges", problem="mis")
    path.write_text("10\n10\n")
    with pytest.raises(InputError, match=rf"{at}:2: node 10 listed twice"):
        read_solution(g, path)
    (tmp_path / "m.lp").write_text(LP.replace("end", "general\n x\nend"))
    path.write_text("x 1\nx 0\n")
    with pytest.raises(InputError, match=rf"{at}:2: variable x listed twice"):
        read_solution(read(tmp_path / "m.lp"), path)


def test_a_tour_that_repeats_misses_or_invents_a_city_is_read_and_judged_infeasible(tmp_path):
    tsp = TSP(np.array([[0, 0], [0, 1], [1, 1], [1, 0]]))
    path = tmp_path / "t.sol"
    cases = {
        "1\n2\n2\n3\n": "city 4 is not visited exactly once",
        "1\n2\n3\n": "the tour has 3 cities; the instance has 4",
        "1\n2\n3\n9\n": "outside 1..4",
    }
    for text, violation in cases.items():
        path.write_text(text)
        verdict = tsp.evaluate(read_solution(tsp, path))
        assert not verdict.feasible and violation in verdict.violation
    path.write_text("1\n2\n3\n4\n1\n")  # a closed tour: the last line repeats the first city
    assert read_solution(tsp, path).tolist() == [0, 1, 2, 3] and tsp.evaluate(read_solution(tsp, path)).feasible
    tour_file = tmp_path / "short.tour"
    tour_file.write_text("TYPE : TOUR\nDIMENSION : 3\nTOUR_SECTION\n1\n2\n3\n-1\nEOF\n")
    verdict = tsp.evaluate(read_solution(tsp, tour_file))
    assert not verdict.feasible and "the tour has 3 cities" in verdict.violation
    path.write_text("1\ntwo\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:2: "):  # not a tour at all: a bad file
        read_solution(tsp, path)


def test_write_is_atomic(tmp_path, monkeypatch):
    import builtins

    import cosolve.io.files

    sc = random_setcover(6, 10, nnz=30, seed=0)
    path = tmp_path / "keep.sol"
    path.write_text("precious\n")
    with pytest.raises(InputError):
        write_solution(sc, np.ones(3), path)  # wrong shape: nothing written
    assert path.read_text() == "precious\n"

    class HalfWritten:  # a disk that fills up halfway through the file
        def __init__(self, file):
            self.file = file

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(cosolve.io.files, "open", lambda p, mode: HalfWritten(builtins.open(p, mode)), raising=False)  # noqa: SIM115
    with pytest.raises(InputError, match="No space left on device"):
        write_solution(sc, np.ones(10, dtype=np.int8), path)
    assert path.read_text() == "precious\n" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.sol"]
    monkeypatch.undo()
    write_solution(sc, np.ones(10, dtype=np.int8), path)
    assert path.read_text().startswith("# cosolve")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.sol"]  # no temporary left behind
    with pytest.raises(InputError, match="does not exist"):
        write_solution(sc, np.ones(10, dtype=np.int8), tmp_path / "no" / "x.sol")


@pytest.mark.parametrize("compress, suffix", [("gzip", ".gz"), ("bz2", ".bz2"), ("lzma", ".xz")])
@pytest.mark.parametrize("fmt", ["orlib", "rail", "mps", "dimacs", "rudy", "metis", "edgelist", "tsplib", "jigsaw"])
def test_every_format_reads_the_same_instance_gzipped_bzipped_or_xz_ed(tmp_path, fmt, compress, suffix):
    import importlib

    import scipy.sparse as sp

    from cosolve.generators.graphs import erdos_renyi
    from cosolve.io.formats import ALL_FORMATS
    from cosolve.problems import TSP, SetCover
    from cosolve.problems.jigsaw import Jigsaw

    rng = np.random.default_rng(0)
    problem, kind = {
        "orlib": (SetCover(np.arange(1.0, 6.0), sp.csr_array(np.eye(3, 5) + np.eye(3, 5, 1)), name="x"), None),
        "rail": (SetCover(np.arange(1.0, 6.0), sp.csr_array(np.eye(3, 5) + np.eye(3, 5, 1)), name="x"), None),
        "mps": (SetCover(np.arange(1.0, 6.0), sp.csr_array(np.eye(3, 5) + np.eye(3, 5, 1)), name="x"), None),
        "dimacs": (erdos_renyi(9, 0.4, problem="maxcut", seed=1, weighted=True), "maxcut"),
        "rudy": (erdos_renyi(9, 0.4, problem="maxcut", seed=1, weighted=True), "maxcut"),
        "metis": (erdos_renyi(9, 0.4, problem="maxcut", seed=1, weighted=True), "maxcut"),
        "edgelist": (erdos_renyi(9, 0.4, problem="maxcut", seed=1, weighted=True), "maxcut"),
        "tsplib": (TSP(rng.uniform(0, 50, (6, 2)), name="x"), None),
        "jigsaw": (Jigsaw(rng.random((4, 3, 3)), (2, 2), name="x"), None),
    }[fmt]
    plain = tmp_path / ("x" + {"mps": ".mps", "jigsaw": ".npz", "tsplib": ".tsp", "metis": ".graph"}.get(fmt, ".txt"))
    if fmt == "mps":
        from cosolve.io import write_mps

        write_mps(problem, plain)
    else:
        ALL_FORMATS[fmt].write(problem, plain)
    packed = tmp_path / (plain.name + suffix)
    with importlib.import_module(compress).open(packed, "wb") as f:
        f.write(plain.read_bytes())
    given = {"format": fmt} if fmt in ("orlib", "rail", "edgelist", "rudy") else {}
    a, b = read(plain, problem=kind, **given), read(packed, problem=kind, **given)
    assert type(a) is type(b) and b.name == a.name == "x" and a.info() == b.info()
    if isinstance(a, SetCover):
        assert np.array_equal(a.costs, b.costs) and (a.matrix != b.matrix).nnz == 0
    elif isinstance(a, TSP):
        assert np.array_equal(a.coords, b.coords)
    elif isinstance(a, Jigsaw):
        assert np.array_equal(a.pieces, b.pieces)
    else:
        assert np.array_equal(a.edges, b.edges) and np.array_equal(a.weights, b.weights)


@pytest.mark.parametrize("magic, name", [(b"\x1f\x8b", "gzip"), (b"BZh9", "bz2"), (b"\xfd7zXZ\x00", "xz")])
def test_corrupt_compressed_data_is_a_one_line_error(tmp_path, magic, name):
    path = tmp_path / "x.txt"
    path.write_bytes(magic + b"garbage that is not a compressed stream" * 3)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: corrupt {name} data"):
        read(path, format="orlib")


def test_a_problem_the_file_cannot_hold_names_the_formats_users_know():
    # the sniffer's own format for numeric text ("numbers") is orlib or rail to a user
    with pytest.raises(InputError, match=r"the file \(orlib or rail\) holds set cover instances, not mip"):
        read(Path(__file__).resolve().parents[2] / "instances" / "setcover" / "scp41.txt", problem="mip")
