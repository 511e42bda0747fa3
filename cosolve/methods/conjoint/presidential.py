"""Deprecated path: the presidential game moved to :mod:`cosolve.methods.conjoint.game` (import
``solve_presidential_game`` from there); this module only re-exports its names."""

import warnings

from cosolve.methods.conjoint.game.presidential import GameModels, game_models, solve_presidential_game

__all__ = ["GameModels", "game_models", "solve_presidential_game"]

warnings.warn(
    "cosolve.methods.conjoint.presidential is deprecated; import from cosolve.methods.conjoint.game",
    DeprecationWarning,
    stacklevel=2,
)
