"""``cosolve conjoint optimize``: JSON output, plots and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cosolve.cli.main import main


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    """A small synthetic forced-choice data set written as a long-format CSV."""
    from cosolve.problems.conjoint.synthetic import random_truth, simulate

    truth = random_truth(3, [2, 3, 2], seed=4)
    data = simulate(truth, 300, 4, seed=5)
    design = data.design
    path = tmp_path_factory.mktemp("conjoint") / "small.csv"
    rows = ["resp,task,pos,choice,group," + ",".join(design.factors)]
    for i in range(len(data)):
        levels = ",".join(design.levels[d][data.X[i, d]] for d in range(design.n_factors))
        group = "A" if data.respondent[i] % 2 else "B"
        rows.append(f"{data.respondent[i]},{data.pair[i]},{data.profile[i]},{int(data.y[i])},{group},{levels}")
    path.write_text("\n".join(rows) + "\n")
    return path, design


def _args(path, *extra):
    return [
        "conjoint", "optimize", str(path), "--outcome", "choice", "--respondent", "resp", "--pair", "task", "--profile", "pos",
        "--attributes", "F0,F1,F2", *extra,
    ]  # fmt: skip


def test_json_has_value_policy_and_standard_errors(small_csv, capsys, tmp_path):
    path, design = small_csv
    plot = tmp_path / "policy.png"
    assert main(_args(path, "--lambda", "0.3", "--json", "--plot", str(plot))) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solver"] == "qp" and out["certificate"] == "global" and out["value_se"] > 0
    assert out["p0_value"] == pytest.approx(0.5, abs=1e-12)  # forced choice: the randomisation wins half its contests
    low, high = out["value_ci"]
    assert out["value_bias"] is not None and (low + high) / 2 == pytest.approx(out["value"] - out["value_bias"])
    assert set(out["policy"]) == set(design.factors)
    for levels in out["policy"].values():
        assert sum(v["p"] for v in levels.values()) == pytest.approx(1.0)
        assert all(v["se"] >= 0 for v in levels.values())
    assert plot.stat().st_size > 0


def test_json_fields_are_the_ones_the_help_lists(small_csv, capsys):
    """Both modes' JSON keys are exactly the documented ones, and ``--help`` lists each with its meaning
    (the policy under ``policy``)."""
    from cosolve.cli.conjoint import AVERAGE_FIELDS, MINIMAX_FIELDS

    path, _ = small_csv
    with pytest.raises(SystemExit):
        main(["conjoint", "optimize", "--help"])
    text = capsys.readouterr().out
    average_part, minimax_part = text.split("--mode average:")[1].split("--mode minimax:")
    for fields, part in ((AVERAGE_FIELDS, average_part), (MINIMAX_FIELDS, minimax_part)):
        listed = [line.split(":")[0].strip() for line in part.splitlines() if line.startswith("  ") and ":" in line]
        assert listed == list(fields)
    assert "policy: {factor: {level: {p, se, p0}}}" in average_part
    assert main(_args(path, "--lambda", "0.3", "--json")) == 0
    assert list(json.loads(capsys.readouterr().out)) == list(AVERAGE_FIELDS)
    extra = ["--mode", "minimax", "--group-column", "group", "--parties", "A,B", "--party-factor", "none", "--penalty", "kl",
             "--lambda", "0.2", "--json"]  # fmt: skip
    assert main(_args(path, *extra)) == 0
    assert list(json.loads(capsys.readouterr().out)) == list(MINIMAX_FIELDS)


def test_average_case_path_does_not_import_torch(small_csv):
    """The identity-link L2 command (read, fit, QP, delta method, bias) never loads torch."""
    import subprocess
    import sys

    path, _ = small_csv
    code = (
        "import sys; from cosolve.cli.main import main; "
        f"rc = main({_args(path, '--lambda', '0.3', '--json')!r}); "
        "assert rc == 0; assert 'torch' not in sys.modules, 'torch was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["solver"] == "qp"


def test_subset_kl_and_human_output(small_csv, capsys, tmp_path):
    path, _ = small_csv
    assert main(_args(path, "--penalty", "kl", "--subset", "group=A", "--no-interactions")) == 0
    text = capsys.readouterr().out
    assert "gradient" in text and "value" in text
    # the subset is the rows of group A: the same request on a file holding only them agrees
    lines = path.read_text().splitlines()
    only_a = tmp_path / "only_a.csv"
    only_a.write_text("\n".join([lines[0], *(row for row in lines[1:] if row.split(",")[4] == "A")]) + "\n")
    assert main(_args(path, "--penalty", "kl", "--subset", "group=A", "--no-interactions", "--json")) == 0
    subset = json.loads(capsys.readouterr().out)
    assert main(_args(only_a, "--penalty", "kl", "--no-interactions", "--json")) == 0
    filtered = json.loads(capsys.readouterr().out)
    assert (subset["respondents"], subset["rows"]) == (filtered["respondents"], filtered["rows"]) == (150, 1200)
    assert subset["value"] == pytest.approx(filtered["value"], abs=subset["value_se"])  # the same fit, up to the solver
    assert main(_args(path, "--penalty", "kl", "--no-interactions", "--json")) == 0
    whole = json.loads(capsys.readouterr().out)
    assert (whole["respondents"], whole["rows"]) == (300, 2400)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--lambda", "-1"], "--lambda"),
        (["--subset", "nope=1"], "no column 'nope'"),
        (["--subset", "group=C"], "no row has group"),
        (["--plot", "out.xyz"], "unknown picture format"),
        (["--solver", "closed-form", "--penalty", "kl"], "L2 penalty"),
    ],
)
def test_bad_requests_exit_2_with_one_line(small_csv, capsys, extra, needle):
    path, _ = small_csv
    assert main(_args(path, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_missing_column_names_the_file(small_csv, capsys):
    path, _ = small_csv
    assert main(["conjoint", "optimize", str(path), "--outcome", "nothere", "--respondent", "resp", "--attributes", "F0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "small.csv" in err


def test_average_policy_improves_on_the_randomisation(small_csv, capsys):
    path, _ = small_csv
    assert main(_args(path, "--lambda", "0.05", "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert np.isfinite(out["value_se"])
    assert out["value"] - out["p0_value"] > 1e-3  # strictly better than the randomisation it starts from


def test_logit_average_case(small_csv, capsys):
    path, design = small_csv
    assert main(_args(path, "--link", "logit", "--penalty", "kl", "--lambda", "0.1", "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["link"] == "logit" and out["solver"] == "gradient" and out["estimator"] == "enumerate"
    assert out["p0_value"] == 0.5 and out["value"] > 0.5 and out["value_se"] > 0 and out["value_mc_se"] == 0.0
    assert set(out["policy"]) == set(design.factors)


def test_minimax_json_on_a_small_game(small_csv, capsys):
    path, design = small_csv
    extra = ["--mode", "minimax", "--group-column", "group", "--parties", "A,B", "--party-factor", "none", "--penalty", "kl",
             "--lambda", "0.2", "--json"]  # fmt: skip
    assert main(_args(path, *extra)) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("value", "value_se", "vote_share", "exploitability", "divergence", "policy"):
        assert key in out
    assert out["exploitability"] < 1e-6 and 0 <= out["vote_share"] <= 1
    assert set(out["policy"]) == {"A", "B"} and set(out["policy"]["A"]) == set(design.factors)


def test_minimax_rejects_unknown_parties(small_csv, capsys):
    path, _ = small_csv
    assert main(_args(path, "--mode", "minimax", "--group-column", "group", "--parties", "A,Z", "--party-factor", "none")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Z" in err
