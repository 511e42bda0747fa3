"""The ``lkh`` baseline (LKH-3 through elkai, an optional extra): published optima on every TSPLIB
edge-weight type, tours checked by cosolve's distances, a quiet stdout, LKH's parameters, and the
error when elkai is missing."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cosolve import Solver, UsageError, read
from cosolve.baselines.lkh import LKH_PRECISION, MISSING, Lkh, lkh_parameters, lkh_precision
from cosolve.method_catalog import methods
from cosolve.problems import TSP

ROOT = Path(__file__).resolve().parents[2]
TYPES = ROOT / "instances" / "tsplib-types"


@pytest.fixture(scope="module")
def elkai():
    return pytest.importorskip("elkai")


def test_registered_for_tsp_only():
    cls = methods()["lkh"]
    assert cls is Lkh and cls.summary and cls.__doc__ and "non-commercial" in cls.summary
    assert cls.problems == {"tsp"}


def test_a_missing_elkai_is_one_line_on_the_command_line():
    code = (
        "import sys; sys.modules['elkai'] = sys.modules['elkai._elkai'] = None\n"
        "from cosolve.cli.main import main\n"
        f"sys.exit(main(['solve', {str(TYPES / 'gr24.tsp')!r}, '--method', 'lkh', '--json']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"cosolve: error: {MISSING}"]
    assert MISSING == "lkh needs the optional package elkai: pip install 'cosolve[lkh]'"


@pytest.mark.parametrize(
    ("name", "optimum"),
    [("att48", 10628), ("ulysses16", 6859), ("bayg29", 1610), ("bays29", 2020), ("gr24", 1272), ("../tsplib/eil51", 426)],
)
def test_published_optima_of_every_edge_weight_type(elkai, capfd, name, optimum):
    """ATT, GEO, EXPLICIT (UPPER_ROW, FULL_MATRIX, LOWER_DIAG_ROW, with and without display data)
    and EUC_2D: LKH's tour, scored by cosolve's own distances, is the TSPLIB95 optimum."""
    path = TYPES / f"{name}.tsp"
    result = Solver("lkh", time_limit=1, seed=1, runs=1).solve(path)  # one run finds these optima (in ~10 ms)
    assert result.objective == optimum
    problem = read(path)
    assert problem.evaluate(result.solution).feasible and problem.evaluate(result.solution).objective == optimum
    assert capfd.readouterr().out == ""  # LKH prints nothing on stdout (the CLI's --json stays clean)


@pytest.mark.parametrize("metric", ["CEIL_2D", "GEO"])
def test_other_metrics_give_valid_tours_at_least_as_short_as_two_opt(elkai, metric):
    coords = np.random.default_rng(2).uniform(-60, 60, (40, 2)).round(2)
    problem = TSP(coords, metric=metric, name="m")
    result = Solver("lkh", time_limit=1, seed=0, runs=1).solve(problem)
    verdict = problem.evaluate(result.solution)
    assert verdict.feasible and verdict.objective == result.objective
    two_opt = Solver("greedy", time_limit=1).solve(problem)  # NN + 2-opt: LK's moves include 2-opt's
    assert result.objective <= two_opt.objective


def test_runs_without_a_time_limit(elkai):
    result = Solver("lkh", seed=0, runs=1).solve(TYPES / "att48.tsp")
    assert result.objective >= 10628 and result.stats["runs_asked"] == 1


def test_lkh_parameters_carry_runs_seed_and_the_time_limit():
    text = lkh_parameters(runs=7, seed=5, time_limit=1.5)
    expected = ["RUNS = 7", "SEED = 5", "TRACE_LEVEL = 0", "PROBLEM_FILE = :stdin:", "TOTAL_TIME_LIMIT = 1.500000"]
    assert text.splitlines() == expected
    assert "TOTAL_TIME_LIMIT" not in lkh_parameters(runs=1, seed=1, time_limit=None)


def test_a_missing_elkai_is_one_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "elkai", None)
    monkeypatch.setitem(sys.modules, "elkai._elkai", None)
    with pytest.raises(UsageError) as error:
        Solver("lkh", time_limit=1).solve(TYPES / "gr24.tsp")
    assert str(error.value) == MISSING


def test_a_budget_that_ends_before_lkhs_first_tour_is_no_solution_not_an_error(elkai):
    """On 1,002 cities LKH's candidate ascent alone outlasts 0.3 s; elkai then hands back a stub
    (10 cities on pr1002), which is no tour."""
    problem = read(Path(__file__).resolve().parents[2] / "instances" / "tsplib-large" / "pr1002.tsp")
    result = Solver("lkh", time_limit=0.3).solve(problem)
    assert result.termination.value == "time_limit"
    if result.solution is not None:  # a machine fast enough to finish a first tour
        assert problem.evaluate(result.solution).feasible
    else:
        assert result.status.value == "no_solution"


def test_precision_drops_where_lkhs_ints_would_overflow_and_larger_distances_are_refused():
    assert lkh_precision(10_000) == LKH_PRECISION
    assert 1 <= lkh_precision(1.5e8) < LKH_PRECISION and lkh_precision(1.5e8) * 1.5e8 <= 2**31 // 4
    with pytest.raises(UsageError, match="overflow LKH's integers"):
        lkh_precision(1e9)
    assert "PRECISION = 3" in lkh_parameters(runs=1, seed=1, time_limit=None, precision=3)
    assert "PRECISION" not in lkh_parameters(runs=1, seed=1, time_limit=None)


def test_coordinates_scaled_past_lkhs_default_precision_give_the_same_tour_length(elkai):
    # with PRECISION 100, distances of 10^8 overflow LKH's ints and its assertions abort the process
    coords = np.round(np.random.default_rng(0).random((40, 2)) * 1e3)
    small = Solver("lkh", time_limit=1, seed=0, runs=1).solve(TSP(coords, metric="EUC_2D"))
    large = Solver("lkh", time_limit=1, seed=0, runs=1).solve(TSP(coords * 1e5, metric="EUC_2D"))
    assert large.objective == pytest.approx(small.objective * 1e5, rel=1e-3)
