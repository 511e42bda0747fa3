"""The two-party conjoint game (issue 8; Jerzak, Chandra & Hazra 2026): the restricted minimax
equilibrium of two parties' product policies over one design, with delta-method standard errors.

Entry points: :func:`solve_game` (fitted outcome models per voter group, electorate shares, optional
primaries) and :func:`solve_presidential_game` (fits those models from a candidate-choice conjoint,
then solves); both return a :class:`GameResult`.

Modules, each importing only those above it in this list:

- :mod:`.payoff`: the game's inputs (:class:`~.payoff.GameSpec`), its vote share's exact control value
  and the exact ``enumerate`` estimator;
- :mod:`.monte_carlo`: the ``mc`` estimator (common random numbers, Rao-Blackwellised surrogate);
- :mod:`.party_problem`: each party's own problem in numpy (identity links, L2 penalty) and its SQP;
- :mod:`.logit_game`: the players' softmax logits and the game's payoffs as torch functions of them;
- :mod:`.extragradient_newton`: extra-gradient and Newton on the first-order conditions, supports, re-centring;
- :mod:`.uncertainty`: the delta method of an equilibrium and of a best response;
- :mod:`.game_result`: :class:`GameResult` and :class:`AveragingComparison`;
- :mod:`.response`: best responses and the averaging comparison;
- :mod:`.separable`: the games that separate into two numpy problems (estimators ``qp`` and ``sqp``);
- :mod:`.equilibrium`: :func:`solve_game`, choosing between the separable and the iterative solve;
- :mod:`.presidential`: :func:`solve_presidential_game`, the game's models fit from the data.
"""

from cosolve.methods.conjoint.game.equilibrium import ENUMERATE_MAX_PROFILES, ESTIMATORS, solve_game
from cosolve.methods.conjoint.game.game_result import AveragingComparison, GameResult
from cosolve.methods.conjoint.game.presidential import GameModels, game_models, solve_presidential_game

__all__ = [
    "ENUMERATE_MAX_PROFILES",
    "ESTIMATORS",
    "AveragingComparison",
    "GameModels",
    "GameResult",
    "game_models",
    "solve_game",
    "solve_presidential_game",
]
