"""Import paths the redesign retired still give their objects, with a deprecation warning."""

import pytest

import cosolve
from cosolve import method_catalog, solver


@pytest.mark.parametrize(
    ("module", "name", "expected"),
    [
        ("cosolve.core.solver", "Solver", solver.Solver),
        ("cosolve.core.solver", "solve", solver.solve),
        ("cosolve.core.registry", "methods", method_catalog.methods),
        ("cosolve.core.registry", "get_method", method_catalog.get_method),
    ],
)
def test_a_retired_path_warns_and_gives_the_object(module, name, expected):
    import importlib

    old = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{module}.{name} moved to"):
        assert getattr(old, name) is expected


def test_the_retired_solver_path_still_solves():
    with pytest.warns(DeprecationWarning):
        from cosolve.core.solver import Solver
    assert Solver is cosolve.Solver
    with pytest.raises(AttributeError):
        import cosolve.core.solver as old

        old.not_a_name  # noqa: B018
