"""Synthetic recovery of the average-case conjoint policy and delta-method coverage (issue 8).

Per design (5 and 10 factors with 3 levels, 20 factors with 2 levels; a random truth with main
effects and sparse two-way interactions, ``cosolve.problems.conjoint.synthetic.random_truth``, seed = number
of factors) and per number of respondents n (5 forced-choice tasks each), 200 replicates: simulate,
fit the identity-link model with interactions (respondent-clustered covariance), compute the
L2-penalised average-case optimum (``lam`` = 1; the exact QP on the simplices, the closed form on its support) and
its delta-method standard errors, and compare with the optimum of the true parameters:

- ``pi_rmse``: RMS error of the policy probabilities; ``value_error``: Q-hat - Q*, where
  ``Q* = Q(pi*(theta); theta)`` and ``Q-hat = Q(pi*(theta-hat); theta-hat)``;
- ``value_covered``: whether Q* is inside the plug-in interval Q-hat +- 1.96 se;
  ``corrected_covered``: whether it is inside the reported interval, centred at Q-hat minus the
  estimated second-order bias ``value_bias`` (``PolicyResult.value_interval``);
- ``pi_coverage``: the share of policy probabilities whose 95% interval holds the truth.

Forced choice: ``Q(pi) = 1/2 + (E_pi - E_p0)[phi] . theta`` (``cosolve.problems.conjoint.model``).

Rows go to ``OUT/results.csv`` (reruns skip rows already there); ``OUT/report.md`` has the table.

    python -m bench.scripts.conjoint_coverage --out bench/results/conjoint-coverage
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
import time
from pathlib import Path

import numpy as np

from bench.scripts.csv_results import append_row, git_commit, read_rows

DESIGNS = {5: 3, 10: 3, 20: 2}  # factors -> levels per factor
FIELDS = [
    "factors", "levels", "n", "replicate", "lam", "solver", "pi_rmse", "value_error", "value_se", "value_covered",
    "value_bias", "corrected_covered", "pi_coverage", "seconds", "commit",
]  # fmt: skip


def truth_for(factors: int):
    from cosolve.problems.conjoint.synthetic import random_truth

    return random_truth(factors, DESIGNS[factors], seed=factors, main_scale=0.08, interaction_scale=0.03, sparsity=0.5)


def run_one(factors: int, n: int, replicate: int, lam: float) -> dict:
    from cosolve.methods.conjoint.average import average_case
    from cosolve.methods.conjoint.policy import solve_policy_qp
    from cosolve.problems.conjoint.fit import fit_outcome_model
    from cosolve.problems.conjoint.model import OutcomeModel
    from cosolve.problems.conjoint.synthetic import simulate

    truth = truth_for(factors)
    params = truth.params("identity", True)
    true_model = OutcomeModel(truth.design, "identity", True, params, np.zeros((params.size, params.size)), forced_choice=True)
    target = solve_policy_qp(true_model, lam)
    if not target.support.all():
        raise SystemExit(f"{factors} factors, lambda {lam}: the true optimum is not interior")
    true_value = target.value
    started = time.perf_counter()
    data = simulate(truth, n, 5, seed=100_000 * factors + 1000 * replicate + n % 997)
    model = fit_outcome_model(data, link="identity", interactions=True)
    result = average_case(model, lam)
    seconds = time.perf_counter() - started
    low, high = result.value_interval()
    est, se, tru = np.concatenate(result.pi), np.concatenate(result.pi_se), np.concatenate(target.pi)
    return {
        "factors": factors, "levels": DESIGNS[factors], "n": n, "replicate": replicate, "lam": lam, "solver": result.solver,
        "pi_rmse": f"{np.sqrt(np.mean((est - tru) ** 2)):.6g}", "value_error": f"{result.value - true_value:.6g}",
        "value_se": f"{result.value_se:.6g}", "value_covered": int(abs(result.value - true_value) <= 1.96 * result.value_se),
        "value_bias": f"{result.value_bias:.6g}", "corrected_covered": int(low <= true_value <= high),
        "pi_coverage": f"{np.mean(np.abs(est - tru) <= 1.96 * se):.4f}", "seconds": f"{seconds:.3f}", "commit": git_commit(),
    }  # fmt: skip


def report(path: Path, out: Path) -> str:
    rows = read_rows(path)
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((int(r["factors"]), int(r["n"])), []).append(r)
    lines = [
        "# Conjoint average-case policy: synthetic recovery and delta-method coverage",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}. Identity-link model with two-way "
        "interactions, L2 penalty lambda = 1, 5 forced-choice tasks per respondent. Per cell: replicates, mean RMS "
        "error of pi, mean |Q-hat - Q*|, mean delta-method se of Q, mean estimated bias of Q-hat and the observed one "
        "(mean Q-hat - Q*), coverage of Q* by the plug-in 95% interval Q-hat +- 1.96 se and by the reported, "
        "bias-corrected one (each with its Monte Carlo standard error), mean coverage over the policy probabilities, "
        "mean seconds per replicate (fit + optimum + delta method). Reproduce with "
        "`python -m bench.scripts.conjoint_coverage --out bench/results/conjoint-coverage`.",
        "",
        "| factors | levels | respondents | reps | pi RMSE | Q error | Q se | Q bias (est.) | Q bias (obs.) | plug-in coverage "
        "| reported coverage | pi coverage | s/rep |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def coverage(rs: list[dict], key: str) -> str:
        cov = np.mean([int(r[key]) for r in rs])
        return f"{cov:.3f} ({np.sqrt(cov * (1 - cov) / len(rs)):.3f})"

    for (factors, n), rs in sorted(groups.items()):
        mean = {k: np.mean([float(r[k]) for r in rs]) for k in ("pi_rmse", "value_se", "value_bias", "pi_coverage", "seconds")}
        lines.append(
            f"| {factors} | {rs[0]['levels']} | {n} | {len(rs)} | {mean['pi_rmse']:.4f} | "
            f"{np.mean([abs(float(r['value_error'])) for r in rs]):.5f} | {mean['value_se']:.5f} | {mean['value_bias']:.5f} | "
            f"{np.mean([float(r['value_error']) for r in rs]):.5f} | {coverage(rs, 'value_covered')} | "
            f"{coverage(rs, 'corrected_covered')} | {mean['pi_coverage']:.3f} | {mean['seconds']:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--factors", type=int, nargs="+", default=list(DESIGNS))
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/conjoint-coverage"))
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.csv"
    if not args.report_only:
        done = {(int(r["factors"]), int(r["n"]), int(r["replicate"])) for r in read_rows(path)}
        grid = [key for key in itertools.product(args.factors, args.n, range(args.replicates)) if key not in done]
        print(f"{len(grid)} replicates to run", flush=True)
        for count, (factors, n, rep) in enumerate(grid, 1):
            row = run_one(factors, n, rep, args.lam)
            append_row(path, FIELDS, row)
            if count % 20 == 0 or count == len(grid):
                print(f"[{count}/{len(grid)}] factors {factors} n {n} rep {rep}: {row['seconds']} s", flush=True)
    if path.exists():
        sys.stdout.write(report(path, args.out / "report.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
