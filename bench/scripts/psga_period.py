"""Per-period benchmark of PSGA on K-sparse TCO against SCIP's optimum (issue 7).

Instances (``cosolve.generators.portfolio``): TCO1 periods of NYSE(O) (n = 36) and TSE (n = 88)
at random days, and of synthetic relatives for n = 500 and 2000; K in {3, 5, 10}; mu in {0, 1}
(without and with the quadratic term); previous portfolio ``sparse`` (K-sparse) or ``dense``
(uniform); eta = 10, lam = 10 * 0.25% = 0.025. Methods, one thread each, one after the other:

- ``psga`` (default options) and ``ksparse-projection``;
- ``scip`` with a 60 s budget; its incumbent at 1 s and 10 s is read from its trace (SCIP's search
  does not depend on the time limit), so one run gives the 1 s / 10 s / 60 s columns;
- ``ortools-mip`` (CBC through pywraplp) with a 60 s budget, for mu = 0.

Rows are appended to ``OUT/results.csv`` (reruns skip the instance-method pairs already there,
so deleting one method's rows reruns that method alone); ``OUT/report.md`` has the tables.

    python -m bench.scripts.psga_period --out bench/results/psga-period
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
from functools import cache
from pathlib import Path

import numpy as np

from bench import ROOT
from bench.scripts.csv_results import append_row, git_commit, read_rows

REAL = {36: "nyse_o", 88: "tse"}
FIELDS = [
    "source", "n", "k", "mu", "regime", "period", "method", "time_limit", "status", "objective", "bound", "time",
    "at_1s", "at_10s", "iterations", "admm_iterations", "commit",
]  # fmt: skip


@cache  # one read (or generation) per market, not one per instance
def relatives(n: int) -> tuple[str, np.ndarray]:
    if n in REAL:
        name = REAL[n]
        return name, np.loadtxt(ROOT / "instances" / "olps" / f"{name}.csv", delimiter=",", skiprows=1)
    from cosolve.generators.portfolio import synthetic_relatives

    return f"synthetic-{n}", synthetic_relatives(300, n, seed=n)


def incumbent_at(result, seconds: float) -> float | None:
    best = None
    for point in result.trace:
        if point.time <= seconds and point.objective is not None:
            best = point.objective
    return best


def make_instance(n: int, k: int, mu: float, regime: str, index: int):
    """``(source, day, problem)`` for instance ``index`` of the group (fixed seeds)."""
    from cosolve.generators.portfolio import period_from_relatives

    source, x = relatives(n)
    t = int(np.random.default_rng(1000 * n + index).integers(5, len(x)))
    seed = 7919 * index + 31 * k + n
    return (
        source,
        t,
        period_from_relatives(x, t, k, regime=regime, seed=seed, mu=mu, name=f"{source}-t{t}-k{k}-mu{mu:g}-{regime}"),
    )


def run_instance(source: str, t: int, problem, scip_limit: float, skip: set[str] = frozenset()) -> list[dict]:
    """One row per method not in ``skip``."""
    from cosolve import Solver

    n, k, mu, regime = problem.n, problem.k, problem.mu, problem.name.rsplit("-", 1)[1]
    plan = [("psga", 10.0), ("ksparse-projection", 10.0), ("scip", scip_limit)]
    if mu == 0:
        plan.append(("ortools-mip", scip_limit))
    plan = [(method, limit) for method, limit in plan if method not in skip]
    rows = []
    for method, limit in plan:
        r = Solver(method, time_limit=limit).solve(problem)
        rows.append({
            "source": source, "n": n, "k": k, "mu": mu, "regime": regime, "period": t, "method": method,
            "time_limit": limit, "status": r.status.value,
            "objective": "" if r.objective is None else repr(r.objective),
            "bound": "" if r.bound is None else repr(r.bound), "time": f"{r.time:.6f}",
            "at_1s": repr(incumbent_at(r, 1.0)) if method == "scip" else "",
            "at_10s": repr(incumbent_at(r, 10.0)) if method == "scip" else "",
            "iterations": r.stats.get("iterations", ""), "admm_iterations": r.stats.get("admm_iterations", ""),
            "commit": git_commit(),
        })  # fmt: skip
    return rows


def _rel(a: float, b: float) -> float:
    return (a - b) / max(abs(b), 1e-12)


def report(path: Path, out: Path) -> str:
    rows = read_rows(path)
    inst: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        key = (int(r["n"]), int(r["k"]), float(r["mu"]), r["regime"], int(r["period"]))
        inst.setdefault(key, {})[r["method"]] = r
    lines = [
        "# PSGA per period: K-sparse TCO against SCIP",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, one thread per method. Per group "
        "(n, K, mu, previous portfolio): instances; how many SCIP proved optimal within 60 s; PSGA's largest and mean "
        "relative excess over SCIP's proven optimum (0 = equal; negative = better than SCIP's incumbent); how many "
        "PSGA solved within 1e-6 relative; median PSGA time and PSGA iterations; median SCIP time to its proof; the "
        "median per-instance speed-up (SCIP's proof time / PSGA's time); the same excess for ksparse-projection. "
        "Reproduce with `python -m bench.scripts.psga_period`.",
        "",
        "| n | K | mu | previous | inst. | SCIP optimal | PSGA max excess | PSGA mean excess | within 1e-6 | "
        "PSGA time ms | PSGA iters | SCIP time s | speed-up | ksparse-proj. max excess |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple, list[dict[str, dict]]] = {}
    for key, methods in inst.items():
        if {"psga", "scip", "ksparse-projection"} <= methods.keys():
            groups.setdefault(key[:4], []).append(methods)
    unproven = []
    for (n, k, mu, regime), items in sorted(groups.items()):
        proven = [m for m in items if m["scip"]["status"] == "optimal"]
        excess = [_rel(float(m["psga"]["objective"]), float(m["scip"]["objective"])) for m in proven]
        kp = [_rel(float(m["ksparse-projection"]["objective"]), float(m["scip"]["objective"])) for m in proven]
        within = sum(e <= 1e-6 for e in excess)
        psga_ms = np.median([1000 * float(m["psga"]["time"]) for m in items])
        iters = np.median([int(m["psga"]["iterations"]) for m in items])
        scip_s = np.median([float(m["scip"]["time"]) for m in proven]) if proven else float("nan")
        speed = np.median([float(m["scip"]["time"]) / float(m["psga"]["time"]) for m in proven]) if proven else float("nan")
        fmt = lambda xs, f: f(xs) if xs else float("nan")  # noqa: E731
        lines.append(
            f"| {n} | {k} | {mu:g} | {regime} | {len(items)} | {len(proven)} | {fmt(excess, max):.1e} | "
            f"{fmt(excess, np.mean):.1e} | {within}/{len(proven)} | {psga_ms:.2f} | {iters:.0f} | {scip_s:.3f} | "
            f"{speed:.0f}x | {fmt(kp, max):.1e} |"
        )
        unproven += [((n, k, mu, regime), m) for m in items if m["scip"]["status"] != "optimal"]
    lines += ["", "## Where SCIP did not prove optimality within 60 s", ""]
    if not unproven:
        lines.append("None: SCIP proved every instance optimal.")
    else:
        lines += [
            "PSGA's objective against SCIP's incumbent at 1 s, 10 s and 60 s (lower is better; '-' = no incumbent yet).",
            "",
            "| n | K | mu | previous | period | PSGA | PSGA time ms | SCIP 1 s | SCIP 10 s | SCIP 60 s | SCIP bound |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for (n, k, mu, regime), m in unproven:
            s = m["scip"]
            show = lambda v: "-" if v in ("", "None") else f"{float(v):.6f}"  # noqa: E731
            lines.append(
                f"| {n} | {k} | {mu:g} | {regime} | {s['period']} | {float(m['psga']['objective']):.6f} | "
                f"{1000 * float(m['psga']['time']):.2f} | {show(s['at_1s'])} | {show(s['at_10s'])} | {show(s['objective'])} | "
                f"{show(s['bound'])} |"
            )
    mip = [(key, m) for key, m in inst.items() if "ortools-mip" in m and "scip" in m]
    if mip:
        agree = sum(
            m["ortools-mip"]["status"] == "optimal"
            and abs(_rel(float(m["ortools-mip"]["objective"]), float(m["scip"]["objective"]))) <= 1e-6
            for _, m in mip
            if m["scip"]["status"] == "optimal"
        )
        t_cbc = np.median([float(m["ortools-mip"]["time"]) for _, m in mip])
        lines += [
            "",
            f"ortools-mip (CBC), mu = 0: {agree} of {len(mip)} at SCIP's optimum; median time {t_cbc:.3f} s.",
        ]
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[36, 88, 500, 2000])
    parser.add_argument("--k", type=int, nargs="+", default=[3, 5, 10])
    parser.add_argument("--mu", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--regimes", nargs="+", default=["sparse", "dense"])
    parser.add_argument("--periods", type=int, default=3, help="instances per group")
    parser.add_argument("--scip-limit", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/psga-period"))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        done: dict[tuple, set[str]] = {}
        for r in read_rows(path):
            key = (int(r["n"]), int(r["k"]), float(r["mu"]), r["regime"], r["source"], r["period"])
            done.setdefault(key, set()).add(r["method"])
        grid = list(itertools.product(args.n, args.k, args.mu, args.regimes, range(args.periods)))
        for count, (n, k, mu, regime, index) in enumerate(grid, 1):
            source, t, problem = make_instance(n, k, mu, regime, index)
            rows = run_instance(source, t, problem, args.scip_limit, done.get((n, k, mu, regime, source, str(t)), set()))
            for row in rows:
                append_row(path, FIELDS, row)
            shown = ", ".join(f"{r['method']} {float(r['objective']):.8f} in {float(r['time']):.4f} s" for r in rows)
            if shown:
                print(f"[{count}/{len(grid)}] n={n} k={k} mu={mu:g} {regime}: {shown}", flush=True)
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
