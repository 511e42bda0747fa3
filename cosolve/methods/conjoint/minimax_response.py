"""Deprecated path: the conjoint game's best responses moved to :mod:`cosolve.methods.conjoint.game.response`
and its delta method to :mod:`cosolve.methods.conjoint.game.uncertainty`; this module only re-exports their names."""

import warnings

from cosolve.methods.conjoint.game.response import averaging_comparison, best_response
from cosolve.methods.conjoint.game.uncertainty import SUPPORT_FLOOR, delta_method, response_delta_method, standard_errors
from cosolve.methods.conjoint.tensors import as_policy

__all__ = [
    "SUPPORT_FLOOR",
    "as_policy",
    "averaging_comparison",
    "best_response",
    "delta_method",
    "response_delta_method",
    "standard_errors",
]

warnings.warn(
    "cosolve.methods.conjoint.minimax_response is deprecated; import from cosolve.methods.conjoint.game.response "
    "and cosolve.methods.conjoint.game.uncertainty",
    DeprecationWarning,
    stacklevel=2,
)
