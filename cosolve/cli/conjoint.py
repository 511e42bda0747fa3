"""``cosolve conjoint optimize DATA --mode average|minimax --lambda L``: learn a stochastic policy
over a conjoint design from experimental data, with delta-method standard errors.

The command's parser (:func:`add_parser`), reading the data (:func:`load`), and the two modes: the
average-case policy and, with ``--mode minimax``, the two parties' equilibrium policies.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cosolve.cli.solve import check_output
from cosolve.errors import UsageError

if TYPE_CHECKING:
    from cosolve.problems.conjoint.data import ConjointData

#: the JSON object of ``--mode average`` (``--help`` lists these fields; a test holds them to the output)
AVERAGE_FIELDS = {
    "mode": "average",
    "data": "the file read",
    "respondents": "respondents fitted",
    "rows": "profiles fitted",
    "lambda": "the penalty weight",
    "penalty": "l2 or kl",
    "link": "identity or logit",
    "solver": "qp (the exact QP on the simplices) or gradient",
    "note": "what to know about the optimum (not concave, on the boundary), or empty",
    "certificate": "global, local (strict local maximum) or kkt (first-order only) for qp; null otherwise",
    "value": "Q(pi*), the plug-in optimal value",
    "value_se": "its delta-method standard error",
    "p0_value": "Q(p0), the randomisation's value",
    "value_bias": "the plug-in value's estimated upward bias (null: not computed)",
    "value_ci": "95% interval [low, high] for the optimal value, bias-corrected when value_ci_corrected",
    "value_ci_corrected": "whether value_ci subtracts value_bias (known, at most 2 se, and not below p0's value)",
    "policy": "{factor: {level: {p, se, p0}}}: the optimal probability of each level, its standard error, "
    "its randomisation probability",
    "interactions": "whether the model has two-way interactions",
    "parameters": "parameters of the outcome model",
    "estimator": "exact, or enumerate/mc for the logit link",
    "value_mc_se": "Monte Carlo standard error of the value (0 when exact)",
    "timings": "seconds per step: read, fit, optimize, delta (the delta method and bias)",
    "fit_seconds": "seconds reading and fitting (timings.read + timings.fit)",
    "optimize_seconds": "seconds optimising and in the delta method (timings.optimize + timings.delta)",
    "seconds": "seconds from reading the data to the result",
    "plot": "the --plot file or null",
}
#: the JSON object of ``--mode minimax``
MINIMAX_FIELDS = {
    "mode": "minimax",
    "data": "the file read",
    "respondents": "respondents in the data",
    "lambda": "the penalty weight",
    "penalty": "l2 or kl",
    "link": "identity or logit",
    "primaries": "whether nominees come out of primaries",
    "parties": "[A, B]",
    "value": "A's equilibrium vote share (= vote_share)",
    "value_se": "its delta-method standard error (= vote_share_se)",
    "vote_share": "A's equilibrium vote share",
    "vote_share_se": "its delta-method standard error",
    "vote_share_mc_se": "Monte Carlo standard error of the vote share (0 when exact)",
    "exploitability": "both parties' best-response gaps summed (0 at an equilibrium)",
    "divergence": "RMS difference of the two parties' policies",
    "converged": "whether the exploitability is within tolerance",
    "estimator": "qp or sqp (identity links, L2: the separable game without or with primaries), else mc or enumerate",
    "iterations": "solver iterations",
    "policy": "{party: {factor: {level: {p, se, p0}}}}: each party's equilibrium policy",
    "averaging": "{vote_share, worst_case_A, worst_case_B} if both parties averaged instead",
    "timings": "seconds per step: read, fit, equilibrium, best_responses, delta, averaging",
    "seconds": "seconds from reading the data to the result",
    "plot": "the --plot file or null",
}


#: the line ``cosolve --help`` shows for this subcommand
SUMMARY = "conjoint experiments: optimal stochastic policies (average case, minimax)"


def _fields_help() -> str:
    def block(title: str, fields: dict[str, str]) -> str:
        return title + "\n" + "\n".join(f"  {k}: {v}" for k, v in fields.items())

    return "\n\n".join(
        [
            "--json prints one object; its fields:",
            block("--mode average:", AVERAGE_FIELDS),
            block("--mode minimax:", MINIMAX_FIELDS),
        ]
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "conjoint",
        help=SUMMARY,
        description="Optimal stochastic interventions (product-of-categorical policies) from conjoint data.",
    )
    p.set_defaults(conjoint_parser=p)
    csub = p.add_subparsers(dest="conjoint_command", metavar="COMMAND", parser_class=type(p))
    o = csub.add_parser(
        "optimize",
        help="fit the outcome model and optimise a policy",
        description="Fit the outcome model (main effects and two-way interactions, respondent-clustered "
        "covariance) and optimise a product-of-categorical policy over the design: 'average' maximises "
        "Q(pi) - lambda Pen(pi, p0) (identity link, L2 penalty: exactly, as a QP on the product of simplices); "
        "'minimax' finds the two parties' equilibrium. Prints the value and policy with delta-method standard "
        "errors (or one JSON object with --json, whose fields are listed below).",
        epilog=_fields_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    o.add_argument("data", help="long-format conjoint CSV (one row per profile), or 'ono_burden' for the bundled data")
    o.add_argument("--mode", choices=("average", "minimax"), default="average")
    o.add_argument("--lambda", dest="lam", type=float, default=0.5, help="penalty weight, finite and non-negative (default 0.5)")
    o.add_argument("--penalty", choices=("l2", "kl"), default="l2")
    o.add_argument(
        "--solver",
        choices=("auto", "qp", "closed-form", "gradient"),
        default="auto",
        help="average mode's optimiser: qp (identity link, L2 penalty: the active-set QP, the closed form on the "
        "optimum's support; closed-form is another name for it) or gradient (softmax logits); auto: qp where it "
        "applies, else gradient",
    )
    o.add_argument(
        "--link",
        choices=("identity", "logit"),
        default="identity",
        help="outcome model: linear probability (identity) or forced-choice logit (default identity)",
    )
    o.add_argument("--no-interactions", action="store_true", help="main effects only")
    o.add_argument(
        "--ridge",
        type=float,
        default=0.0,
        help="identity link: ridge penalty on the coefficients, for designs whose model is not identified (default 0)",
    )
    o.add_argument("--outcome", default="Y")
    o.add_argument("--respondent", default="id")
    o.add_argument(
        "--pair",
        default="pair_id",
        help="pair (task) column, whose pairs must be forced choices (outcomes 1 and 0); 'none' for ratings",
    )
    o.add_argument("--profile", default="profile_order", help="position of a profile within its pair; 'none' for row order")
    o.add_argument("--attributes", help="comma-separated randomised attributes (default: the bundled file's 13)")
    o.add_argument("--subset", action="append", default=[], metavar="COLUMN=VALUE",
                   help="keep only rows with this covariate value (repeatable), e.g. resp_party=Dem")  # fmt: skip
    o.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    o.add_argument("--plot", metavar="FILE", help="draw each factor's policy against p0 with 95%% intervals")
    # minimax mode
    o.add_argument("--group-column", default="resp_party", help="minimax: the voter-group column (default resp_party)")
    o.add_argument("--parties", default="Dem,Rep", help="minimax: the two parties' groups, A first (default Dem,Rep)")
    o.add_argument("--shares", help="minimax: electorate shares, e.g. Dem=0.35,Rep=0.3,Ind=0.35 (default: sample shares)")
    o.add_argument("--party-factor", default="party", help="minimax: the factor fixed to each party's own level ('none': none)")
    o.add_argument("--party-levels", default="Dem,Rep", help="minimax: the party factor's levels of A and B")
    o.add_argument("--primaries", action="store_true", help="minimax: nominees come out of a primary first")


def run(args: argparse.Namespace) -> int:
    if args.conjoint_command is None:
        args.conjoint_parser.print_help()
        return 2
    return _optimize(args)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _none(value: str | None) -> str | None:
    return None if value is None or value.lower() == "none" else value


def load(args: argparse.Namespace) -> tuple[ConjointData, Path]:
    """The data of ``args`` (read, subset) and its path."""
    from cosolve.io.conjoint_csv import read_conjoint, resolve_data

    path = resolve_data(args.data)
    attributes = [a.strip() for a in args.attributes.split(",") if a.strip()] if args.attributes else None
    data = read_conjoint(
        path, outcome=args.outcome, respondent=args.respondent, pair=_none(args.pair), profile=_none(args.profile),
        attributes=attributes,
    )  # fmt: skip
    for item in args.subset:
        column, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--subset expects COLUMN=VALUE, got {item!r}")
        if column not in data.covariates:
            raise UsageError(f"--subset {item}: no column {column!r}; columns: {', '.join(data.covariates)}")
        mask = np.asarray(data.covariates[column]).astype(str) == value
        if not mask.any():
            values = ", ".join(sorted(set(np.asarray(data.covariates[column]).astype(str).tolist()))[:20])
            raise UsageError(f"--subset {item}: no row has {column} = {value!r}; values: {values}")
        data = data.subset(mask)
    if data.pair is not None:  # the value of paired data is a chance of being chosen: refuse ratings read as pairs
        from cosolve.problems.conjoint.fit import forced_choice_pairs

        forced_choice_pairs(data)
    return data, path


def _optimize(args: argparse.Namespace) -> int:
    if not (math.isfinite(args.lam) and args.lam >= 0):
        raise UsageError(f"--lambda must be a finite non-negative number, got {args.lam:g}")
    if not (math.isfinite(args.ridge) and args.ridge >= 0):
        raise UsageError(f"--ridge must be a finite non-negative number, got {args.ridge:g}")
    started = time.perf_counter()
    data, path = load(args)
    read_seconds = time.perf_counter() - started
    check_output(args.plot, str(path), "--plot")
    if args.plot:
        from cosolve.cli.plots import check_plot_format

        check_plot_format(args.plot)
    if args.mode == "minimax":
        return _run_minimax(args, data, path, started, read_seconds)
    from cosolve.methods.conjoint.average import average_case
    from cosolve.problems.conjoint.fit import fit_outcome_model

    fit_started = time.perf_counter()
    model = fit_outcome_model(data, link=args.link, interactions=not args.no_interactions, ridge=args.ridge)
    fit_seconds = time.perf_counter() - fit_started
    result = average_case(model, args.lam, penalty=args.penalty, solver=args.solver)
    if args.plot:
        from cosolve.methods.conjoint.policy_plot import plot_policies

        title = f"{path.stem}: average-case policy, {args.penalty} lambda = {args.lam:g}, value {result.value:.3f}"
        plot_policies(model.design, {"optimal policy": (result.pi, result.pi_se)}, args.plot, title)
    interactions = model.interactions and model.design.n_factors > 1  # one factor has no pairs to interact
    timings = {"read": read_seconds, "fit": fit_seconds, "optimize": result.timings.get("optimize", result.seconds),
               "delta": result.timings.get("delta", 0.0)}  # fmt: skip
    out: dict[str, Any] = {
        "mode": "average", "data": str(path), "respondents": data.n_respondents, "rows": len(data),
        "lambda": args.lam, "penalty": args.penalty, "link": args.link, "solver": result.solver, "note": result.note,
        "certificate": result.extra.get("certificate"),
        "value": result.value, "value_se": result.value_se, "p0_value": result.p0_value,
        "value_bias": _finite(result.value_bias), "value_ci": list(result.value_interval()),
        "value_ci_corrected": result.bias_corrects,
        "policy": result.policy_table(model), "interactions": interactions,
        "parameters": int(model.params.size), "estimator": result.extra.get("estimator", "exact"),
        "value_mc_se": result.extra.get("mc_se", 0.0), "timings": timings,
        "fit_seconds": read_seconds + fit_seconds, "optimize_seconds": result.seconds,
        "seconds": time.perf_counter() - started, "plot": args.plot,
    }  # fmt: skip
    if args.json:
        print(json.dumps(out))
        return 0
    terms = "main effects and two-way interactions" if interactions else "main effects"
    print(f"{path.name}: {len(data)} profiles, {data.n_respondents} respondents")
    print(f"outcome model: {args.link} link, {model.params.size} parameters ({terms}), read in {read_seconds:.2f} s, "
          f"fit in {fit_seconds:.2f} s")  # fmt: skip
    certified = f" ({result.extra['certificate']} optimum)" if result.extra.get("certificate") else ""
    print(
        f"average-case policy, {args.penalty} penalty, lambda {args.lam:g}: {result.solver}{certified} in {result.seconds:.2f} s"
    )
    if result.note:
        print(f"note: {result.note}")
    mc = f", Monte Carlo se {result.extra['mc_se']:.1e}" if result.extra.get("mc_se") else ""
    meaning = (
        "the chance that a profile drawn from the policy is chosen over one drawn from p0"
        if model.forced_choice
        else f"the mean of {args.outcome} for a profile drawn from the policy"
    )
    print(f"value {result.value:.4f} (se {result.value_se:.4f}{mc}), {meaning}; randomisation p0: {result.p0_value:.4f}")
    low, high = result.value_interval()
    if result.bias_corrects:
        corrected = f"bias-corrected (bias {result.value_bias:.1e})"
    elif math.isfinite(result.value_bias):
        corrected = f"not bias-corrected (the bias estimate {result.value_bias:.1e} is too large to trust; see the note)"
    else:
        corrected = "not bias-corrected"
    print(f"95% interval for the optimal value: {low:.4f} to {high:.4f}, {corrected}")
    print("policy: each level's probability ± 1.96 se (its 95% interval)")
    for factor, levels in out["policy"].items():
        shown = ", ".join(f"{lv} {v['p']:.3f}±{1.96 * v['se']:.3f}" for lv, v in levels.items())
        print(f"  {factor}: {shown}")
    if args.plot:
        print(f"plot {args.plot}")
    sys.stdout.flush()
    return 0


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


def _run_minimax(args: argparse.Namespace, data: ConjointData, path: Path, started: float, read_seconds: float = 0.0) -> int:
    """``--mode minimax``: the two parties' equilibrium policies, printed (or one JSON object)."""
    from cosolve.methods.conjoint.game import solve_presidential_game
    from cosolve.methods.conjoint.policy import policy_table

    parties = _pair(args.parties, "--parties")
    party_factor = None if args.party_factor.lower() == "none" else args.party_factor
    game = solve_presidential_game(
        data, lam=args.lam, primaries=args.primaries, penalty=args.penalty, group_column=args.group_column, parties=parties,
        shares=_shares(args.shares), party_factor=party_factor, party_levels=_pair(args.party_levels, "--party-levels"),
        interactions=not args.no_interactions, link=args.link,
    )  # fmt: skip
    design = data.design
    if args.plot:
        from cosolve.methods.conjoint.policy_plot import plot_policies

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
