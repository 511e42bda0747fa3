"""Jigsaw puzzle files (.npz): round trips, the bundled puzzles, one-line errors, the CLI route."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cosolve.errors import InputError, UsageError
from cosolve.io import read, read_solution
from cosolve.io.jigsawfile import read_jigsaw, write_jigsaw
from cosolve.problems.jigsaw import Jigsaw, cut

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "instances" / "jigsaw").glob("*.npz"))


def _gradient_image(size: int = 24, colour: bool = True) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size] / (size - 1)
    grey = 0.5 * x + 0.3 * y * y + 0.2 * np.sin(3 * x * y)
    return np.stack([grey, 1 - grey, x * y], axis=-1) if colour else grey


@pytest.mark.parametrize("uint8", [True, False])
def test_round_trip_keeps_pieces_grid_and_truth(tmp_path, uint8):
    image = _gradient_image()
    image = np.round(image * 255).astype(np.uint8) if uint8 else image
    problem = cut(image, 3, seed=4)
    path = tmp_path / "p.npz"
    write_jigsaw(problem, path)
    back = read(path)
    assert isinstance(back, Jigsaw) and back.name == "p" and back.grid == (3, 3)
    np.testing.assert_array_equal(back.truth, problem.truth)
    np.testing.assert_allclose(back.pieces, problem.pieces, rtol=0, atol=1e-15)
    with np.load(path) as stored:
        assert stored["pieces"].dtype == (np.uint8 if uint8 else np.float64)


def test_grey_pieces_and_no_truth(tmp_path):
    problem = Jigsaw(_gradient_image(colour=False).reshape(4, 6, 4, 6).transpose(0, 2, 1, 3).reshape(16, 6, 6)[:4], (2, 2))
    path = tmp_path / "grey.npz"
    write_jigsaw(problem, path)
    back = read(path, problem="jigsaw")
    assert back.truth is None and back.pieces.shape == (4, 6, 6, 1)
    assert back.discontinuity(np.arange(4)) == pytest.approx(problem.discontinuity(np.arange(4)))
    assert back.info()["truth"] == "no" and back.info()["channels"] == 1
    assert read(BUNDLED[0]).info()["truth"] == "yes"


def test_format_is_told_from_content_without_the_extension(tmp_path):
    path = tmp_path / "puzzle.bin"
    write_jigsaw(cut(_gradient_image(), 2, seed=0), path)
    assert read(path).kind == "jigsaw"
    with pytest.raises(InputError, match="holds jigsaw reassembly instances, not mis"):
        read(path, problem="mis")


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_puzzles_are_solved_to_their_truth(path):
    import cosolve

    problem = read_jigsaw(path)
    truth_value = problem.discontinuity(problem.truth)
    result = cosolve.solve(path, method="gumbel-sinkhorn", time_limit=0.5)  # the truth comes within 20 ms
    assert problem.evaluate(result.solution).feasible
    assert result.objective <= truth_value + 1e-9
    assert np.array_equal(result.solution, problem.truth)


def _bad_files(folder: Path) -> dict[str, tuple[Path, str]]:
    cases = {}

    def case(name, writer, message):
        path = folder / f"{name}.npz"
        writer(path)
        cases[name] = (path, message)

    case("text", lambda p: p.write_text("hello"), "does not start as a zip file")
    case("npy", lambda p: p.write_bytes(b"\x93NUMPY" + b"\0" * 20), "a single .npy array")
    case("truncated", lambda p: p.write_bytes(b"PK\x03\x04" + b"\0" * 30), "not a readable .npz archive")
    case("no-grid", lambda p: np.savez(p, pieces=np.zeros((4, 3, 3))), "missing grid")
    case("wrong-count", lambda p: np.savez(p, pieces=np.zeros((4, 3, 3)), grid=np.array([2, 3])), "2 x 3 grid holds 6 piece")
    case("grid-shape", lambda p: np.savez(p, pieces=np.zeros((4, 3, 3)), grid=np.array([2, 2, 1])), "grid must be two integers")
    case("grid-float", lambda p: np.savez(p, pieces=np.zeros((4, 3, 3)), grid=np.array([2.0, 2.0])), "grid must be integers")
    case("objects", lambda p: np.savez(p, pieces=np.array([None, 1], dtype=object), grid=np.array([1, 2])), "not a readable")
    case("range", lambda p: np.savez(p, pieces=np.full((4, 3, 3), 2.0), grid=np.array([2, 2])), r"must lie in \[0, 1\]")
    case("nan", lambda p: np.savez(p, pieces=np.full((4, 3, 3), np.nan), grid=np.array([2, 2])), "NaN")
    case("ints", lambda p: np.savez(p, pieces=np.zeros((4, 3, 3), dtype=np.int32), grid=np.array([2, 2])), "uint8 or float")
    case("not-square", lambda p: np.savez(p, pieces=np.zeros((4, 3, 5)), grid=np.array([2, 2])), r"shape \(p, s, s")
    bad_truth = dict(pieces=np.zeros((4, 3, 3)), grid=np.array([2, 2]), truth=np.array([0, 0, 1, 2]))
    case("truth", lambda p: np.savez(p, **bad_truth), "truth is not a permutation")
    return cases


def test_malformed_files_get_one_line_errors_naming_the_file(tmp_path):
    for name, (path, message) in _bad_files(tmp_path).items():
        with pytest.raises(InputError, match=message) as info:
            read(path)
        text = str(info.value)
        assert text.startswith(str(path)) and "\n" not in text, name


def test_unknown_problem_name_lists_jigsaw():
    with pytest.raises(UsageError, match="jigsaw"):
        read(BUNDLED[0], problem="puzzle")


def test_cli_solves_a_puzzle_file_and_plots_it(tmp_path):
    picture = tmp_path / "before-after.png"
    solution = tmp_path / "coffee.sol"
    cmd = [sys.executable, "-m", "cosolve", "solve", str(ROOT / "instances/jigsaw/coffee-4x4.npz"), "--method",
           "gumbel-sinkhorn", "--time", "0.5", "--json", "--plot", str(picture), "--output", str(solution)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    problem = read(ROOT / "instances/jigsaw/coffee-4x4.npz")
    assert result["problem"] == "jigsaw" and result["objective"] == pytest.approx(problem.discontinuity(problem.truth))
    assert result["pieces_in_place"] == 16
    assert picture.read_bytes()[:4] == b"\x89PNG"
    assert read_solution(problem, solution).tolist() == problem.truth.tolist()
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    proc = subprocess.run(
        [sys.executable, "-m", "cosolve", "solve", str(bad), "--method", "gumbel-sinkhorn"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "does not start as a zip file" in proc.stderr


@pytest.mark.parametrize(
    ("pieces", "grid", "message"),
    [
        (np.zeros((4, 8, 8, 2)), (2, 2), "1 \\(grey\\), 3 \\(RGB\\) or 4 \\(RGBA\\) channels, got 2"),
        (np.zeros((16, 8, 8)), (-4, -4), "at least 1 row and 1 column, got -4 x -4"),
        (np.zeros((1, 8, 8)), (1, 1), "holds 1 piece\\(s\\), got 1 \\(a puzzle needs at least 2\\)"),
        (np.full((4, 8, 8, 3), 255.0), (2, 2), "must lie in \\[0, 1\\], got 255 .. 255"),
    ],
)
def test_bad_puzzles_are_refused(pieces, grid, message):
    with pytest.raises(InputError, match=message):
        Jigsaw(pieces, grid)


def test_cut_takes_uint8_or_scaled_floats_only():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (24, 24, 3))
    puzzle = cut(image.astype(np.uint8), 3)
    assert np.allclose(puzzle.reassemble(puzzle.truth), image / 255.0)
    assert np.allclose(cut(image / 255.0, 3).pieces, puzzle.pieces)
    with pytest.raises(InputError, match="uint8 or float in \\[0, 1\\], got int64"):
        cut(image, 3)
    with pytest.raises(InputError, match="must lie in \\[0, 1\\]"):
        cut(image.astype(float), 3)  # 0..255 floats: not wrapped or clipped, refused


def test_cli_export_of_a_puzzle_is_a_one_line_error(tmp_path):
    target = tmp_path / "j.mps"
    cmd = [sys.executable, "-m", "cosolve", "export", str(BUNDLED[0]), str(target)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no MIP model" in proc.stderr
    assert not target.exists()


def test_cli_picture_that_cannot_be_written_keeps_the_summary(tmp_path, monkeypatch, capsys):
    import cosolve.cli.plots
    from cosolve.cli.main import main

    def failing_write(problem, solution, path, *, title=""):  # the folder passed its check; the write fails
        raise InputError("cannot write the picture", where=path)

    monkeypatch.setattr(cosolve.cli.plots, "plot_solution", failing_write)
    picture = tmp_path / "puzzle.png"
    args = ["solve", str(BUNDLED[0]), "--method", "gumbel-sinkhorn", "--time", "0.5", "--plot", str(picture)]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert "status       " in out and "plot         (not written, see the error)" in out  # the summary came first
    assert err.count("\n") == 1 and "puzzle.png: cannot write the picture" in err and not picture.exists()


def test_an_array_header_declaring_more_than_the_archive_holds_is_refused(tmp_path):
    """A .npy header inside the zip claiming 10^12 pieces is refused before numpy allocates them."""
    import io
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (10**12,)})
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pieces.npy", header.getvalue() + b"\0" * 16)
        archive.writestr("grid.npy", b"")
    with pytest.raises(InputError, match=r"array pieces declares shape \(1000000000000,\)"):
        read(path)
