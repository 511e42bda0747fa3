"""MPS/LP through HiGHS: every problem kind written by SCIP reads back; set cover is detected."""

import gzip
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cosolve import Solver
from cosolve.core.result import Sense
from cosolve.errors import InputError
from cosolve.generators.graphs import erdos_renyi
from cosolve.generators.setcover import random_setcover
from cosolve.io import read, write_mps
from cosolve.problems import MIP, TSP, SetCover
from tests.io.model_texts import MPS


def test_setcover_mps_round_trip_is_detected(tmp_path, capfd):
    sc = random_setcover(12, 30, nnz=80, seed=2)
    for ext in ("mps", "lp", "mps.gz"):
        path = tmp_path / f"sc.{ext}"
        write_mps(sc, path)
        back = read(path)
        assert isinstance(back, SetCover), ext
        assert np.array_equal(back.costs, sc.costs) and (back.matrix != sc.matrix).nnz == 0
        assert back.name == "sc"
    forced = read(tmp_path / "sc.mps", problem="mip")
    assert isinstance(forced, MIP) and forced.n == 30 and forced.m == 12
    out = capfd.readouterr()
    assert out.out == "" and out.err == ""  # no HiGHS banner, no "wrote problem to file"


@pytest.mark.parametrize("kind", ["mis", "maxcut", "maxclique", "mds"])
def test_graph_models_read_back(tmp_path, kind):
    g = erdos_renyi(8, 0.4, problem=kind, seed=1)
    path = tmp_path / f"{kind}.mps"
    write_mps(g, path)
    back = read(path)
    if kind == "mds":  # a minimum dominating set is a unicost set cover of closed neighbourhoods
        assert isinstance(back, SetCover) and back.n_cols == 8 and back.unicost
        assert (back.matrix.toarray() == (g.adjacency.toarray() + np.eye(8))).all()
        back = read(path, problem="mip")
    assert isinstance(back, MIP)
    assert back.sense is g.sense
    assert back.integrality.all()
    best = Solver("scip", time_limit=30).solve(g).objective  # the model read back has the same optimum
    assert Solver("scip", time_limit=30).solve(back).objective == pytest.approx(best)


def test_tsp_compact_model_reads_back(tmp_path):
    tsp = TSP(np.array([[0, 0], [0, 3], [4, 3], [4, 0]]), name="square")
    path = tmp_path / "square.mps"
    write_mps(tsp, path)
    back = read(path)
    assert isinstance(back, MIP) and back.n == 4 * 3 + 4  # arcs y_ij and MTZ u_i
    assert (~back.integrality).sum() == 4
    assert Solver("scip", time_limit=30).solve(back).objective == pytest.approx(14.0)  # the square's tour


def test_mip_round_trip(tmp_path):
    path = tmp_path / "small.mps"
    path.write_text(MPS)
    mip = read(path)
    assert isinstance(mip, MIP)
    assert mip.var_names == ["x", "y"] and mip.integrality.tolist() == [True, False]
    assert mip.upper.tolist() == [3, 2.5] and mip.c.tolist() == [1, -2]
    assert mip.row_lower.tolist() == [1, -np.inf] and mip.row_upper.tolist() == [np.inf, 4]
    assert mip.evaluate(np.array([1.0, 2.0])).feasible
    write_mps(mip, tmp_path / "again.mps")
    again = read(tmp_path / "again.mps")
    assert np.array_equal(again.c, mip.c) and np.allclose(again.matrix.toarray(), mip.matrix.toarray())
    for field in ("integrality", "lower", "upper", "row_lower", "row_upper"):
        assert np.array_equal(getattr(again, field), getattr(mip, field)), field
    with pytest.raises(InputError, match="the model is not a set cover: "):
        read(path, problem="setcover")


def test_maximisation_is_kept(tmp_path):
    path = tmp_path / "max.lp"
    path.write_text("Maximize\n obj: 3 x + 2 y + 5\nSubject To\n c1: x + y <= 4\nBounds\n x <= 3\nGenerals\n x\nEnd\n")
    mip = read(path)
    assert mip.sense is Sense.MAXIMIZE and mip.offset == 5
    assert mip.evaluate(np.array([3.0, 1.0])).objective == 16


def test_gzipped_mps_without_gz_name(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(gzip.compress(MPS.encode()))
    plain = tmp_path / "plain.mps"
    plain.write_text(MPS)
    zipped, expected = read(path, format="mps"), read(plain)
    assert isinstance(zipped, MIP)
    assert np.array_equal(zipped.c, expected.c) and np.array_equal(zipped.matrix.toarray(), expected.matrix.toarray())
    assert np.array_equal(zipped.upper, expected.upper) and np.array_equal(zipped.row_lower, expected.row_lower)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("garbage\nfoo bar\n", ":1:"),
        (MPS.replace("x obj 1 c1 1", "x obj abc c1 1"), ":8:"),
        (MPS.replace(" UP bnd x 3", " XX bnd x 3"), ":15:"),
        (MPS.replace(" G c1", " Q c1"), ":4:"),
        (MPS.replace("    rhs c1 1 c2 4", "    rhs c1 one"), ":13:"),
    ],
)
def test_malformed_mps_names_the_line(tmp_path, text, where):
    path = tmp_path / "bad.mps"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read(path)
    assert f"{path}{where}" in str(err.value)


def test_mps_errors_from_highs(tmp_path):
    path = tmp_path / "undefined.mps"
    path.write_text(MPS.replace("x c2 2", "x c9 2"))  # HiGHS only warns and ignores the entry
    with pytest.raises(InputError, match=re.escape(str(path))):
        read(path)
    empty = tmp_path / "empty.mps"
    empty.write_text("")
    with pytest.raises(InputError, match=re.escape(str(empty))):
        read(empty)


def test_lp_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "bad.lp"
    path.write_text("minimize\n obj: x + y\nsubject to\n c1: x + y >=\nbounds\nend\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:5: "):
        read(path)


def test_reading_mps_prints_nothing_in_a_fresh_process(tmp_path):
    path = tmp_path / "small.mps"
    path.write_text(MPS)
    code = "import sys; from cosolve.io import read; print(type(read(sys.argv[1])).__name__)"
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=root, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "MIP\n" and proc.stderr == ""  # no HiGHS banner or log


def test_an_mps_file_cut_before_endata_is_refused_at_its_last_line(tmp_path):
    path = tmp_path / "cut.mps"
    path.write_text(MPS.replace(" UP bnd y 2.5\nENDATA\n", ""))
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:15: truncated: the file ends before its ENDATA line"):
        read(path)
