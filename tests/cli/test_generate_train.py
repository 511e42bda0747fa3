"""``cosolve generate`` and ``cosolve train``: files, refusals, one-line errors, training on a
folder of the user's own instance files (DIMACS graphs for cam, OR-Library set covers for glns)."""

import subprocess
import sys

import numpy as np
import pytest

from cosolve.cli.main import main
from cosolve.generators.graphs import erdos_renyi
from cosolve.generators.setcover import random_setcover
from cosolve.io import read
from cosolve.io.graphfiles import write_dimacs
from cosolve.io.orlib import write_orlib

TINY_CAM = ["hidden=8", "layers=1", "validation_graphs=2", "graphs=2", "train_steps=4", "train_chains=2"]


def cosolve(*args):
    return subprocess.run([sys.executable, "-m", "cosolve", *map(str, args)], capture_output=True, text=True, timeout=300)


def sets(*assignments):
    return [a for item in assignments for a in ("--set", item)]


def test_generate_writes_readable_graphs_and_refuses_to_overwrite(tmp_path):
    proc = cosolve("generate", "ba-small", "--count", "2", "--first-seed", "5", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    files = sorted(tmp_path.glob("*.col"))
    assert [f.name for f in files] == ["ba-small-5.col", "ba-small-6.col"]
    graph = read(files[0], problem="maxcut")
    assert 200 <= graph.n <= 300
    before = files[0].read_text()
    again = cosolve("generate", "ba-small", "--count", "2", "--first-seed", "5", "--out", tmp_path)
    assert again.returncode == 2 and "--overwrite" in again.stderr and len(again.stderr.splitlines()) == 1
    assert files[0].read_text() == before


def test_generate_writes_set_covers_in_the_or_library_format(tmp_path, capsys):
    assert main(["generate", "balas-ho", "--count", "1", "--out", str(tmp_path)]) == 0
    cover = read(tmp_path / "balas-ho-0.txt")
    assert cover.kind == "setcover" and 50 <= cover.n_rows <= 200


def test_generate_rejects_unknown_distributions(capsys):
    assert main(["generate", "rb-medium", "--out", "x"]) == 2
    assert "valid: rb-small" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "rlsa", "--problem", "mis", "--dist", "rb-small"], "trainable: cam"),
        (["train", "cam", "--problem", "tsp", "--dist", "rb-small"], "method cam does not solve tsp problems"),
        (["train", "cam", "--problem", "mis", "--dist", "rb"], "unknown distribution 'rb'"),
        (["train", "cam", "--problem", "mis"], "cam needs --data FOLDER or --dist NAME"),
        (["train", "cam", "--problem", "mis", "--dist", "rb-small", *sets("width=3")], "unknown option 'width' for method cam"),
        (["train", "cam", "--problem", "mis", "--dist", "rb-small", *sets("hidden=x")], "expected int"),
        (["train", "cam", "--problem", "mis", "--data", "/no/such/folder"], "not a folder of instance files"),
        (["train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "-1"], "--time"),
        (
            ["train", "glns", "--dist", "rb-small"],
            "distribution rb-small makes mis, maxcut, maxclique, mds instances, not setcover",
        ),
    ],
)
def test_train_errors_are_one_line(tmp_path, capsys, args, message):
    if "--time" not in args:
        args = [*args, "--time", "1"]
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_train_help_lists_the_training_options(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "cam (maxclique, maxcut, mds, mis):" in out and "--set train_steps=<int>" in out
    assert "glns (setcover):" in out and "--set noise_min=<float>" in out


def test_train_cam_on_a_folder_of_dimacs_files_then_solve_with_it(tmp_path):
    data, out = tmp_path / "graphs", tmp_path / "model"
    data.mkdir()
    for seed in range(6):
        write_dimacs(erdos_renyi(40, 0.1, problem="mis", seed=seed), data / f"er40-{seed}.col")
    args = ("train", "cam", "--problem", "mis", "--data", data, "--time", "60", "--out", out, "--no-progress",
            *sets(*TINY_CAM, "iterations=3"))  # fmt: skip
    proc = cosolve(*args)
    assert proc.returncode == 0, proc.stderr
    assert "trained 3 iterations" in proc.stdout and f"wrote {out / 'model.pt'}" in proc.stdout
    card = (out / "README.md").read_text()
    assert "6 mis instances from" in card and "cosolve train cam --problem mis --data" in card and "| hidden | 8 |" in card
    before = (out / "model.pt").read_bytes()
    again = cosolve(*args)
    assert again.returncode == 2 and "already holds a checkpoint" in again.stderr
    assert (out / "model.pt").read_bytes() == before
    result = cosolve("solve", data / "er40-0.col", "--problem", "mis", "--method", "cam", "--time", "0.5",
                     "--set", f"checkpoint={out}", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"status": "feasible"' in result.stdout


def test_train_glns_on_a_folder_of_or_library_files_and_resume(tmp_path, capsys):
    data, out = tmp_path / "covers", tmp_path / "model"
    data.mkdir()
    for seed in range(4):
        write_orlib(random_setcover(30, 150, density=0.08, seed=seed), data / f"cover{seed}.txt")
    args = ["train", "glns", "--data", str(data), "--time", "60", "--out", str(out), "--no-progress",
            *sets("iterations=2", "validation_instances=1", "instances=2", "validate_every=0")]  # fmt: skip
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "trained 2 iterations" in first and (out / "training.pt").is_file()
    assert main([*args, "--resume"]) == 2  # the saved run already reached its iteration limit: nothing to train
    assert "at or past its iteration limit of 2" in capsys.readouterr().err
    more = [a if a != "iterations=2" else "iterations=3" for a in args]
    assert main([*more, "--resume"]) == 0
    assert "trained 3 iterations" in capsys.readouterr().out
    assert "4 setcover instances from" in (out / "README.md").read_text()
    assert np.isfinite(read(data / "cover0.txt").costs).all()


def test_train_does_not_replace_a_readme_in_its_out_folder(tmp_path, capsys):
    (tmp_path / "README.md").write_text("my own notes")
    assert main(["train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "README.md" in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "README.md").read_text() == "my own notes" and not (tmp_path / "model.pt").exists()


def test_train_refuses_a_solve_option_it_would_ignore(tmp_path, capsys):
    out = tmp_path / "model"
    args = ["train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", str(out), "--set", "chains=4"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "chains: solve option(s) of cam, which training does not use" in err
    assert not out.exists()


def test_fit_into_a_folder_with_a_checkpoint_needs_overwrite_and_the_card_names_the_options(tmp_path):
    from cosolve import Solver, UsageError

    graphs = [erdos_renyi(20, 0.2, problem="mis", seed=s) for s in range(4)]
    solver = Solver("cam", problem="mis", train_time=60, iterations=1, train_chains=4, validate_every=0, hidden=8)
    solver.fit(graphs, out=tmp_path, progress=False)
    card = (tmp_path / "README.md").read_text()
    assert "| train_chains | 4 |" in card and "| chains |" not in card  # the option's name, not the config field's
    before = (tmp_path / "model.pt").read_bytes()
    with pytest.raises(UsageError, match=r"already holds a checkpoint .*overwrite=True"):
        solver.fit(graphs, out=tmp_path, progress=False)
    assert (tmp_path / "model.pt").read_bytes() == before
    solver.fit(graphs, out=tmp_path, overwrite=True, progress=False)
    assert (tmp_path / "model.pt").is_file()
