"""The command line as a user meets it: exit codes, one-line errors, valid JSON."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCP41 = ROOT / "instances" / "setcover" / "scp41.txt"
EIL51 = ROOT / "instances" / "tsplib" / "eil51.tsp"


def cosolve(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "cosolve", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120, env=env
    )


def test_solve_json_is_one_valid_object():
    proc = cosolve("solve", SCP41, "--method", "greedy", "--time", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    for key in ("status", "termination", "objective", "bound", "gap", "time", "method", "instance"):
        assert key in data
    assert data["status"] == "feasible" and data["method"] == "greedy" and data["instance"] == "scp41"
    assert 429 <= data["objective"] <= 1.15 * 429


def test_solve_reports_the_seconds_numba_compiled_which_a_warm_cache_saves(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # empty: the greedy's kernel compiles in the first run
    graph = ROOT / "instances" / "graphs" / "er50_p0.1_s1.col"
    args = ("solve", graph, "--problem", "mis", "--method", "greedy", "--time", "5")
    # the run on a second empty cache needs nothing from the runs on the first: it goes side by side with them
    command = [sys.executable, "-m", "cosolve", *map(str, args)]
    other_cache = {**env, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    cold_run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=other_cache)
    first, second = (json.loads(cosolve(*args, "--json", env=env).stdout) for _ in range(2))
    assert first["compile_time"] > 0.05 and first["time"] >= first["compile_time"]
    assert second["compile_time"] == 0.0 and second["objective"] == first["objective"]
    warm = cosolve(*args, env=env).stdout
    assert "compil" not in warm  # the notice and the summary mention it only when it happens
    cold = cold_run.communicate(timeout=120)[0]
    assert re.search(r"^time .*numba compiled kernels for \d+\.\d\d s of it, cached for later runs\)$", cold, re.M)
    assert cold.count("compiling numba kernels (a first run") == 1  # said once, before the set-up line
    assert cold.index("compiling numba kernels") < cold.index("set up in")
    scip = json.loads(cosolve("solve", SCP41, "--method", "scip", "--time", "5", "--json", env=env).stdout)
    assert scip["compile_time"] == 0.0  # no kernel module imported


def test_solve_counts_only_the_compiling_of_its_own_set_up_and_solve(monkeypatch, capsys):
    from types import SimpleNamespace

    from cosolve.cli.main import main
    from cosolve.core import numba_compile

    monkeypatch.setattr(numba_compile, "_clock", SimpleNamespace(seconds=5.0))  # compiled before this call
    assert main(["solve", str(SCP41), "--method", "scip", "--time", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["compile_time"] == 0.0


def test_solve_logs_improvements_and_writes_the_solution(tmp_path):
    out = tmp_path / "scp41.sol"
    proc = cosolve("solve", SCP41, "--method", "scip", "--time", "20", "--output", out)
    assert proc.returncode == 0, proc.stderr
    assert "status       optimal" in proc.stdout
    assert "objective    429" in proc.stdout
    assert any(line.rstrip().endswith("scip") for line in proc.stdout.splitlines())  # improvement lines
    columns = [int(line) for line in out.read_text().splitlines() if not line.startswith("#")]
    import cosolve as cs

    problem = cs.read(SCP41)
    import numpy as np

    x = np.zeros(problem.n_cols, dtype=np.int8)
    x[np.array(columns) - 1] = 1
    assert problem.evaluate(x).feasible and problem.evaluate(x).objective == 429


def test_methods_and_info():
    proc = cosolve("methods")
    assert proc.returncode == 0
    for name in ("scip", "cpsat", "greedy", "ortools-routing"):
        assert name in proc.stdout
    info = cosolve("info", EIL51, "--json")
    assert info.returncode == 0
    assert json.loads(info.stdout) | {"cities": 51} == json.loads(info.stdout)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "missing.txt", "--method", "greedy"], "missing.txt"),
        (["solve", SCP41, "--method", "nosuch"], "valid methods:"),
        (["solve", SCP41, "--method", "ortools-routing"], "does not solve setcover"),
        (["solve", SCP41, "--method", "greedy", "--time", "-1"], "--time"),
        (["solve", SCP41, "--method", "greedy", "--set", "nokey=1"], "unknown option"),
        (["solve", SCP41, "--method", "greedy", "--output", "/nonexistent/dir/x.sol"], "does not exist"),
        (["solve", "--method"], "error"),
        (["info", ROOT / "instances"], "instances"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    proc = cosolve(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and needle in err[0]


def test_malformed_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("3 4\n1 1 1 1\n2 1 2\n2 x 3\n1 4\n")
    proc = cosolve("solve", bad, "--method", "greedy")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{bad}:4" in proc.stderr


def test_output_is_not_touched_when_the_input_is_bad(tmp_path):
    out = tmp_path / "keep.sol"
    out.write_text("precious\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("3 4\n1 1\n")
    proc = cosolve("solve", bad, "--method", "greedy", "--output", out)
    assert proc.returncode == 2
    assert out.read_text() == "precious\n"


def test_scip_start_does_not_import_torch():
    code = (
        "import sys; from cosolve.cli.main import main; "
        f"main(['solve', {str(SCP41)!r}, '--method', 'scip', '--time', '1', '--json']); print('torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert '"status": "optimal"' in proc.stdout and proc.stdout.strip().endswith("False"), proc.stderr


def test_export_writes_a_model_that_reads_back(tmp_path):
    out = tmp_path / "scp41.mps"
    proc = cosolve("export", SCP41, out)
    assert proc.returncode == 0, proc.stderr
    import cosolve as cs

    back, original = cs.read(out), cs.read(SCP41)
    assert back.kind == "setcover" and back.sizes() == original.sizes()
    assert np.array_equal(back.costs, original.costs) and (back.matrix != original.matrix).nnz == 0


@pytest.mark.slow
@pytest.mark.parametrize("method", ["scip", "cpsat"])
def test_ctrl_c_on_the_command_line_prints_the_incumbent(tmp_path, method):
    import signal
    import time

    from cosolve.generators.setcover import random_setcover
    from cosolve.io.orlib import write_orlib

    path = tmp_path / "hard.txt"
    write_orlib(random_setcover(500, 5000, density=0.02, seed=3), path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosolve", "solve", str(path), "--method", method, "--time", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    for line in proc.stdout:  # wait for the first improvement line
        lines.append(line)
        if line.rstrip().endswith(method) and "s  " in line:
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)  # a 60 s solve: only the interrupt ends it within this
    assert proc.returncode == 0, err
    assert "termination  interrupted" in out and "status       feasible" in out
    assert "Traceback" not in err


def test_output_may_not_be_the_input(tmp_path):
    inst = tmp_path / "inst.txt"
    inst.write_bytes(SCP41.read_bytes())
    proc = cosolve("solve", inst, "--method", "greedy", "--output", inst)
    assert proc.returncode == 2 and "is the input file" in proc.stderr
    assert inst.read_bytes() == SCP41.read_bytes()
    proc = cosolve("export", inst, inst)
    assert proc.returncode == 2 and inst.read_bytes() == SCP41.read_bytes()


def test_written_files_get_the_usual_mode(tmp_path):
    import os

    out = tmp_path / "s.sol"
    assert cosolve("solve", SCP41, "--method", "greedy", "--output", out).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_info_on_a_graph_needs_no_problem_and_names_the_format():
    proc = cosolve("info", ROOT / "instances" / "graphs" / "er50_p0.1_s1.col", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["format"] == "dimacs" and data["nodes"] == 50 and data["problem"].startswith("any of mis, maxcut")


def test_an_option_below_its_minimum_fails_before_reading(tmp_path):
    broken = tmp_path / "broken.col"
    broken.write_text("p edge 3 1\ne 1 oops\n")  # reading it would fail too: the option's error must come first
    proc = cosolve("solve", broken, "-p", "maxclique", "-m", "greedy", "--set", "clique_starts=0")
    assert proc.returncode == 2 and "must be at least 1" in proc.stderr and "broken.col" not in proc.stderr
    assert proc.stdout == ""


def test_unsupported_problem_fails_before_any_output():
    proc = cosolve("solve", SCP41, "--method", "ortools-routing")
    assert proc.returncode == 2 and proc.stdout == ""


def test_non_utf8_model_files_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.lp"
    bad.write_bytes(b"Minimize\n obj: x\xe9 + y\nSubject To\n c1: x\xe9 + y >= 1\nEnd\n")
    proc = cosolve("info", bad)
    assert proc.returncode == 2 and f"{bad}:2: not UTF-8" in proc.stderr and "Traceback" not in proc.stderr


def test_huge_time_limits_mean_no_limit():
    proc = cosolve("solve", SCP41, "--method", "scip", "--time", "1e21", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "optimal"


def test_plot_draws_a_tsp_tour_and_refuses_other_kinds_before_solving(tmp_path):
    picture = tmp_path / "tour.png"
    out = cosolve("solve", str(ROOT / "instances/tsplib/eil51.tsp"), "--method", "greedy", "--time", "5", "--plot", str(picture))
    assert out.returncode == 0, out.stderr
    assert picture.stat().st_size > 1000 and picture.read_bytes()[:4] == b"\x89PNG"
    assert f"plot         {picture}" in out.stdout
    refused = tmp_path / "cover.png"
    out = cosolve("solve", str(ROOT / "instances/setcover/scp41.txt"), "--method", "greedy", "--plot", str(refused))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no picture for setcover" in out.stderr
    assert not refused.exists() and out.stdout == ""
    # a kind that draws, but an instance without coordinates: refused before solving too
    out = cosolve("solve", str(ROOT / "instances/tsplib-types/gr24.tsp"), "--method", "greedy", "--plot", str(refused))
    assert out.returncode == 2 and out.stdout == "" and not refused.exists()
    assert (
        out.stderr.strip()
        == "cosolve: error: --plot: tsp: gr24 has no coordinates to draw (EXPLICIT weights without display data)"
    )
    assert cosolve("methods").stdout.strip().endswith("`cosolve solve --plot FILE` draws the solutions of: tsp, jigsaw")


def test_plot_of_a_jigsaw_shows_before_and_after(tmp_path):
    import numpy as np

    from cosolve.cli.plots import plot_solution
    from cosolve.problems.jigsaw import cut, draw_reassembly

    problem = cut(np.linspace(0, 1, 24 * 24).reshape(24, 24), 3, seed=1)
    picture = tmp_path / "jigsaw.png"
    plot_solution(problem, problem.truth, str(picture))
    assert picture.read_bytes()[:4] == b"\x89PNG"
    figure = draw_reassembly(problem, problem.truth)
    shuffled, reassembled = figure.axes
    assert shuffled.get_title().startswith("shuffled") and reassembled.get_title().startswith("reassembled")
    assert reassembled.get_title().endswith(f"{problem.discontinuity(problem.truth):.3g}")


def test_validate_checks_a_solution_file_against_its_instance(tmp_path):
    out = tmp_path / "scp41.sol"
    assert cosolve("solve", SCP41, "--method", "greedy", "--time", "5", "--output", out).returncode == 0
    proc = cosolve("validate", out, SCP41, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    columns = [int(line) for line in out.read_text().splitlines() if not line.startswith("#")]
    from cosolve.io import read

    p = read(SCP41)
    assert data["feasible"] is True and data["objective"] == p.costs[np.array(columns) - 1].sum()
    assert data["violation"] is None
    (tmp_path / "part.sol").write_text("\n".join(map(str, columns[:3])) + "\n")  # three columns cover few rows
    x = np.zeros(p.n_cols, dtype=np.int64)
    x[np.array(columns[:3]) - 1] = 1
    first = int(np.flatnonzero(p.matrix @ x == 0)[0]) + 1
    proc = cosolve("validate", tmp_path / "part.sol", SCP41)
    assert proc.returncode == 1, proc.stderr
    assert "feasible   no" in proc.stdout and f"violation  row {first} is not covered" in proc.stdout
    (tmp_path / "bad.sol").write_text("1\n2\nseven\n")
    proc = cosolve("validate", tmp_path / "bad.sol", SCP41)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == f"cosolve: error: {tmp_path / 'bad.sol'}:3: expected a column number, got 'seven'"


def test_validate_takes_a_graph_files_problem_from_the_solutions_header(tmp_path):
    graph = tmp_path / "path.edges"
    graph.write_text("1 2\n2 3\n3 4\n")
    out = tmp_path / "cut.sol"
    assert cosolve("solve", graph, "--problem", "maxcut", "--method", "greedy", "--time", "2", "--output", out).returncode == 0
    proc = cosolve("validate", out, graph, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["problem"] == "maxcut" and json.loads(proc.stdout)["objective"] == 3
    (tmp_path / "bare.sol").write_text("1\n3\n")  # no header: the file stays ambiguous
    proc = cosolve("validate", tmp_path / "bare.sol", graph)
    assert proc.returncode == 2 and "pass --problem" in proc.stderr


def test_validate_a_tsplib_optimal_tour_gives_its_published_length():
    proc = cosolve("validate", ROOT / "instances" / "tsplib" / "eil51.opt.tour", EIL51, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["objective"] == 426  # TSPLIB's optimum of eil51


def test_validate_calls_a_broken_tour_infeasible_and_warns_of_another_instances_header(tmp_path):
    broken = tmp_path / "dup.sol"
    broken.write_text("\n".join(["1", "9", "9"] + [str(c) for c in range(2, 9)] + [str(c) for c in range(10, 51)]) + "\n")
    proc = cosolve("validate", broken, EIL51, "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["feasible"] is False and "not visited exactly once" in data["violation"]
    tour = "\n".join(str(c) for c in range(1, 52))
    other = tmp_path / "other.sol"
    other.write_text(f"# cosolve solution: problem=tsp, instance=kroA100, objective=21282\n{tour}\n")
    proc = cosolve("validate", other, EIL51)
    assert proc.returncode == 0, proc.stderr
    assert "the solution file names instance kroA100, not eil51" in proc.stdout and "objective 21282" in proc.stdout


def test_solve_counts_the_set_up_in_its_time_limit(monkeypatch, capsys):
    # --time bounds the command: the method's set-up is part of it, the solve gets the rest
    import time

    from cosolve.cli.main import main
    from cosolve.core import registry
    from cosolve.core.method import Method, Outcome
    from cosolve.core.result import Termination
    from cosolve.method_catalog import methods

    class SlowSetUp(Method):
        name = "slow-setup"
        problems = frozenset({"mis"})

        def prepare(self, problem):
            time.sleep(0.2)  # loading a model, say

        def solve(self, problem, ctx):
            ctx.trace.offer(np.zeros(problem.n, np.int8))
            return Outcome(Termination.COMPLETED, stats={"limit": ctx.deadline.time_limit})

    methods()  # the registry is loaded before the test method joins it
    monkeypatch.setitem(registry.METHODS._items, SlowSetUp.name, SlowSetUp)
    graph = ROOT / "instances" / "graphs" / "er50_p0.1_s1.col"
    assert main(["solve", str(graph), "--problem", "mis", "--method", "slow-setup", "--time", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    setup = data["setup_time"]
    assert setup >= 0.2 and data["time_limit"] == 2
    assert data["stats"]["limit"] == max(2.0 - setup, 1.0)  # what the set-up left, at least half the budget
    assert data["time"] >= setup and data["trace"][0]["time"] >= setup  # counted from the start of the set-up
    assert main(["solve", str(graph), "--problem", "mis", "--method", "slow-setup", "--time", "2"]) == 0
    out = capsys.readouterr().out
    assert "time limit 2 s with the set-up" in out and re.search(r"^time +\d+\.\d\d s \(set-up \d+\.\d\d s\)$", out, re.M)


def test_json_names_no_output_file_when_no_solution_was_written(tmp_path):
    model = tmp_path / "infeasible.lp"
    model.write_text("Minimize\n obj: x + y\nSubject To\n c1: x + y >= 3\nBounds\n 0 <= x <= 1\n 0 <= y <= 1\n")
    model.write_text(model.read_text() + "General\n x y\nEnd\n")
    stale = tmp_path / "old.sol"
    stale.write_text("stale\n")
    proc = cosolve("solve", model, "--method", "scip", "--time", "5", "--json", "--output", stale)
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["status"] == "infeasible" and out["output"] is None
    assert stale.read_text() == "stale\n"


def test_the_log_shows_a_move_of_the_bound_alone_at_most_once_a_second(capsys):
    from cosolve.cli.solve import incumbent_log
    from cosolve.core.result import TracePoint

    log = incumbent_log("scip")
    for k in range(30):  # 30 bound moves in 0.3 s, then one 1.1 s later, then a new incumbent
        log(TracePoint(0.01 * k, 69.0, 60.0 + 0.1 * k))
    log(TracePoint(1.4, 69.0, 65.0))
    log(TracePoint(1.41, 68.0, 65.0))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["0.00s", "1.40s", "1.41s"]


def test_the_summary_shows_a_counter_not_reached_as_a_dash_and_a_rudy_file_names_the_set_cover_formats(tmp_path):
    from cosolve.cli.solve import _stat

    assert _stat(float("nan")) == "-" and _stat(0.123456) == "0.1235" and _stat(3) == "3"
    rail = tmp_path / "rail3.txt"  # 3 rows, 3 columns of one row each: its first lines read as a rudy graph too
    rail.write_text("3 3\n2 1 1\n3 1 2\n1 1 3\n")
    proc = cosolve("solve", rail, "--method", "greedy", "--time", "1")
    assert proc.returncode == 2 and "--format rail|orlib if it is a set cover" in proc.stderr
    assert cosolve("solve", rail, "--method", "greedy", "--time", "1", "--format", "rail").returncode == 0
