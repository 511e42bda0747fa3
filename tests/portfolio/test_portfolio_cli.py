"""``cosolve portfolio backtest``: JSON output, plots, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest

from cosolve.cli.main import main

KEYS = {
    "wealth",
    "apy",
    "sharpe",
    "max_drawdown",
    "calmar",
    "turnover",
    "avg_assets",
    "method",
    "data",
    "cost",
    "params",
    "seconds",
}


def run(capsys, *args):
    try:
        code = main(["portfolio", "backtest", *map(str, args)])
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_one_object_with_the_metrics(capsys):
    code, out, err = run(capsys, "djia", "--method", "tco1", "--cost", "0.0025", "--set", "eta=5", "--json")
    assert code == 0, err
    (line,) = out.strip().splitlines()
    data = json.loads(line)
    assert set(data) >= KEYS
    assert data["method"] == "tco1" and data["data"] == "djia" and data["cost"] == 0.0025
    assert data["params"] == {"eta": 5.0, "lam": 0.025, "cost": 0.0025}  # lam: 10 x cost, as used
    assert data["wealth"] > 0 and 0 <= data["max_drawdown"] < 1 and data["compare"] == {}


def test_summary_and_plot_with_comparisons(capsys, tmp_path):
    (tmp_path / "other.txt").write_text("keep")
    plot = tmp_path / "wealth.png"
    code, out, err = run(capsys, "sp500", "--method", "olmar", "--compare", "ubah", "bcrp", "--plot", plot)
    assert code == 0, err
    assert "wealth" in out and "compare      ubah" in out and "compare      bcrp" in out
    assert plot.stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.txt", "wealth.png"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["djia", "--method", "nope"],
            "unknown portfolio method 'nope'; valid methods: bcrp, olmar, pamr, psga, tco1, tco2, ubah",
        ),
        (["djia", "--method", "ubah", "--k", "3"], "--k: method ubah has no parameter k"),
        (
            ["djia", "--method", "olmar", "--set", "eps=3"],
            "unknown option 'eps' for method olmar; valid options: epsilon, window",
        ),
        (["djia", "--method", "olmar", "--cost", "1.5"], "--cost must be a rate in [0, 1)"),
        (["djia", "--method", "tco2", "--set", "cost=2"], "option cost=2.0 of method tco2: must be below 1"),
        (["djia", "--method", "psga", "--set", "cost=1"], "option cost=1.0 of method psga: must be below 1"),
        (["djia", "--method", "olmar", "--compare", "nope"], "unknown portfolio method 'nope'"),
        (["missing.csv", "--method", "olmar"], "missing.csv: no such file"),
    ],
)
def test_bad_requests_are_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_bad_plot_files_fail_before_running(capsys, tmp_path, monkeypatch):
    import cosolve.portfolio

    def no_backtest(*args, **kwargs):
        raise AssertionError("the backtest ran before the plot file was checked")

    monkeypatch.setattr(cosolve.portfolio, "backtest", no_backtest)
    code, _, err = run(capsys, "djia", "--method", "ubah", "--plot", tmp_path / "no" / "w.png")
    assert code == 2 and "does not exist" in err
    code, _, err = run(capsys, "djia", "--method", "ubah", "--plot", tmp_path / "w.xyz")
    assert code == 2 and "unknown picture format 'xyz'" in err and not list(tmp_path.iterdir())


def test_malformed_csv_from_the_command_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("s0,s1\n1.0,1.1\n1.0,oops\n")
    proc = subprocess.run(
        [sys.executable, "-m", "cosolve", "portfolio", "backtest", str(bad), "--method", "ubah"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"cosolve: error: {bad}:3: column 2: 'oops' is not a number\n"


def test_auto_takes_the_default_that_depends_on_the_backtest(capsys):
    code, out, err = run(
        capsys, "djia", "--method", "psga", "--k", "3", "--cost", "0.001", "--set", "lam=auto", "--set", "cost=AUTO", "--json"
    )
    assert code == 0, err
    params = json.loads(out)["params"]
    assert params["cost"] == 0.001 and params["lam"] == pytest.approx(0.01)
    code, out, err = run(capsys, "djia", "--method", "tco1", "--set", "lam=0.5")
    assert code == 0, err
    assert "tco1 (eta=10.0, lam=0.5, cost=0.0)" in out


def test_prices_instead_of_relatives_are_refused_in_one_line(capsys, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("a,b\n100,200\n101,198\n103,201\n")
    code, out, err = run(capsys, prices, "--method", "olmar")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "values look like prices, not price relatives (median 150" in err
