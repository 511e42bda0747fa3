"""Online backtests of PSGA against the OLPS baselines (issue 7).

The four bundled data sets (NYSE(O), TSE, S&P500, DJIA), transaction cost rates gamma in {0, 0.1%,
0.25%, 0.5%}; strategies ``ubah``, ``bcrp`` (hindsight), ``olmar``, ``pamr``, ``tco1``, ``tco2`` and
``psga`` with K in {3, 5, 10} (default options: SMA prediction as TCO2, mu = 1, lam = 10 gamma,
eta = 10), plus ``psga`` with TCO1's reversal prediction and ``psga`` without the quadratic
term (mu = 0). Every strategy plans with the backtest's
rate. Rows go to ``OUT/results.csv`` (reruns skip rows already there); ``OUT/report.md`` has one
table per data set and rate and the target check at gamma = 0.25%; ``OUT/<data>.png`` the wealth
curves at 0.25%.

    python -m bench.scripts.psga_backtest --out bench/results/psga-backtest
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from functools import cache
from pathlib import Path

import numpy as np

from bench.scripts.csv_results import append_row, git_commit, read_rows

DATA = ["nyse_o", "tse", "sp500", "djia"]
COSTS = [0.0, 0.001, 0.0025, 0.005]
STRATEGIES = [
    ("ubah", {}), ("bcrp", {}), ("olmar", {}), ("pamr", {}), ("tco1", {}), ("tco2", {}),
    ("psga", {"k": 3}), ("psga", {"k": 5}), ("psga", {"k": 10}),
    ("psga", {"k": 5, "predictor": "reversal"}), ("psga", {"k": 5, "mu": 0.0}),
]  # fmt: skip
FIELDS = [
    "data", "cost", "method", "label", "params", "wealth", "apy", "sharpe", "max_drawdown", "calmar", "turnover",
    "avg_assets", "seconds", "seconds_per_day", "iterations_per_day", "commit",
]  # fmt: skip
TARGET_COST = 0.0025


def label(name: str, params: dict) -> str:
    if not params:
        return name
    return name + "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


@cache  # one read per market, not one per backtest
def market(data: str) -> np.ndarray:
    from cosolve.portfolio import read_relatives, resolve_data

    return read_relatives(resolve_data(data))


def run_one(data: str, cost: float, name: str, params: dict) -> tuple[dict, np.ndarray]:
    from cosolve.portfolio import backtest, get_strategy

    x = market(data)
    strategy = get_strategy(name, **params)
    result = backtest(x, strategy, cost=cost)
    m = result.metrics()
    iterations = getattr(strategy, "iterations", None)
    row = {
        "data": data, "cost": cost, "method": name, "label": label(name, params), "params": json.dumps(params),
        **{key: repr(float(m[key])) for key in ("wealth", "apy", "sharpe", "max_drawdown", "calmar", "turnover", "avg_assets")},
        "seconds": f"{result.seconds:.3f}", "seconds_per_day": f"{result.seconds / len(x):.6f}",
        "iterations_per_day": f"{np.mean(iterations):.2f}" if iterations else "", "commit": git_commit(),
    }  # fmt: skip
    return row, result.wealth


def report(path: Path, out: Path) -> str:
    rows = read_rows(path)
    lines = [
        "# PSGA online backtests",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}. Cumulative wealth (start 1, in cash), APY, "
        "Sharpe ((APY - 4%) / annualised sd), maximum drawdown, Calmar, mean daily turnover ||b_t - b_hat||_1, mean "
        "number of assets held, and for PSGA its solve time and iterations per day (summed over its starts: "
        "relaxed, previous and uniform by default). "
        "Reproduce with `python -m bench.scripts.psga_backtest`.",
    ]
    by_key: dict[tuple[str, float], list[dict]] = {}
    for r in rows:
        by_key.setdefault((r["data"], float(r["cost"])), []).append(r)
    for (data, cost), rs in sorted(by_key.items(), key=lambda kv: (DATA.index(kv[0][0]) if kv[0][0] in DATA else 99, kv[0][1])):
        lines += [
            "",
            f"## {data}, gamma = {100 * cost:g}%",
            "",
            "| strategy | wealth | APY | Sharpe | MDD | Calmar | turnover | assets | ms/day | iters/day |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rs:
            lines.append(
                f"| {r['label']} | {float(r['wealth']):.4g} | {float(r['apy']):.3f} | {float(r['sharpe']):.3f} | "
                f"{float(r['max_drawdown']):.3f} | {float(r['calmar']):.3f} | {float(r['turnover']):.3f} | "
                f"{float(r['avg_assets']):.2f} | {1000 * float(r['seconds_per_day']):.3f} | {r['iterations_per_day'] or '-'} |"
            )
    lines += [
        "",
        f"## Target at gamma = {100 * TARGET_COST:g}%: PSGA (K <= 10) above TCO1 and TCO2 in wealth and Sharpe, below in MDD",
        "",
        "| data | PSGA variant | wealth | Sharpe | MDD | beats TCO1 on all three | beats TCO2 on all three |",
        "|---|---|---|---|---|---|---|",
    ]
    wins: dict[str, int] = {}
    for data in DATA:
        rs = {r["label"]: r for r in by_key.get((data, TARGET_COST), [])}
        if "tco1" not in rs or "tco2" not in rs:
            continue
        for lab, r in rs.items():
            if not lab.startswith("psga"):
                continue
            beats = [
                float(r["wealth"]) > float(rs[t]["wealth"])
                and float(r["sharpe"]) > float(rs[t]["sharpe"])
                and float(r["max_drawdown"]) < float(rs[t]["max_drawdown"])
                for t in ("tco1", "tco2")
            ]
            wins[lab] = wins.get(lab, 0) + all(beats)
            lines.append(
                f"| {data} | {lab} | {float(r['wealth']):.4g} | {float(r['sharpe']):.3f} | {float(r['max_drawdown']):.3f} | "
                f"{'yes' if beats[0] else 'no'} | {'yes' if beats[1] else 'no'} |"
            )
    lines += ["", "Data sets where the variant beats both on all three measures: "]
    lines += [f"- {lab}: {count} of {len(DATA)}" for lab, count in wins.items()]
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def plot(path: Path, out: Path, curves: dict[str, dict[str, np.ndarray]]) -> None:
    from cosolve.portfolio.wealth_plot import plot_wealth

    for data, by_label in curves.items():
        plot_wealth(by_label, out / f"{data}.png", title=f"{data}, gamma = {100 * TARGET_COST:g}%")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", nargs="+", default=DATA)
    parser.add_argument("--costs", type=float, nargs="+", default=COSTS)
    parser.add_argument("--out", type=Path, default=Path("bench/results/psga-backtest"))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        done = {(r["data"], float(r["cost"]), r["label"]) for r in read_rows(path)}
        curves: dict[str, dict[str, np.ndarray]] = {}
        for data in args.data:
            for cost in args.costs:
                for name, params in STRATEGIES:
                    plotted = cost == TARGET_COST
                    if (data, cost, label(name, params)) in done and not plotted:
                        continue
                    row, wealth = run_one(data, cost, name, params)
                    if plotted:
                        curves.setdefault(data, {})[row["label"]] = wealth
                    if (data, cost, row["label"]) not in done:
                        append_row(path, FIELDS, row)
                    print(f"{data} {cost:g} {row['label']}: wealth {float(row['wealth']):.4g} ({row['seconds']} s)", flush=True)
        plot(path, args.out, curves)
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
