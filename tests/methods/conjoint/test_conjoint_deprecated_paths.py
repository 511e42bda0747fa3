"""The conjoint game's old module paths still import, warn that they are deprecated, and re-export the
game subpackage's objects."""

from __future__ import annotations

import importlib
import sys

import pytest

from cosolve.methods.conjoint import game
from cosolve.methods.conjoint.game import equilibrium, party_problem, presidential, response, uncertainty

OLD_PATHS = {
    "cosolve.methods.conjoint.presidential": {
        "solve_presidential_game": presidential.solve_presidential_game,
        "game_models": presidential.game_models,
        "GameModels": presidential.GameModels,
    },
    "cosolve.methods.conjoint.minimax": {
        "solve_game": equilibrium.solve_game,
        "make_estimator": equilibrium.make_estimator,
        "GameResult": game.GameResult,
        "AveragingComparison": game.AveragingComparison,
    },
    "cosolve.methods.conjoint.minimax_response": {
        "best_response": response.best_response,
        "averaging_comparison": response.averaging_comparison,
        "delta_method": uncertainty.delta_method,
        "standard_errors": uncertainty.standard_errors,
    },
    "cosolve.methods.conjoint.minimax_primaries": {
        "jacobians": party_problem.jacobians,
        "maximise": party_problem.maximise,
        "party_problems": party_problem.party_problems,
    },
}


@pytest.mark.parametrize("path", sorted(OLD_PATHS))
def test_old_path_warns_and_reexports(path, monkeypatch):
    monkeypatch.delitem(sys.modules, path, raising=False)  # import it afresh, so that it warns again
    with pytest.warns(DeprecationWarning, match="cosolve.methods.conjoint.game"):
        module = importlib.import_module(path)
    for name, obj in OLD_PATHS[path].items():
        assert getattr(module, name) is obj


def test_the_game_package_exports_its_entry_points():
    assert game.solve_game is equilibrium.solve_game
    assert game.solve_presidential_game is presidential.solve_presidential_game
    assert {"solve_game", "solve_presidential_game", "GameResult"} <= set(game.__all__)


def test_the_reader_at_its_old_path_warns_and_is_the_io_reader():
    from cosolve.io import conjoint_csv
    from cosolve.problems.conjoint import data

    with pytest.warns(DeprecationWarning, match="moved to cosolve.io.conjoint_csv.read_conjoint"):
        reader = data.read_conjoint
    assert reader is conjoint_csv.read_conjoint
    with pytest.raises(AttributeError):
        data.no_such_name  # noqa: B018
