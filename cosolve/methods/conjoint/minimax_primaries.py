"""Deprecated path: each party's numpy problem of the conjoint game moved to
:mod:`cosolve.methods.conjoint.game.party_problem`; this module only re-exports its names."""

import warnings

from cosolve.methods.conjoint.game.party_problem import (
    MAX_SQP,
    Moments,
    PartyProblem,
    PartySolution,
    jacobians,
    maximise,
    party_problems,
    pooled,
)

__all__ = ["MAX_SQP", "Moments", "PartyProblem", "PartySolution", "jacobians", "maximise", "party_problems", "pooled"]

warnings.warn(
    "cosolve.methods.conjoint.minimax_primaries is deprecated; import from cosolve.methods.conjoint.game.party_problem",
    DeprecationWarning,
    stacklevel=2,
)
