"""``cosolve conjoint optimize DATA --mode minimax``: the two parties' equilibrium policies."""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from cosolve.errors import UsageError
from cosolve.problems.conjoint.data import ConjointData


def _pair(text: str, what: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) != 2:
        raise UsageError(f"{what} expects two comma-separated names, got {text!r}")
    return parts[0], parts[1]


def _shares(text: str | None) -> dict[str, float] | None:
    if text is None:
        return None
    out = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UsageError(f"--shares expects GROUP=SHARE,..., got {text!r}")
    return out


def run_minimax(args: argparse.Namespace, data: ConjointData, path: Path, started: float, read_seconds: float = 0.0) -> int:
    from cosolve.methods.conjoint.policy import policy_table
    from cosolve.methods.conjoint.presidential import solve_presidential_game

    parties = _pair(args.parties, "--parties")
    party_factor = None if args.party_factor.lower() == "none" else args.party_factor
    game = solve_presidential_game(
        data, lam=args.lam, primaries=args.primaries, penalty=args.penalty, group_column=args.group_column, parties=parties,
        shares=_shares(args.shares), party_factor=party_factor, party_levels=_pair(args.party_levels, "--party-levels"),
        interactions=not args.no_interactions, link=args.link,
    )  # fmt: skip
    design = data.design
    if args.plot:
        from cosolve.methods.conjoint.plot import plot_policies

        title = f"{path.stem}: equilibrium, {args.penalty} lambda = {args.lam:g}, {parties[0]} vote share {game.vote_share:.3f}"
        plot_policies(design, {parties[0]: (game.pi_A, game.pi_se_A), parties[1]: (game.pi_B, game.pi_se_B)}, args.plot, title)
    averaging = game.averaging
    out: dict[str, Any] = {
        "mode": "minimax", "data": str(path), "respondents": data.n_respondents, "lambda": args.lam, "penalty": args.penalty,
        "link": args.link,
        "primaries": args.primaries, "parties": list(parties),
        "value": game.vote_share, "value_se": game.vote_share_se, "vote_share": game.vote_share,
        "vote_share_se": game.vote_share_se, "vote_share_mc_se": game.vote_share_mc_se,
        "exploitability": game.exploitability, "divergence": game.divergence, "converged": game.converged,
        "estimator": game.estimator, "iterations": game.iterations,
        "policy": {
            parties[0]: policy_table(design, game.pi_A, game.pi_se_A),
            parties[1]: policy_table(design, game.pi_B, game.pi_se_B),
        },
        "averaging": None if averaging is None else {
            "vote_share": averaging.vote_share, "worst_case_A": averaging.worst_case_A, "worst_case_B": averaging.worst_case_B,
        },
        "timings": {"read": read_seconds, **game.timings},
        "seconds": time.perf_counter() - started, "plot": args.plot,
    }  # fmt: skip
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{path.name}: {len(data)} profiles, {data.n_respondents} respondents")
    print(f"minimax equilibrium ({'with' if args.primaries else 'without'} primaries), {args.penalty} lambda {args.lam:g}: "
          f"{game.iterations} iterations, {game.seconds:.1f} s")  # fmt: skip
    print(
        f"{parties[0]} vote share {game.vote_share:.4f} (se {game.vote_share_se:.4f}, Monte Carlo se {game.vote_share_mc_se:.1e})"
    )
    print(f"exploitability {game.exploitability:.2e}; strategic divergence {game.divergence:.4f}")
    if averaging is not None:
        print(f"both parties averaging instead: {parties[0]} vote share {averaging.vote_share:.4f}")
    print("policies: each level's probability ± 1.96 se (its 95% interval)")
    for side, pi, se in ((parties[0], game.pi_A, game.pi_se_A), (parties[1], game.pi_B, game.pi_se_B)):
        print(f"{side}:")
        for f, levels, p, s in zip(design.factors, design.levels, pi, se, strict=True):
            shown = ", ".join(f"{lv} {p[i]:.3f}" + (f"±{1.96 * s[i]:.3f}" if math.isfinite(s[i]) and s[i] > 0 else "")
                              for i, lv in enumerate(levels))  # fmt: skip
            print(f"  {f}: {shown}")
    if args.plot:
        print(f"plot {args.plot}")
    return 0
