"""Timings on the 13-factor presidential conjoint (issue 8), one core.

Reads the bundled Ono & Burden (2019) data, fits the identity-link outcome model with two-way
interactions (620 parameters), and times: the average-case optimum by the closed form and by
gradient ascent (L2 penalty, with their delta-method standard errors; their largest difference in
pi), the KL-penalised optimum, the logit-link fit and average case, the best single profile as a
MIP in SCIP and in CP-SAT (equal budgets; their objective and bound), and the minimax equilibrium
without and with primaries (identity links with interactions; logit links on main effects).
Writes ``OUT/report.md``.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/conjoint_speed.py --out bench/results/conjoint-speed
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np


def timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--mip-time", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/conjoint-speed"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from cosolve import Solver
    from cosolve.methods.conjoint.average import average_case
    from cosolve.problems.conjoint.data import read_conjoint
    from cosolve.problems.conjoint.fit import fit_outcome_model
    from cosolve.problems.conjoint.problem import BestProfile

    data, t_read = timed(lambda: read_conjoint("ono_burden"))
    model, t_fit = timed(lambda: fit_outcome_model(data, link="identity", interactions=True))
    average_case(model, args.lam, solver="gradient")  # warm-up: imports torch and torch.func
    cf, t_cf = timed(lambda: average_case(model, args.lam, solver="closed-form"))
    grad, t_grad = timed(lambda: average_case(model, args.lam, solver="gradient"))
    kl, t_kl = timed(lambda: average_case(model, args.lam, penalty="kl"))
    diff = max(float(np.abs(a - b).max()) for a, b in zip(cf.pi, grad.pi, strict=True))
    rows = [
        ("read the data (15,830 profiles)", t_read, ""),
        (f"fit: identity link, interactions ({model.params.size} parameters, clustered)", t_fit, ""),
        (f"average case, L2, closed form + delta method (lambda {args.lam:g})", t_cf,
         f"value {cf.value:.5f} (se {cf.value_se:.5f})"),
        ("average case, L2, gradient ascent + implicit delta method", t_grad,
         f"value {grad.value:.5f} (se {grad.value_se:.5f}); largest pi difference from the closed form {diff:.1e}"),
        ("average case, KL, gradient ascent + implicit delta method", t_kl, f"value {kl.value:.5f} (se {kl.value_se:.5f})"),
    ]  # fmt: skip
    logit, t_logit_fit = timed(lambda: fit_outcome_model(data, link="logit", interactions=True))
    lavg, t_lavg = timed(lambda: average_case(logit, args.lam))
    rows += [
        (f"fit: logit link, interactions ({logit.params.size} parameters, clustered)", t_logit_fit, ""),
        ("average case, logit, L2, Monte Carlo best response + implicit delta method", t_lavg,
         f"value {lavg.value:.5f} (se {lavg.value_se:.5f}, Monte Carlo se {lavg.extra['mc_se']:.1e})"),
    ]  # fmt: skip
    problem = BestProfile(model, name="ono-burden-best-profile")
    for method in ("scip", "cpsat"):
        result, t = timed(lambda m=method: Solver(m, time_limit=args.mip_time, threads=1).solve(problem))
        rows.append((f"best single profile, {method} (budget {args.mip_time:g} s)", t,
                     f"{result.status.value}, objective {result.objective:.5f}, bound {result.bound}"))  # fmt: skip
    from cosolve.methods.conjoint.presidential import solve_presidential_game

    for link, interactions, primaries in (("identity", True, False), ("identity", True, True), ("logit", False, False),
                                          ("logit", False, True)):  # fmt: skip
        game, t = timed(lambda p=primaries, k=link, i=interactions: solve_presidential_game(
            data, lam=args.lam, primaries=p, link=k, interactions=i))  # fmt: skip
        terms = "interactions" if interactions else "main effects"
        rows.append((f"minimax equilibrium, {link} link, {terms}{', primaries' if primaries else ''} (fits included)", t,
                     f"vote share {game.vote_share:.4f} (se {game.vote_share_se:.4f}), exploitability "
                     f"{game.exploitability:.1e}, divergence {game.divergence:.4f}"))  # fmt: skip
    lines = [
        "# Conjoint timings on the presidential design (13 factors)",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, one thread. "
        "Reproduce with `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/conjoint_speed.py`.",
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
