"""``cosolve generate`` and ``cosolve train``: files, refusals, one-line errors."""

import subprocess
import sys

from cosolve.io import read


def cosolve(*args):
    return subprocess.run([sys.executable, "-m", "cosolve", *map(str, args)], capture_output=True, text=True, timeout=300)


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


def test_generate_rejects_unknown_distributions():
    proc = cosolve("generate", "rb-medium", "--out", "x")
    assert proc.returncode == 2 and "valid: rb-small" in proc.stderr and "Traceback" not in proc.stderr


def test_train_errors_are_one_line(tmp_path):
    cases = [
        (("train", "rlsa", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", tmp_path), "trainable: cam"),
        (("train", "cam", "--problem", "tsp", "--dist", "rb-small", "--time", "1", "--out", tmp_path), "unknown graph problem"),
        (("train", "cam", "--problem", "mis", "--dist", "rb", "--time", "1", "--out", tmp_path), "unknown graph distribution"),
        (
            ("train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", tmp_path, "--set", "width=3"),
            "unknown hyperparameter",
        ),
        (
            ("train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", tmp_path, "--set", "hidden=x"),
            "expected int",
        ),
        (("train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "-1", "--out", tmp_path), "--time"),
    ]
    for args, message in cases:
        proc = cosolve(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_train_writes_a_checkpoint_with_its_model_card_and_keeps_existing_ones(tmp_path):
    out = tmp_path / "ckpt"
    args = ("train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "3", "--out", out, "--no-progress",
            "--set", "hidden=8", "--set", "layers=1", "--set", "validation_graphs=2", "--set", "graphs=1")  # fmt: skip
    proc = cosolve(*args)
    assert proc.returncode == 0, proc.stderr
    card = (out / "README.md").read_text()
    assert "mis on rb-small" in card and "cosolve train cam --problem mis" in card and "| hidden | 8 |" in card
    before = (out / "model.pt").read_bytes()
    again = cosolve(*args)
    assert again.returncode == 2 and "already holds a checkpoint" in again.stderr
    assert (out / "model.pt").read_bytes() == before
    solve = cosolve("generate", "rb-small", "--count", "1", "--out", tmp_path / "g")
    assert solve.returncode == 0
    result = cosolve("solve", tmp_path / "g" / "rb-small-0.col", "--problem", "mis", "--method", "cam", "--time", "1",
                     "--set", f"checkpoint={out}", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"status": "feasible"' in result.stdout


def test_train_does_not_replace_a_readme_in_its_out_folder(tmp_path):
    (tmp_path / "README.md").write_text("my own notes")
    proc = cosolve("train", "cam", "--problem", "mis", "--dist", "rb-small", "--time", "1", "--out", tmp_path, "--no-progress")
    assert proc.returncode == 2 and "README.md" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert (tmp_path / "README.md").read_text() == "my own notes" and not (tmp_path / "model.pt").exists()
