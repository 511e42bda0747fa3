"""Conjoint timings (issues 8 and 29), one thread: the CLI commands step by step, then library steps.

Part 1, the CLI commands of issue 29 end to end, each in a fresh process (as a user runs them), on
the bundled Ono & Burden (2019) data: the 5-attribute average case (party, family, race, experience,
fav_rating: 2-5 levels, interactions, 91 parameters; lambda 0.05, where the stationary point of the
affine hull leaves the simplex), the 13-factor average case (620 parameters, lambda 0.5), and the
presidential minimax game with identity links and interactions and with logit links on main
effects, each without and with primaries (lambda 0.5, L2). A child process wraps the library's
functions with timers (whichever of them the source tree has, so the same script times an older
checkout: ``--source``) and runs ``cosolve.cli.main``; the parent measures the wall clock. Steps:
start-up/exit (interpreter and imports before the command runs, and the interpreter's exit, about a
second longer once torch is loaded: wall minus the command's own time),
read, fit, optimize (the average case's optimiser; for a game, the equilibrium solve, torch's import
included), best responses (the game's exploitability), delta (the delta method and the value's
bias), averaging (the game's averaging comparison, its best responses included), other (the rest:
output and checks; for the average case before issue 29 also torch's import, which its thread limits
did first). Each
command runs ``--repeats`` times; the table shows the run with the smallest wall clock.

Part 2 (skipped with ``--cli-only``), in one process: reading, the fits, the average case by the QP
and by gradient ascent (their largest difference in pi), the KL penalty, the logit link, and the best
single profile as a MIP in SCIP and CP-SAT (skipped with ``--skip-mip``).

Writes ``OUT/report.md`` (and ``OUT/cli.json``, the raw timings).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m bench.scripts.conjoint_speed --out bench/results/conjoint-speed
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

FIVE = "party,family,race,experience,fav_rating"
#: the CLI commands of part 1: name -> arguments after ``cosolve``
COMMANDS = {
    "average, 5 attributes (91 parameters), lambda 0.05": [
        "conjoint", "optimize", "ono_burden", "--mode", "average", "--lambda", "0.05", "--attributes", FIVE, "--json"],
    "average, 13 factors (620 parameters), lambda 0.5": [
        "conjoint", "optimize", "ono_burden", "--mode", "average", "--lambda", "0.5", "--json"],
    "minimax, identity, interactions": ["conjoint", "optimize", "ono_burden", "--mode", "minimax", "--lambda", "0.5", "--json"],
    "minimax, identity, interactions, primaries": [
        "conjoint", "optimize", "ono_burden", "--mode", "minimax", "--lambda", "0.5", "--primaries", "--json"],
    "minimax, logit, main effects": [
        "conjoint", "optimize", "ono_burden", "--mode", "minimax", "--lambda", "0.5", "--link", "logit", "--no-interactions",
        "--json"],
    "minimax, logit, main effects, primaries": [
        "conjoint", "optimize", "ono_burden", "--mode", "minimax", "--lambda", "0.5", "--link", "logit", "--no-interactions",
        "--primaries", "--json"],
}  # fmt: skip
#: (module, function, step) wrapped with timers in the child; a module or name absent from a source tree is skipped
TIMED = [
    ("cosolve.problems.conjoint.data", "read_conjoint", "read"),
    ("cosolve.problems.conjoint.fit", "fit_outcome_model", "fit"),
    ("cosolve.methods.conjoint.presidential", "fit_outcome_model", "fit"),
    ("cosolve.methods.conjoint.average", "solve_policy_qp", "optimize"),
    ("cosolve.methods.conjoint.average", "closed_form", "optimize"),
    ("cosolve.methods.conjoint.average", "optimize_policy", "optimize"),
    ("cosolve.methods.conjoint.gradient", "optimize_policy", "optimize"),
    ("cosolve.methods.conjoint.average", "qp_jacobians", "delta"),
    ("cosolve.methods.conjoint.average", "qp_value_bias", "delta"),
    ("cosolve.methods.conjoint.average", "curvature_se", "delta"),
    ("cosolve.methods.conjoint.average", "closed_form_jacobians", "delta"),
    ("cosolve.methods.conjoint.average", "implicit_jacobians", "delta"),
    ("cosolve.methods.conjoint.average", "uncertainty", "delta"),
    ("cosolve.methods.conjoint.average", "value_bias", "delta"),
    ("cosolve.methods.conjoint.delta", "implicit_jacobians", "delta"),
    ("cosolve.methods.conjoint.delta", "value_bias", "delta"),
    ("cosolve.methods.conjoint.delta", "qp_jacobians", "delta"),
    ("cosolve.methods.conjoint.minimax_response", "delta_method", "delta"),
    ("cosolve.methods.conjoint.minimax_response", "standard_errors", "delta"),
    ("cosolve.methods.conjoint.minimax_primaries", "jacobians", "delta"),
    ("cosolve.methods.conjoint.minimax_response", "averaging_comparison", "averaging"),
    ("cosolve.methods.conjoint.minimax_response", "best_response", "best responses"),
    ("cosolve.methods.conjoint.minimax", "solve_game", "game"),
    # the same steps since the game became cosolve.methods.conjoint.game (the names above stay for --source runs of older trees)
    ("cosolve.io.conjoint_csv", "read_conjoint", "read"),
    ("cosolve.methods.conjoint.game.presidential", "fit_outcome_model", "fit"),
    ("cosolve.methods.conjoint.game.presidential", "solve_game", "game"),
    ("cosolve.methods.conjoint.game.equilibrium", "delta_method", "delta"),
    ("cosolve.methods.conjoint.game.equilibrium", "best_response", "best responses"),
    ("cosolve.methods.conjoint.game.equilibrium", "averaging_comparison", "averaging"),
    ("cosolve.methods.conjoint.game.separable", "standard_errors", "delta"),
    ("cosolve.methods.conjoint.game.separable", "jacobians", "delta"),
    ("cosolve.methods.conjoint.game.separable", "qp_jacobians", "delta"),
]
STEPS = ["start-up/exit", "read", "fit", "optimize", "best responses", "delta", "averaging", "other"]


def child(name: str) -> int:
    """Run one command with the timers in place; print ``{"main": seconds, "steps": {...}, "torch": bool}``
    on stderr's last line (the command's JSON goes to a buffer)."""
    import contextlib
    import importlib
    import io

    totals: dict[str, float] = {}
    active: list[str] = []

    def wrap(fn, step):
        def timed(*args, **kwargs):
            if active and active[-1] != "game":  # inside another timed step: that one owns the time
                return fn(*args, **kwargs)
            active.append(step)
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                totals[step] = totals.get(step, 0.0) + time.perf_counter() - started
                active.pop()

        return timed

    for module, attr, step in TIMED:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError:  # a module an older source tree does not have
            continue
        if hasattr(mod, attr):
            setattr(mod, attr, wrap(getattr(mod, attr), step))
    from cosolve.cli.main import main

    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        rc = main(COMMANDS[name])
    elapsed = time.perf_counter() - started
    result = json.loads(out.getvalue())
    keep = {k: result.get(k) for k in ("value", "value_se", "vote_share", "vote_share_se", "exploitability", "solver", "note")}
    print(
        json.dumps({"rc": rc, "main": elapsed, "steps": totals, "torch": "torch" in sys.modules, "result": keep}), file=sys.stderr
    )
    return rc


def run_command(name: str, source: Path, repeats: int) -> dict:
    """The fastest of ``repeats`` runs of one command in fresh processes (``source`` on PYTHONPATH)."""
    env = {**os.environ, "PYTHONPATH": str(source), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    best = None
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", name], cwd=source, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.strip().splitlines()[-3:]}")
        info = json.loads(done.stderr.strip().splitlines()[-1])
        info["wall"] = wall
        if best is None or wall < best["wall"]:
            best = info
    steps = dict(best["steps"])
    game = steps.pop("game", None)
    if game is not None:  # the game's own solve: what its sub-steps leave
        steps["optimize"] = game - sum(steps.get(k, 0.0) for k in ("best responses", "delta", "averaging"))
    steps["start-up/exit"] = best["wall"] - best["main"]
    steps["other"] = best["main"] - sum(v for k, v in steps.items() if k != "start-up/exit")
    return {"name": name, "wall": best["wall"], "steps": steps, "torch": best["torch"], "result": best["result"]}


def cli_table(rows: list[dict]) -> list[str]:
    lines = [
        "| command | wall | " + " | ".join(STEPS) + " | torch | result |",
        "|---|---|" + "---|" * len(STEPS) + "---|---|",
    ]
    for r in rows:
        res = r["result"]
        if res.get("vote_share") is not None:
            what = (
                f"vote share {res['vote_share']:.4f} (se {res['vote_share_se']:.4f}), exploitability {res['exploitability']:.1e}"
            )
        else:
            what = f"value {res['value']:.4f} (se {res['value_se']:.4f}), {res['solver']}"
        cells = " | ".join(f"{r['steps'].get(s, 0.0):.3f}" for s in STEPS)
        lines.append(f"| {r['name']} | **{r['wall']:.2f}** | {cells} | {'yes' if r['torch'] else 'no'} | {what} |")
    return lines


def timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def library_rows(args) -> list[tuple[str, float, str]]:
    """Part 2 (module docstring): ``(step, seconds, result)`` rows."""
    from cosolve.io.conjoint_csv import read_conjoint
    from cosolve.methods.conjoint.average import average_case
    from cosolve.problems.conjoint.fit import fit_outcome_model

    data, t_read = timed(lambda: read_conjoint("ono_burden"))
    model, t_fit = timed(lambda: fit_outcome_model(data, link="identity", interactions=True))
    five = read_conjoint("ono_burden", attributes=FIVE.split(","))
    small, t_small = timed(lambda: fit_outcome_model(five, link="identity", interactions=True))
    qp, t_qp = timed(lambda: average_case(model, args.lam, solver="qp"))
    average_case(model, args.lam, solver="gradient")  # warm-up: imports torch and torch.func
    grad, t_grad = timed(lambda: average_case(model, args.lam, solver="gradient"))
    kl, t_kl = timed(lambda: average_case(model, args.lam, penalty="kl"))
    diff = max(float(np.abs(a - b).max()) for a, b in zip(qp.pi, grad.pi, strict=True))
    rows = [
        ("read the data (15,830 profiles)", t_read, ""),
        (f"fit: identity link, interactions ({model.params.size} parameters, clustered)", t_fit, ""),
        (f"fit: identity link, 5 attributes with interactions ({small.params.size} parameters, clustered)", t_small, ""),
        (f"average case, L2, QP + delta method (lambda {args.lam:g})", t_qp,
         f"value {qp.value:.5f} (se {qp.value_se:.5f}), {qp.extra['certificate']}"),
        ("average case, L2, gradient ascent + implicit delta method", t_grad,
         f"value {grad.value:.5f} (se {grad.value_se:.5f}); largest pi difference from the QP {diff:.1e}"),
        ("average case, KL, gradient ascent + implicit delta method", t_kl, f"value {kl.value:.5f} (se {kl.value_se:.5f})"),
    ]  # fmt: skip
    logit, t_logit_fit = timed(lambda: fit_outcome_model(data, link="logit", interactions=True))
    lavg, t_lavg = timed(lambda: average_case(logit, args.lam))
    rows += [
        (f"fit: logit link, interactions ({logit.params.size} parameters, clustered)", t_logit_fit, ""),
        ("average case, logit, L2, Monte Carlo best response + implicit delta method", t_lavg,
         f"value {lavg.value:.5f} (se {lavg.value_se:.5f}, Monte Carlo se {lavg.extra['mc_se']:.1e})"),
    ]  # fmt: skip
    if not args.skip_mip:
        from cosolve import Solver
        from cosolve.problems.conjoint.problem import BestProfile

        problem = BestProfile(model, name="ono-burden-best-profile")
        for method in ("scip", "cpsat"):
            result, t = timed(lambda m=method: Solver(m, time_limit=args.mip_time, threads=1).solve(problem))
            rows.append((f"best single profile, {method} (budget {args.mip_time:g} s)", t,
                         f"{result.status.value}, objective {result.objective:.5f}, bound {result.bound}"))  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lam", type=float, default=0.5, help="part 2's lambda")
    parser.add_argument("--mip-time", type=float, default=60.0)
    parser.add_argument("--repeats", type=int, default=2, help="runs of each CLI command (the fastest is shown)")
    parser.add_argument("--commands", nargs="+", choices=list(COMMANDS), help="part 1's commands (default all)")
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the source tree the CLI commands run (default this checkout)")  # fmt: skip
    parser.add_argument("--cli-only", action="store_true", help="part 1 only")
    parser.add_argument("--skip-mip", action="store_true", help="part 2 without the best-profile MIPs")
    parser.add_argument("--out", type=Path, default=Path("bench/results/conjoint-speed"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)
    args.out.mkdir(parents=True, exist_ok=True)
    cli = []
    for name in args.commands or list(COMMANDS):
        cli.append(run_command(name, args.source.resolve(), args.repeats))
        print(cli_table(cli)[-1], flush=True)
    (args.out / "cli.json").write_text(json.dumps(cli, indent=1) + "\n")
    lines = [
        "# Conjoint timings on the presidential design",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, one thread, {os.cpu_count()} cores "
        f"(load average {os.getloadavg()[0]:.2f} at the end). Reproduce with "
        "`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m bench.scripts.conjoint_speed`.",
        "",
        f"## CLI commands, seconds per step (fastest of {args.repeats} fresh processes; `cosolve` + the command's arguments)",
        "",
        *cli_table(cli),
        "",
        *[f"- {r['name']}: `cosolve {' '.join(COMMANDS[r['name']])}`" for r in cli],
    ]
    if not args.cli_only:
        rows = library_rows(args)
        lines += [
            "",
            "## Library steps (one process)",
            "",
            "| step | seconds | result |",
            "|---|---|---|",
            *[f"| {name} | {t:.3f} | {note} |" for name, t, note in rows],
        ]
    text = "\n".join(lines) + "\n"
    (args.out / "report.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
