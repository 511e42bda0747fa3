"""The ``cft`` baseline (pycft, an optional extra): optimal answers, the Lagrangian bound, the
files pycft reads, the time limit, a quiet stdout and the error when pycft is missing."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve import Solver, Status, Termination, UsageError
from cosolve.baselines.cft import MISSING, Cft, lagrangian_bound, write_instance
from cosolve.generators.setcover import random_setcover
from cosolve.io import read
from cosolve.method_catalog import methods
from cosolve.problems import SetCover

ROOT = Path(__file__).resolve().parents[2]
SETCOVER = ROOT / "instances" / "setcover"


@pytest.fixture(scope="module")
def pycft():
    return pytest.importorskip("pycft")


@pytest.fixture(scope="module")
def optima():
    lines = (SETCOVER / "optima.csv").read_text().splitlines()[1:]
    return {line.split(",")[0]: float(line.split(",")[-1]) for line in lines}


def test_registered_for_set_cover_only():
    cls = methods()["cft"]
    assert cls is Cft and cls.summary and cls.__doc__
    assert cls.problems == {"setcover"}


def test_a_missing_pycft_is_one_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pycft", None)  # makes `from pycft import ...` raise ImportError
    monkeypatch.setitem(sys.modules, "pycft._bindings", None)
    with pytest.raises(UsageError) as error:
        Solver("cft", time_limit=1).solve(SETCOVER / "scp41.txt")
    assert str(error.value) == MISSING == "cft needs the optional package pycft: pip install 'cosolve[cft]'"


def test_a_missing_pycft_is_one_line_on_the_command_line():
    code = (
        "import sys; sys.modules['pycft'] = sys.modules['pycft._bindings'] = None\n"
        "from cosolve.cli.main import main\n"
        f"sys.exit(main(['solve', {str(SETCOVER / 'scp41.txt')!r}, '--method', 'cft', '--json']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"cosolve: error: {MISSING}"]


def test_scp41_is_solved_to_its_optimum(pycft, helpers, capfd):
    result = Solver("cft", time_limit=5).solve(SETCOVER / "scp41.txt")
    assert result.objective == 429 and read(SETCOVER / "scp41.txt").evaluate(result.solution).feasible
    assert result.status is Status.FEASIBLE and result.termination is Termination.COMPLETED
    assert result.bound is not None and 0 < result.bound <= 429
    helpers.assert_monotone(result)
    assert capfd.readouterr().out == ""  # pycft prints nothing on stdout (the CLI's --json stays clean)


@pytest.mark.parametrize("seed", range(4))
def test_tiny_instances_are_solved_to_the_optimum(pycft, helpers, seed):
    problem = helpers.tiny_setcover(seed)
    result = Solver("cft", time_limit=2).solve(problem)
    optimum = helpers.brute_force_binary(problem, problem.n_cols)
    assert problem.evaluate(result.solution).feasible and result.objective == optimum
    assert result.bound is None or result.bound <= optimum
    assert result.status is (Status.OPTIMAL if result.bound == optimum else Status.FEASIBLE)


@pytest.mark.parametrize(
    "costs",
    [[1e-5, 2.5, 0.1, 3.0, 7.0, 0.25], [0.0, 1.0, 1.0, 2.0, 5.0, 3.0], [1.5e7, 3e7, 1e7, 2e7, 1.0, 4e7]],
    ids=["decimal", "free-column", "large"],
)
def test_decimal_free_and_empty_columns(pycft, helpers, costs):
    a = np.array([[1, 1, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0]])  # column 5 is empty
    problem = SetCover(np.array(costs), sp.csr_array(a))
    result = Solver("cft", time_limit=2).solve(problem)
    optimum = helpers.brute_force_binary(problem, problem.n_cols)
    assert problem.evaluate(result.solution).feasible and result.objective == pytest.approx(optimum)
    assert result.bound is None or result.bound <= optimum + 1e-9


def test_both_file_layouts_parse_back(pycft, tmp_path):
    from pycft import _bindings

    for costs, parser in ((np.arange(1.0, 6.0), "RAIL"), (np.array([0.5, 1, 2, 3, 4]), "SCP")):
        problem = SetCover(costs, sp.random_array((40, 5), density=0.5, rng=np.random.default_rng(1)) + sp.eye_array(40, 5))
        folder = tmp_path / parser
        folder.mkdir()
        path, written = write_instance(problem, folder)
        env = _bindings.Environment()
        env.inst_path, env.parser, env.verbose = path, written, 0
        inst = _bindings.parse_inst_and_initsol(env).inst
        csc = problem.csc
        assert written == parser and list(inst.costs) == pytest.approx(costs.tolist())
        assert list(inst.cols.begs) == csc.indptr.tolist() and list(inst.cols.idxs) == csc.indices.tolist()


def test_the_bound_is_below_the_optimum_on_or_library_instances(pycft, optima):
    for name in ("scp41", "scp51", "scp61", "scpa1", "scpe1"):
        result = Solver("cft", time_limit=5).solve(SETCOVER / f"{name}.txt")
        assert result.objective >= optima[name] and result.status is Status.FEASIBLE
        assert result.bound is not None and 0 < result.bound <= optima[name], name


def test_more_rows_than_pycft_can_index_is_a_usage_error(pycft):
    rows = np.arange(40_000)
    problem = SetCover(np.ones(7), sp.csr_array((np.ones(len(rows), dtype=np.int8), (rows, rows % 7)), shape=(len(rows), 7)))
    with pytest.raises(UsageError, match="at most 32767 rows"):
        Solver("cft", time_limit=1).solve(problem)


def test_lagrangian_bound_by_hand():
    # column 0 (cost 2) covers rows 0 and 1, column 1 (cost 3) rows 1 and 2, column 2 (cost 1) row 2
    problem = SetCover(np.array([2.0, 3.0, 1.0]), sp.csr_array(np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]])))
    assert lagrangian_bound(problem, [0, 0, 0]) is None
    assert lagrangian_bound(problem, [1.0, 1.0, 1.0]) == 3  # 3 + min(0, 2-2) + min(0, 3-2) + min(0, 1-1)
    assert lagrangian_bound(problem, [2.0, 0.0, 1.0]) == 3  # 3 + 0 + min(0, 3-1) + 0
    assert lagrangian_bound(problem, [5.0, 0.0, 0.0]) == 2  # 5 + min(0, 2-5); the optimum is 3
    assert lagrangian_bound(problem, [1, 2]) is None  # not one multiplier per row
    decimal = SetCover(np.array([0.5, 1.5, 1.0]), problem.matrix)
    assert lagrangian_bound(decimal, [0.5, 0.0, 0.25]) == pytest.approx(0.75)


def test_time_limit_is_honoured_on_a_large_instance(pycft, helpers):
    problem = random_setcover(1000, 50_000, nnz=500_000, seed=3)
    solver = Solver("cft", time_limit=1)
    solver.prepare(problem)
    result = solver.solve(problem)
    print(f"cft: time {result.time:.3f} s for a 1 s limit, stats {result.stats}")
    assert result.status is Status.FEASIBLE and problem.evaluate(result.solution).feasible
    helpers.assert_monotone(result)
    tiny_budget = Solver("cft", time_limit=0.02).solve(problem)
    assert tiny_budget.termination is Termination.TIME_LIMIT


def test_no_solve_when_the_deadline_is_already_up(pycft, helpers):
    import time

    problem = helpers.tiny_setcover(1)
    method = Cft()
    ctx = helpers.context(problem, 1e-6, method=method)
    time.sleep(0.01)
    assert helpers.run(method, problem, ctx) is Termination.TIME_LIMIT
    assert ctx.trace.solution is None


def test_pycft_runs_with_an_environment_built_after_the_parsing(pycft, helpers, monkeypatch):
    """pycft measures its time limit from the moment its ``Environment`` is built; one built
    before writing and parsing the instance would count those seconds twice."""
    import types

    import cosolve.baselines.cft as cft_module

    real = cft_module.import_pycft()
    events: list[tuple[str, object]] = []

    def environment():
        env = real.Environment()
        events.append(("built", env))
        return env

    def parse(env):
        data = real.parse_inst_and_initsol(env)
        events.append(("parsed", env))
        return data

    def run(env, inst, init_sol):
        events.append(("run", env))
        return real.run(env, inst, init_sol)

    spy = types.SimpleNamespace(Environment=environment, parse_inst_and_initsol=parse, run=run)
    monkeypatch.setattr(cft_module, "import_pycft", lambda: spy)
    problem = helpers.tiny_setcover(2)
    result = Solver("cft", time_limit=5).solve(problem)
    assert problem.evaluate(result.solution).feasible
    kinds = [kind for kind, _ in events]
    ran_with = next(env for kind, env in events if kind == "run")
    built_at = next(k for k, (kind, env) in enumerate(events) if kind == "built" and env is ran_with)
    assert kinds.index("parsed") < built_at < kinds.index("run")
