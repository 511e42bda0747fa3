"""Deprecated path: the conjoint game's equilibrium moved to :mod:`cosolve.methods.conjoint.game` (import
``solve_game`` from there); this module only re-exports its names."""

import warnings

from cosolve.methods.conjoint.game.equilibrium import ENUMERATE_MAX_PROFILES, ESTIMATORS, make_estimator, solve_game
from cosolve.methods.conjoint.game.game_result import AveragingComparison, GameResult

__all__ = ["ENUMERATE_MAX_PROFILES", "ESTIMATORS", "AveragingComparison", "GameResult", "make_estimator", "solve_game"]

warnings.warn(
    "cosolve.methods.conjoint.minimax is deprecated; import from cosolve.methods.conjoint.game",
    DeprecationWarning,
    stacklevel=2,
)
