import pytest

from cosolve.core.method import Option
from cosolve.core.options import parse_assignments, resolve_options
from cosolve.errors import UsageError

DECLARED = {
    "size": Option(int, 10, "neighbourhood size"),
    "rate": Option(float, 0.5, "a rate"),
    "adaptive": Option(bool, True, "adapt"),
    "mode": Option(str, "a", "mode", choices=("a", "b")),
}


def test_defaults_and_string_conversion():
    values = resolve_options("m", DECLARED, parse_assignments(["size=3", "rate=1e-2", "adaptive=no", "mode=b"]))
    assert values == {"size": 3, "rate": 0.01, "adaptive": False, "mode": "b"}
    assert resolve_options("m", DECLARED, {"rate": 2})["rate"] == 2.0


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"sise": 3}, "unknown option 'sise' for method m; valid options: adaptive, mode, rate, size"),
        ({"size": "x"}, "expected int"),
        ({"adaptive": "maybe"}, "expected bool"),
        ({"mode": "c"}, "choose one of a, b"),
        ({"size": 2.5}, "expected int"),
        ({"rate": "nan"}, "must be a finite number"),
        ({"rate": float("inf")}, "must be a finite number"),
    ],
)
def test_bad_options_name_the_problem(given, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        resolve_options("m", DECLARED, given)


def test_parse_assignments_needs_key_value():
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_assignments(["novalue"])
    with pytest.raises(UsageError, match="--set a given twice \\('1' and '2'\\)"):
        parse_assignments(["a=1", "b=3", "a=2"])  # the last value won, silently


def test_bounds_and_auto():
    declared = {"share": Option(float, 0.5, "a share", minimum=0.0, below=1.0), "cost": Option(float, None, "worked out")}
    assert resolve_options("m", declared, parse_assignments(["share=0.99", "cost=auto"])) == {"share": 0.99, "cost": None}
    with pytest.raises(UsageError, match="must be below 1"):
        resolve_options("m", declared, {"share": 1.0})
    with pytest.raises(UsageError, match="must be at least 0"):
        resolve_options("m", declared, {"share": -0.1})
    with pytest.raises(UsageError, match="expected float"):
        resolve_options("m", declared, {"share": "auto"})  # auto only where the default is worked out


def test_an_empty_choice_is_named_in_the_error():
    declared = {"problem": Option(str, "", "problem", choices=("", "mis"))}
    with pytest.raises(UsageError, match=r'choose one of "" \(the default\), mis$'):
        resolve_options("m", declared, {"problem": "x"})
