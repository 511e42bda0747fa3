"""Real data: the presidential conjoint of Ono & Burden (2019) (issue 8).

On the bundled data: the average-case policy over all respondents (identity link, and logit link,
both with two-way interactions), and the two-party equilibrium (Democrats A, Republicans B, each
fielding its own party's candidates) without and with primaries, each with the delta-method interval
of A's vote share, the exploitability, the strategic divergence (RMS difference of the parties'
policies), and what the averaging optimiser gives instead (each party optimising against a
randomised opponent). Voter groups are the respondents' parties (Dem, Rep, Ind) with their sample
shares; general-election models are fit on cross-party pairs, primary models on the party's own
respondents' same-party pairs. The game is played with identity links with two-way interactions,
and with logit links on main effects (per-group logit fits with interactions fail on perfect
separation). Writes ``OUT/report.md``, ``OUT/results.json`` and the policy plots.

    python -m bench.scripts.conjoint_real --out bench/results/conjoint-real
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import time
from pathlib import Path

HISTORICAL = (0.45, 0.55)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--penalty", default="l2", choices=("l2", "kl"))
    parser.add_argument("--out", type=Path, default=Path("bench/results/conjoint-real"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from cosolve.io.conjoint_csv import read_conjoint
    from cosolve.methods.conjoint.average import average_case
    from cosolve.methods.conjoint.game import solve_presidential_game
    from cosolve.methods.conjoint.policy_plot import plot_policies
    from cosolve.problems.conjoint.fit import fit_outcome_model

    data = read_conjoint("ono_burden")
    results: dict = {}
    lines = [
        "# Presidential conjoint (Ono & Burden 2019): average case and two-party equilibrium",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}. Bundled data: 15,830 profiles, 1,583 "
        f"respondents. {args.penalty} penalty, lambda = {args.lam:g}. Reproduce with "
        "`python -m bench.scripts.conjoint_real --out bench/results/conjoint-real`.",
        "",
        "Average case (all respondents, two-way interactions), the chance that a profile drawn from the policy is "
        "chosen over one drawn from the randomisation (0.5 for the randomisation itself). The interval is the "
        "reported one: delta method, centred at the plug-in value minus its estimated second-order bias where that "
        "is computed (closed form), else at the plug-in value.",
        "",
        "| link | value | 95% interval | bias (est.) | Monte Carlo se | solver | seconds (fit included) |",
        "|---|---|---|---|---|---|---|",
    ]
    for link in ("identity", "logit"):
        started = time.perf_counter()
        model = fit_outcome_model(data, link=link, interactions=True)
        avg = average_case(model, args.lam, penalty=args.penalty)
        avg_seconds = time.perf_counter() - started
        low, high = avg.value_interval()
        plot_policies(model.design, {"average case": (avg.pi, avg.pi_se)}, args.out / f"average-{link}.png",
                      f"average-case policy, {link} link, {args.penalty} lambda = {args.lam:g}")  # fmt: skip
        mc_se = avg.extra.get("mc_se", 0.0)
        lines.append(
            f"| {link} | {avg.value:.4f} | {low:.4f}..{high:.4f} | {avg.value_bias:.1e} | {mc_se:.1e} | {avg.solver} "
            f"({avg.extra.get('estimator', 'exact')}) | {avg_seconds:.1f} |"
        )
        results[f"average-{link}"] = {"value": avg.value, "value_se": avg.value_se, "value_bias": avg.value_bias,
                                      "interval": [low, high], "p0_value": avg.p0_value, "solver": avg.solver,
                                      "mc_se": mc_se, "seconds": avg_seconds,
                                      "pi": [p.tolist() for p in avg.pi]}  # fmt: skip
    lines += [
        "",
        "| game | Dem vote share | 95% interval | within 0.45-0.55 | exploitability | divergence | averaging: Dem share "
        "| iterations | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (link, interactions), primaries in itertools.product((("identity", True), ("logit", False)), (False, True)):
        t = time.perf_counter()
        game = solve_presidential_game(
            data, lam=args.lam, primaries=primaries, penalty=args.penalty, link=link, interactions=interactions
        )
        seconds = time.perf_counter() - t
        low, high = game.vote_share - 1.96 * game.vote_share_se, game.vote_share + 1.96 * game.vote_share_se
        inside = HISTORICAL[0] <= game.vote_share <= HISTORICAL[1]
        terms = "interactions" if interactions else "main effects"
        label = f"{link}, {terms}: {'with primaries' if primaries else 'general election only'}"
        key = f"{link}-{'primaries' if primaries else 'general'}"
        averaging = game.averaging.vote_share if game.averaging is not None else float("nan")
        lines.append(
            f"| {label} | {game.vote_share:.4f} | {low:.4f}..{high:.4f} | {'yes' if inside else 'no'} | "
            f"{game.exploitability:.1e} | {game.divergence:.4f} | {averaging:.4f} | {game.iterations} | {seconds:.1f} |"
        )
        plot_policies(data.design, {"Dem": (game.pi_A, game.pi_se_A), "Rep": (game.pi_B, game.pi_se_B)},
                      args.out / f"equilibrium-{key}.png",
                      f"equilibrium {label}, Dem vote share {game.vote_share:.3f}")  # fmt: skip
        results[key] = {
            "vote_share": game.vote_share, "vote_share_se": game.vote_share_se, "exploitability": game.exploitability,
            "divergence": game.divergence, "averaging_vote_share": averaging, "seconds": seconds,
            "pi_A": [p.tolist() for p in game.pi_A], "pi_B": [p.tolist() for p in game.pi_B],
        }  # fmt: skip
    (args.out / "results.json").write_text(json.dumps(results, indent=1, default=float))
    text = "\n".join(lines) + "\n"
    (args.out / "report.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
