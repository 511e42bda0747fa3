"""``cosolve portfolio backtest DATA --method NAME``: run an online portfolio strategy over a
market of daily price relatives (with transaction costs), print its metrics, plot its wealth.
``cosolve portfolio methods`` lists the strategies and their parameters."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from cosolve.cli.solve import check_output
from cosolve.core.options import parse_assignments
from cosolve.errors import UsageError

METRICS = ("wealth", "apy", "sharpe", "max_drawdown", "calmar", "turnover", "avg_assets")


#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "online portfolio selection: backtest strategies on daily price relatives"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "portfolio",
        help=SUMMARY,
        description="Online portfolio selection on markets of daily price relatives (T days x n assets).",
    )
    p.set_defaults(portfolio_parser=p)
    psub = p.add_subparsers(dest="portfolio_command", metavar="COMMAND", parser_class=type(p))
    b = psub.add_parser(
        "backtest",
        help="run a strategy over a market, print its metrics",
        description="Run one strategy day by day over DATA (starting in cash, wealth 1), charging "
        "cost/2 x the L1 change of the portfolio each day; print wealth, APY, Sharpe, maximum drawdown, "
        "Calmar, turnover and assets held (or one JSON object with --json).",
    )
    b.add_argument("data", help="CSV of daily price relatives (one day a line, one asset a column), or a bundled "
                   "data set by name: djia, nyse_o, sp500, tse")  # fmt: skip
    b.add_argument("--method", "-m", required=True, help="strategy name (see: cosolve portfolio methods)")
    b.add_argument("--k", type=int, help="the strategy's k parameter (only for strategies that take one)")
    b.add_argument("--cost", type=float, default=0.0, help="transaction cost rate, e.g. 0.0025 for 0.25%% (default 0)")
    b.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="strategy parameter (repeatable)")
    b.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    b.add_argument("--plot", metavar="FILE", help="write the wealth curve(s) to FILE (.png, .pdf, ...)")
    b.add_argument("--compare", nargs="+", action="extend", default=[], metavar="NAME",
                   help="also run these strategies (default parameters, same cost): reported and plotted")  # fmt: skip
    psub.add_parser("methods", help="list the strategies and their parameters", description="List the strategies.")


def run(args: argparse.Namespace) -> int:
    if args.portfolio_command is None:
        args.portfolio_parser.print_help()
        return 2
    if args.portfolio_command == "methods":
        return _methods()
    return _backtest(args)


def _methods() -> int:
    from cosolve.portfolio import registered_strategies

    for name, cls in registered_strategies().items():
        print(f"{name:<8}  {cls.summary}")
        for key, option in cls.params.items():
            default = "auto" if option.default is None else option.default  # see the option's help
            print(f"{'':10}{key}={default}  {option.help}")
    return 0


def _backtest(args: argparse.Namespace) -> int:
    from cosolve.portfolio import backtest, read_relatives, registered_strategies, resolve_data

    if not (0.0 <= args.cost < 1.0):
        raise UsageError(f"--cost must be a rate in [0, 1), e.g. 0.0025; got {args.cost:g}")
    table = registered_strategies()
    params: dict[str, Any] = parse_assignments(args.set)
    cls = _lookup(table, args.method)
    if args.k is not None:
        if "k" not in cls.params:
            valid = ", ".join(cls.params) or "none"
            raise UsageError(f"--k: method {args.method} has no parameter k (its parameters: {valid})")
        if "k" in params:
            raise UsageError("--k and --set k=... both given; use one")
        params["k"] = args.k
    strategy = cls(**params)
    others = [_lookup(table, name)() for name in dict.fromkeys(args.compare) if name != args.method]
    path = resolve_data(args.data)
    check_output(args.plot, str(path), "--plot")
    if args.plot:
        from cosolve.cli.plots import check_plot_format

        check_plot_format(args.plot)

    start = time.perf_counter()
    x = read_relatives(path)
    read_time = time.perf_counter() - start
    days, n = x.shape
    if not args.json:
        print(f"{path.stem}: {days} days x {n} assets ({path}), read in {read_time:.2f} s; cost rate {args.cost:g}")
    runs = {}
    for s in [strategy, *others]:
        start = time.perf_counter()
        with _Progress(s.name, days, enabled=not args.json and sys.stderr.isatty()) as progress:
            record = backtest(x, s, cost=args.cost, on_day=progress.update)
        runs[s.name] = (record, time.perf_counter() - start)
    record, seconds = runs[strategy.name]
    metrics = record.metrics()
    shown = strategy.settings()
    if args.plot:
        from cosolve.portfolio.wealth_plot import plot_wealth

        title = f"{path.stem}: {days} days, {n} assets, cost rate {args.cost:g}"
        plot_wealth({name: r.wealth for name, (r, _) in runs.items()}, args.plot, title)

    if args.json:
        out: dict[str, Any] = {key: _finite(metrics[key]) for key in METRICS}
        out.update(
            method=strategy.name, data=args.data, path=str(path), days=days, assets=n, cost=args.cost, params=shown,
            seconds=seconds, read_time=read_time, plot=args.plot,
            compare={name: {key: _finite(v) for key, v in r.metrics().items()} for name, (r, _) in list(runs.items())[1:]},
        )  # fmt: skip
        print(json.dumps(out))
    else:
        settings = ", ".join(f"{k}={v}" for k, v in shown.items())
        print(f"{strategy.name}{f' ({settings})' if settings else ''}: {seconds:.2f} s")
        for key in METRICS:
            print(f"{key:<13} {_fmt(metrics[key])}")
        for name, (r, secs) in list(runs.items())[1:]:
            m = r.metrics()
            shown_metrics = f"wealth {_fmt(m['wealth'])}, apy {_fmt(m['apy'])}, mdd {_fmt(m['max_drawdown'])}"
            print(f"compare      {name}: {shown_metrics} ({secs:.2f} s)")
        if args.plot:
            print(f"plot          {args.plot}")
    sys.stdout.flush()
    return 0


def _lookup(table: dict[str, type], name: str) -> type:
    if name not in table:
        raise UsageError(f"unknown portfolio method {name!r}; valid methods: {', '.join(table)}")
    return table[name]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _fmt(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else "-"


class _Progress:
    """A rich progress bar over the days of a backtest, on a terminal only."""

    def __init__(self, label: str, days: int, *, enabled: bool) -> None:
        self.label, self.days, self.enabled = label, days, enabled
        self.bar = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("", total=self.days)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, day: int, days: int) -> None:
        if self.bar is not None and (day % 50 == 0 or day == days):
            self.bar.update(self.task, completed=day)
