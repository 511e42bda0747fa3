"""The two-party game on a candidate-choice conjoint such as Ono & Burden's presidential one.

From the data: voter groups by ``group_column`` (``resp_party``: Dem, Rep, Ind); each group's
general-election model is fit on its respondents' cross-party pairs (``candpar_match ==
"Different"``), and, with primaries, each party's primary model on its own respondents' same-party
pairs (``"Same"``; features that never differ within those pairs, such as the party, get
coefficient 0: they cannot matter in a primary). Electorate shares default to the groups' shares of respondents. Party A is the
first of ``parties`` and fields candidates with ``party_factor`` fixed to its level, B likewise.
The game itself is :func:`cosolve.methods.conjoint.game.equilibrium.solve_game`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from cosolve.errors import UsageError
from cosolve.methods.conjoint.game.equilibrium import GameResult, solve_game
from cosolve.problems.conjoint.data import ConjointData
from cosolve.problems.conjoint.fit import fit_outcome_model
from cosolve.problems.conjoint.model import OutcomeModel


@dataclass
class GameModels:
    """The fitted models of the game: ``general`` per voter group, ``shares`` per group,
    ``primaries`` ``{"A": model, "B": model}`` or None, and the fixed factors of each party."""

    general: dict[str, OutcomeModel]
    shares: dict[str, float]
    primaries: dict[str, OutcomeModel] | None
    fixed_A: dict[str, str]
    fixed_B: dict[str, str]


def _column(data: ConjointData, name: str) -> np.ndarray:
    if name not in data.covariates:
        raise UsageError(f"no column {name!r} in the data; columns: {', '.join(data.covariates)}")
    return np.asarray(data.covariates[name]).astype(str)


def game_models(
    data: ConjointData,
    *,
    primaries: bool = False,
    group_column: str = "resp_party",
    parties: tuple[str, str] = ("Dem", "Rep"),
    shares: dict[str, float] | None = None,
    party_factor: str | None = "party",
    party_levels: tuple[str, str] = ("Dem", "Rep"),
    contest_column: str = "candpar_match",
    interactions: bool = True,
    link: str = "identity",
) -> GameModels:
    """Fit the game's models (module docstring)."""
    groups = _column(data, group_column)
    contest = _column(data, contest_column) if contest_column in data.covariates else None
    names = sorted(set(groups.tolist()))
    missing = [p for p in parties if p not in names]
    if missing:
        raise UsageError(f"party group(s) {', '.join(missing)} not found in column {group_column!r} (groups: {', '.join(names)})")
    if shares is None:
        respondents = {g: np.unique(data.respondent[groups == g]).size for g in names}
        total = sum(respondents.values())
        shares = {g: respondents[g] / total for g in names}
    elif (
        set(shares) != set(names)
        or not all(np.isfinite(v) and v >= 0 for v in shares.values())
        or abs(sum(shares.values()) - 1) > 1e-9
    ):
        raise UsageError(f"shares must give every group ({', '.join(names)}) a finite non-negative share, summing to 1")
    general_rows = contest == "Different" if contest is not None else np.ones(len(data), dtype=bool)
    general = {
        g: fit_outcome_model(data.subset((groups == g) & general_rows), link=link, interactions=interactions) for g in names
    }
    primary_models = None
    if primaries:
        if contest is None:
            raise UsageError(f"primaries need the column {contest_column!r} to find same-party contests")
        primary_models = {
            side: fit_outcome_model(
                data.subset((groups == p) & (contest == "Same")), link=link, interactions=interactions, drop_constant=True
            )
            for side, p in zip(("A", "B"), parties, strict=True)
        }
    fixed_A, fixed_B = {}, {}
    if party_factor is not None:
        if party_factor not in data.design.factors:
            raise UsageError(f"party factor {party_factor!r} is not a factor of the design ({', '.join(data.design.factors)})")
        levels = data.design.levels[data.design.factors.index(party_factor)]
        for level in party_levels:
            if level not in levels:
                raise UsageError(f"party factor {party_factor!r} has no level {level!r} (levels: {', '.join(levels)})")
        fixed_A, fixed_B = {party_factor: party_levels[0]}, {party_factor: party_levels[1]}
    return GameModels(general, dict(shares), primary_models, fixed_A, fixed_B)


def solve_presidential_game(
    data: ConjointData,
    *,
    lam: float,
    primaries: bool = False,
    penalty: str = "l2",
    solve_options: dict | None = None,
    **fit_options: Any,
) -> GameResult:
    """Fit the game's models (``fit_options``: the keywords of :func:`game_models`) and solve it
    with :func:`~cosolve.methods.conjoint.game.equilibrium.solve_game` (``solve_options``: its other keywords);
    the result's ``timings`` start with the fits' seconds (``fit``)."""
    started = time.perf_counter()
    models = game_models(data, primaries=primaries, **fit_options)
    fitted = time.perf_counter() - started
    result = solve_game(
        models.general, models.shares, lam=lam, penalty=penalty, primaries=models.primaries, fixed_A=models.fixed_A,
        fixed_B=models.fixed_B, **(solve_options or {}),
    )  # fmt: skip
    result.timings = {"fit": fitted, **result.timings}
    return result
