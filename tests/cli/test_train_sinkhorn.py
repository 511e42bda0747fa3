"""``cosolve train gumbel-sinkhorn`` on folders of the user's files: jigsaw puzzles (the checkpoint,
model card and resumable state it promises, a resumed run, a solve with the result) and TSP
instances (trains until ``--time`` by default; the card names the instances really held out)."""

import pytest

from cosolve.cli.main import main
from cosolve.generators.tsp import random_tsp
from cosolve.io.jigsawfile import write_jigsaw
from cosolve.io.tsplib import write_tsplib
from cosolve.methods.sinkhorn.jigsaw_net import synthetic_puzzles


def test_train_on_jigsaw_files_writes_model_card_and_state_then_resumes_and_solves(tmp_path, capsys):
    data, out = tmp_path / "jig", tmp_path / "gs_jig"
    data.mkdir()
    for i, puzzle in enumerate(synthetic_puzzles(6, k=2, size=8, seed=1)):
        write_jigsaw(puzzle, data / f"p{i}.npz")
    args = ["train", "gumbel-sinkhorn", "--data", str(data), "--time", "60", "--out", str(out), "--no-progress",
            "--set", "batch_size=2", "--set", "validate_every=0"]  # fmt: skip
    assert main([*args, "--set", "steps=3"]) == 0
    printed = capsys.readouterr().out
    assert "trained 3 iterations" in printed and f"wrote {out / 'model.pt'}" in printed
    assert {"model.pt", "README.md", "training.pt"} <= {p.name for p in out.iterdir()}
    card = (out / "README.md").read_text()
    assert "Gumbel–Sinkhorn checkpoint: jigsaw" in card and "6 jigsaw instances from" in card
    assert "on 1 held-out instance)" in card
    assert main([*args, "--set", "steps=5", "--resume"]) == 0
    assert "trained 5 iterations" in capsys.readouterr().out
    assert main(["solve", str(data / "p0.npz"), "--method", "gumbel-sinkhorn", "--time", "5", "--set", f"checkpoint={out}"]) == 0


def test_train_on_tsp_files_runs_until_the_time_and_the_card_counts_the_held_out(tmp_path, capsys):
    data, out = tmp_path / "tsp", tmp_path / "gs_tsp"
    data.mkdir()
    for seed, n in enumerate((14, 16, 18, 20, 22, 24)):
        write_tsplib(random_tsp(n, seed=seed), data / f"t{seed}.tsp")
    args = ["train", "gumbel-sinkhorn", "--data", str(data), "--time", "1", "--out", str(out), "--no-progress",
            "--set", "neighbors=6", "--set", "batch_size=2"]  # fmt: skip
    assert main(args) == 0
    card = (out / "README.md").read_text()
    assert "| steps | 0 |" in card and "| iterations | 10 |" in card  # steps=auto: no step limit, the whole --time
    assert "6 tsp instances from" in card and "(1 held out for validation)" in card
    validation = next(line for line in card.splitlines() if line.startswith("- validation"))
    assert "on 1 held-out instance)" in validation and "16" not in validation


def test_train_help_says_steps_default_to_the_training_time(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--set steps=<int> (default auto): training steps of fit (auto: until the training time" in out
