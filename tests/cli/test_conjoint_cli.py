"""``cosolve conjoint optimize``: JSON output, plots and one-line errors."""

from __future__ import annotations

import json
import re

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


def _rewrite(path, out, change):
    """``path``'s CSV written to ``out`` with ``change(row_index, cells)`` applied to each data row's cells."""
    lines = path.read_text().splitlines()
    rows = [",".join(change(i, line.split(","))) for i, line in enumerate(lines[1:])]
    out.write_text("\n".join([lines[0], *rows]) + "\n")
    return out


def _set_choice(value):
    def change(i, cells):
        return [*cells[:3], value(i, cells[3]), *cells[4:]]

    return change


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("ratings", lambda i, y: str(4 + i % 6), "has 4 and 5"),  # ratings 4-9, not choices
        ("both_chosen", lambda i, y: "1" if i < 2 else y, "has 1 and 1"),  # the first pair chooses both profiles
        ("chosen_twice", lambda i, y: {0: "2", 1: "0"}.get(i, y), "has 2 and 0"),  # chosen = 2
    ],
    ids=["ratings", "both_chosen", "chosen_twice"],
)
@pytest.mark.parametrize("mode", ["average", "minimax"])
def test_identity_link_refuses_paired_data_that_are_not_forced_choices(small_csv, capsys, tmp_path, name, value, shown, mode):
    """With pairs the identity link's value is a chance of being chosen (1/2 + ...): a pair without exactly
    one chosen profile is refused as for the pair logit, in one line naming the file and the pair."""
    path, _ = small_csv
    bad = _rewrite(path, tmp_path / f"{name}.csv", _set_choice(value))
    extra = ["--mode", mode, "--group-column", "group", "--parties", "A,B", "--party-factor", "none"] if mode == "minimax" else []
    assert main(_args(bad, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{name}.csv" in err and "must be forced choices" in err and "without pairs" in err
    if mode == "average":  # minimax fits each party's subset, whose first bad pair may be another one
        assert f"{name}.csv:2: " in err and f"the pair on lines 2 and 3 {shown}" in err
    else:
        assert re.search(rf"{name}\.csv:\d+: .*the pair on lines \d+ and \d+ has", err)


def test_ratings_without_pairs_report_the_mean_outcome(small_csv, capsys, tmp_path):
    """--pair none reads ratings: the value is the mean rating under the policy, not a chance of being chosen."""
    path, _ = small_csv
    ratings = _rewrite(path, tmp_path / "ratings.csv", _set_choice(lambda i, y: str(4 + 5 * int(y) + i % 2)))
    assert main([*_args(ratings, "--json"), "--pair", "none"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 4 < out["p0_value"] < out["value"] < 10  # on the ratings' scale
    assert main([*_args(ratings), "--pair", "none"]) == 0
    assert "the mean of choice for a profile drawn from the policy" in capsys.readouterr().out
    assert main(_args(path)) == 0
    assert "the chance that a profile drawn from the policy is chosen over one drawn from p0" in capsys.readouterr().out


@pytest.mark.parametrize("lam", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("mode", ["average", "minimax"])
def test_non_finite_lambda_exits_2_with_one_line(small_csv, capsys, lam, mode):
    path, _ = small_csv
    extra = ["--mode", mode, "--group-column", "group", "--parties", "A,B", "--party-factor", "none"]
    assert main(_args(path, *extra, f"--lambda={lam}")) == 2  # '--lambda -inf' would read -inf as an option
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--lambda" in err and "finite" in err


@pytest.mark.parametrize("ridge", ["nan", "-1"])
def test_a_ridge_that_is_not_finite_and_non_negative_exits_2(small_csv, capsys, ridge):
    assert main(_args(small_csv[0], f"--ridge={ridge}")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ridge must be a finite non-negative number" in err


@pytest.mark.parametrize("shares", ["A=nan,B=0.5", "A=inf,B=-inf"])
def test_non_finite_shares_exit_2_with_one_line(small_csv, capsys, shares):
    path, _ = small_csv
    extra = ["--mode", "minimax", "--group-column", "group", "--parties", "A,B", "--party-factor", "none", "--shares", shares]
    assert main(_args(path, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shares" in err and "finite" in err


def test_text_output_says_what_the_plus_minus_is(small_csv, capsys):
    """The policy's ± is 1.96 se (the JSON's se), and the text says so."""
    path, _ = small_csv
    assert main(_args(path, "--lambda", "0.3", "--json")) == 0
    policy = json.loads(capsys.readouterr().out)["policy"]
    assert main(_args(path, "--lambda", "0.3")) == 0
    text = capsys.readouterr().out
    assert "policy: each level's probability ± 1.96 se (its 95% interval)" in text
    level, v = next(iter(policy["F0"].items()))
    assert f"{level} {v['p']:.3f}±{1.96 * v['se']:.3f}" in text


def test_one_attribute_has_main_effects_only(small_csv, capsys):
    path, _ = small_csv
    assert main([*_args(path), "--attributes", "F1"]) == 0
    text = capsys.readouterr().out
    assert "(main effects)" in text and "interactions" not in text
    assert main([*_args(path, "--json"), "--attributes", "F1"]) == 0
    assert json.loads(capsys.readouterr().out)["interactions"] is False
    assert main(_args(path, "--json")) == 0
    assert json.loads(capsys.readouterr().out)["interactions"] is True


def test_repeated_attribute_is_refused(small_csv, capsys):
    path, _ = small_csv
    assert main([*_args(path), "--attributes", "F0,F1,F0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "attributes name F0 more than once" in err and "ridge" not in err


def test_unidentified_model_hints_at_the_flags_that_fix_it(small_csv, capsys, tmp_path):
    """The fit's remedies for an unidentified model name the CLI's flags (--no-interactions, --ridge),
    and each works."""
    path, _ = small_csv
    # F0's second level never with F1's second level: a combination never shown, its interaction all zero
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    f0, f1 = header.index("F0"), header.index("F1")
    f0_levels = sorted({row.split(",")[f0] for row in lines[1:]})
    f1_levels = sorted({row.split(",")[f1] for row in lines[1:]})

    def restrict(i, cells):
        if cells[f0] == f0_levels[1] and cells[f1] == f1_levels[1]:
            cells[f1] = f1_levels[2]
        return cells

    restricted = _rewrite(path, tmp_path / "restricted.csv", restrict)
    assert main(_args(restricted)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not identified" in err and "--no-interactions" in err and "--ridge" in err
    assert main(_args(restricted, "--no-interactions")) == 0
    assert main(_args(restricted, "--ridge", "0.1")) == 0
    capsys.readouterr()
    # F1's last level only in group A's rows: the subset group=B never shows it
    hidden = _rewrite(path, tmp_path / "hidden.csv", lambda i, c: [*c[:4], "A" if c[f1] == f1_levels[2] else c[4], *c[5:]])
    assert main(_args(hidden, "--subset", "group=B")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "never randomised" in err and "--ridge" in err
