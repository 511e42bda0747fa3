"""Real data: the presidential conjoint of Ono & Burden (2019) (issue 8).

On the bundled data: the average-case policy over all respondents, and the two-party equilibrium
(Democrats A, Republicans B, each fielding its own party's candidates) without and with primaries,
each with the delta-method interval of A's vote share, the exploitability, the strategic divergence
(RMS difference of the parties' policies), and what the averaging optimiser gives instead (each party
optimising against a randomised opponent). Voter groups are the respondents' parties (Dem, Rep,
Ind) with their sample shares; general-election models are fit on cross-party pairs, primary models
on the party's own respondents' same-party pairs; identity link with two-way interactions. Writes
``OUT/report.md``, ``OUT/results.json`` and the policy plots.

    python bench/conjoint_real.py --out bench/results/conjoint-real
"""

from __future__ import annotations

import argparse
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

    from cosolve.conjoint.data import read_conjoint
    from cosolve.conjoint.fit import fit_outcome_model
    from cosolve.methods.conjoint.average import average_case
    from cosolve.methods.conjoint.plot import plot_policies
    from cosolve.methods.conjoint.presidential import solve_presidential_game

    data = read_conjoint("ono_burden")
    started = time.perf_counter()
    model = fit_outcome_model(data, link="identity", interactions=True)
    avg = average_case(model, args.lam, penalty=args.penalty)
    avg_seconds = time.perf_counter() - started
    plot_policies(model.design, {"average case": (avg.pi, avg.pi_se)}, args.out / "average.png",
                  f"average-case policy, {args.penalty} lambda = {args.lam:g}")  # fmt: skip
    results = {"average": {"value": avg.value, "value_se": avg.value_se, "p0_value": avg.p0_value, "solver": avg.solver,
                           "seconds": avg_seconds}}  # fmt: skip
    lines = [
        "# Presidential conjoint (Ono & Burden 2019): average case and two-party equilibrium",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}. Bundled data: 15,830 profiles, 1,583 "
        f"respondents. Identity-link outcome models with two-way interactions, {args.penalty} penalty, lambda = "
        f"{args.lam:g}. Reproduce with `python bench/conjoint_real.py`.",
        "",
        f"Average case (all respondents, against a randomised opponent): value {avg.value:.4f} (95% interval "
        f"{avg.value - 1.96 * avg.value_se:.4f}..{avg.value + 1.96 * avg.value_se:.4f}); the randomisation's value "
        f"{avg.p0_value:.4f}; {avg.solver}, {avg_seconds:.1f} s including the fit.",
        "",
        "| game | Dem vote share | 95% interval | within 0.45-0.55 | exploitability | divergence | averaging: Dem share "
        "| iterations | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for primaries in (False, True):
        t = time.perf_counter()
        game = solve_presidential_game(data, lam=args.lam, primaries=primaries, penalty=args.penalty)
        seconds = time.perf_counter() - t
        low, high = game.vote_share - 1.96 * game.vote_share_se, game.vote_share + 1.96 * game.vote_share_se
        inside = HISTORICAL[0] <= game.vote_share <= HISTORICAL[1]
        label = "with primaries" if primaries else "general election only"
        averaging = game.averaging.vote_share if game.averaging is not None else float("nan")
        lines.append(
            f"| {label} | {game.vote_share:.4f} | {low:.4f}..{high:.4f} | {'yes' if inside else 'no'} | "
            f"{game.exploitability:.1e} | {game.divergence:.4f} | {averaging:.4f} | {game.iterations} | {seconds:.1f} |"
        )
        plot_policies(data.design, {"Dem": (game.pi_A, game.pi_se_A), "Rep": (game.pi_B, game.pi_se_B)},
                      args.out / f"equilibrium{'-primaries' if primaries else ''}.png",
                      f"equilibrium {label}, Dem vote share {game.vote_share:.3f}")  # fmt: skip
        results["primaries" if primaries else "general"] = {
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
