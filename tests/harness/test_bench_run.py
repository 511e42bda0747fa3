"""The benchmark harness end to end, through the CLI: Dask runs, kills, resume, reports."""

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SUITE = """
name = "tiny"
budgets = [{budget}]
seeds = [0]
threads = 1

[[instances]]
name = "er"
generator = "erdos_renyi"
params = {{ n = 30, p = 0.2 }}
problem = "mis"
seeds = {seeds}

[[methods]]
name = "greedy"
{extra}
"""


def write_suite(folder: Path, *, budget=1, seeds=(1, 2), extra="") -> Path:
    path = folder / "suite.toml"
    path.write_text(SUITE.format(budget=budget, seeds=list(seeds), extra=extra))
    return path


def bench(*args, env=None, **kw):
    command = [sys.executable, "-m", "cosolve", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, **kw)


def rows(out: Path) -> list[dict]:
    db = sqlite3.connect(out / "results.sqlite")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM jobs ORDER BY key")]
    finally:
        db.close()


def test_two_worker_run_records_every_job_and_writes_reports(tmp_path):
    suite = write_suite(tmp_path, extra='\n[[methods]]\nname = "scip"\n')
    out = tmp_path / "out"
    proc = bench("bench", suite, "--out", out, "--workers", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    jobs = rows(out)
    assert len(jobs) == 4 and {j["status"] for j in jobs} == {"done"}
    assert {j["label"] for j in jobs} == {"greedy", "scip"}
    for j in jobs:
        assert j["objective"] is not None and json.loads(j["trace"]) and json.loads(j["options_used"]) is not None
        assert j["solve_compile_time"] >= 0.0  # numba compiling inside the budget (its kernels: in the set-up)
    assert [j["solve_compile_time"] for j in jobs if j["label"] == "scip"] == [0.0, 0.0]  # no numba at all
    runs = sqlite3.connect(out / "results.sqlite").execute("SELECT workers FROM runs").fetchall()
    assert runs == [(2,)]
    csv_lines = (out / "results.csv").read_text().strip().splitlines()
    assert len(csv_lines) == 1 + 4
    report = (out / "report.md").read_text()
    assert "## er, 1 s (2 instances)" in report and "best found in run" in report
    assert (out / "profile.png").stat().st_size > 0 and (out / "anytime_er.png").stat().st_size > 0

    # the reports come back from the database alone
    before = report
    for name in ("results.csv", "report.md", "profile.png", "anytime_er.png"):
        (out / name).unlink()
    again = bench("report", out)
    assert again.returncode == 0, again.stderr
    assert (out / "report.md").read_text() == before
    assert len((out / "results.csv").read_text().strip().splitlines()) == 5

    # a second run into the same folder refuses to mix results unless asked to resume
    refused = bench("bench", suite, "--out", out, "--no-progress")
    assert refused.returncode == 2 and "--resume" in refused.stderr
    resumed = bench("bench", suite, "--out", out, "--resume", "--no-progress")
    assert resumed.returncode == 0 and "4 jobs (4 already recorded)" in resumed.stdout


SLEEPY_PLUGIN = (
    "import time\n"
    "from cosolve.core.method import Method, Outcome\n"
    "from cosolve.core.registry import register\n"
    "from cosolve.core.result import Termination\n"
    "@register\n"
    "class Sleepy(Method):\n"
    "    name = 'sleepy'\n"
    "    problems = frozenset({'mis'})\n"
    "    def solve(self, problem, ctx):\n"
    "        time.sleep(60)\n"
    "        return Outcome(Termination.COMPLETED)\n"
)
SLOW_EXIT_PLUGIN = (
    "import atexit, time\n"
    "from cosolve.core.method import Method, Outcome\n"
    "from cosolve.core.registry import register\n"
    "from cosolve.core.result import Termination\n"
    "@register\n"
    "class SlowExit(Method):\n"
    "    name = 'slowexit'\n"
    "    problems = frozenset({'mis'})\n"
    "    def solve(self, problem, ctx):\n"
    "        atexit.register(time.sleep, 2)  # interpreter teardown after the result is sent\n"
    "        ctx.trace.offer(problem.adjacency.diagonal() * 0, 0.0)\n"
    "        return Outcome(Termination.COMPLETED)\n"
)


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory):
    """One run (budget 0.5 s, two workers) of greedy and the two plugin methods of the tests below,
    ``sleepy`` (ignores its budget) and ``slowexit`` (slow to exit after its result): their jobs are
    independent, so the two tests share it. Returns the finished process and its output folder."""
    folder = tmp_path_factory.mktemp("plugins")
    (folder / "sleepy_plugin.py").write_text(SLEEPY_PLUGIN)
    (folder / "slow_exit_plugin.py").write_text(SLOW_EXIT_PLUGIN)
    path = f"{folder}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    env = {**os.environ, "COSOLVE_PLUGINS": "sleepy_plugin,slow_exit_plugin", "PYTHONPATH": path}
    extra = '\n[[methods]]\nname = "sleepy"\n\n[[methods]]\nname = "slowexit"\n'
    suite = write_suite(folder, budget=0.5, seeds=(1,), extra=extra)
    out = folder / "out"
    return bench("bench", suite, "--out", out, "--workers", "2", "--no-progress", env=env), out


def test_a_job_that_ignores_its_budget_is_killed_and_marked(plugin_run):
    proc, out = plugin_run
    assert proc.returncode == 0, proc.stderr
    by_label = {j["label"]: j for j in rows(out)}
    assert by_label["greedy"]["status"] == "done"
    assert by_label["sleepy"]["status"] == "killed" and "overran its budget" in by_label["sleepy"]["error"]
    assert by_label["sleepy"]["objective"] is None
    assert "| sleepy | 1 | 100.00% | 0.500 | 0 | 0 | 0.50 | 1 | 0 |" in (out / "report.md").read_text()


def test_a_slow_process_exit_after_the_result_does_not_kill_the_job(plugin_run):
    proc, out = plugin_run
    assert proc.returncode == 0, proc.stderr
    job = {j["label"]: j for j in rows(out)}["slowexit"]
    assert job["status"] == "done" and job["objective"] == 0.0
    # what the job recorded leaves out the 2 s teardown after its result (which outlasts the 1.525 s the
    # job may take after reading its instance: counted against that, it would have been killed)
    assert job["wall"] < 2


def test_a_job_above_the_memory_limit_is_recorded_as_failed_with_the_reason(tmp_path):
    """A method that keeps allocating (100 MiB every 20 ms, up to 4 GiB) under a suite
    memory_limit of 0.5 GiB is killed and recorded as failed, naming the limit; the other jobs
    of the suite run as usual and the report counts it."""
    (tmp_path / "hog_plugin.py").write_text(
        "import time\n"
        "import numpy as np\n"
        "from cosolve.core.method import Method, Outcome\n"
        "from cosolve.core.registry import register\n"
        "from cosolve.core.result import Termination\n"
        "@register\n"
        "class Hog(Method):\n"
        "    name = 'hog'\n"
        "    problems = frozenset({'mis'})\n"
        "    def solve(self, problem, ctx):\n"
        "        held = []\n"
        "        for _ in range(40):\n"
        "            held.append(np.ones(100 * 2**20, dtype=np.uint8))\n"
        "            time.sleep(0.02)\n"
        "        return Outcome(Termination.COMPLETED)\n"
    )
    path = f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    env = {**os.environ, "COSOLVE_PLUGINS": "hog_plugin", "PYTHONPATH": path}
    suite = write_suite(tmp_path, budget=5, seeds=(1,), extra='\n[[methods]]\nname = "hog"\n')
    suite.write_text("memory_limit = 0.5\n" + suite.read_text())
    out = tmp_path / "out"
    proc = bench("bench", suite, "--out", out, "--workers", "2", "--no-progress", env=env)  # its two jobs side by side
    assert proc.returncode == 0, proc.stderr
    by_label = {j["label"]: j for j in rows(out)}
    assert by_label["greedy"]["status"] == "done"
    hog = by_label["hog"]
    assert hog["status"] == "failed" and hog["error"].startswith("exceeded its memory limit of 0.5 GiB (resident 0.5"), hog
    report = (out / "report.md").read_text()
    assert "| hog | 1 | 100.00% | 5.000 | 0 | 0 | 5.00 | 0 | 1 |" in report
    assert (
        "## Jobs not done (1)" in report
        and "| er/er30_p0.2_s1 | hog | 5 | 0 | failed | exceeded its memory limit of 0.5 GiB" in report
    )


def test_a_bad_memory_limit_is_refused(tmp_path):
    suite = write_suite(tmp_path)
    suite.write_text("memory_limit = -1\n" + suite.read_text())
    proc = bench("bench", suite, "--out", tmp_path / "out", "--no-progress")
    assert proc.returncode == 2 and "memory_limit must be a positive number of GiB, got -1" in proc.stderr


def test_resume_after_a_killed_run_records_each_job_once(tmp_path):
    suite = write_suite(tmp_path, seeds=range(1, 5))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosolve", "bench", str(suite), "--out", str(out), "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = out / "results.sqlite"
    deadline = time.time() + 120
    while time.time() < deadline:
        if db.exists():
            try:
                if len(rows(out)) >= 2:
                    break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = {j["key"]: j["finished_at"] for j in rows(out)}
    assert 2 <= len(first) < 4, "the run should be killed mid-way"

    resumed = bench("bench", suite, "--out", out, "--resume", "--workers", "2", "--no-progress")  # the rest side by side
    assert resumed.returncode == 0, resumed.stderr
    assert f"4 jobs ({len(first)} already recorded)" in resumed.stdout
    final = rows(out)
    assert len(final) == 4 and len({j["key"] for j in final}) == 4
    assert all(j["status"] == "done" for j in final)
    for j in final:  # the jobs recorded before the kill were not run again
        if j["key"] in first:
            assert j["finished_at"] == first[j["key"]]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("budgets = [1\n", "not valid TOML"),
        (
            'budgets = [1]\n[[instances]]\nname = "a"\npaths = ["nothing*.txt"]\n[[methods]]\nname = "greedy"\n',
            "no instance file matches",
        ),
        (SUITE.format(budget=1, seeds=[1], extra='[[methods]]\nname = "nosuch"\n'), "unknown method 'nosuch'"),
        (SUITE.format(budget=-1, seeds=[1], extra=""), "budgets must be"),
    ],
)
def test_bad_suites_fail_before_running(tmp_path, text, needle):
    suite = tmp_path / "bad.toml"
    suite.write_text(text)
    proc = bench("bench", suite, "--out", tmp_path / "out", "--no-progress")
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_oversubscription_is_refused(tmp_path):
    suite = write_suite(tmp_path)
    proc = bench("bench", suite, "--out", tmp_path / "out", "--workers", str(2 * (os.cpu_count() or 1)), "--no-progress")
    assert proc.returncode == 2 and "exceed this machine's" in proc.stderr


def test_an_existing_scheduler_runs_the_jobs(tmp_path):
    from distributed import LocalCluster

    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://", dashboard_address=None) as cluster:
        proc = bench("bench", suite, "--out", out, "--scheduler", cluster.scheduler_address, "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert [j["status"] for j in rows(out)] == ["done", "done"]
    assert f"scheduler {cluster.scheduler_address}" in (out / "report.md").read_text()


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path):
    suite = write_suite(tmp_path)
    args = ["bench", str(suite), "--out", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:9", "--no-progress"]
    # the command line as `python -m cosolve` runs it, with the connect timeout shortened from 10 s (the
    # refused connection is retried until then): a timeout is all this test needs
    code = (
        "import sys\n"
        "from cosolve.harness import runner\n"
        "runner.SCHEDULER_TIMEOUT = '1s'\n"
        "from cosolve.cli.main import main\n"
        f"sys.argv = ['cosolve', *{args!r}]\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "cannot reach the Dask scheduler" in proc.stderr and "Traceback" not in proc.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args: str) -> subprocess.Popen:
    """A process in its own session (so that killing it takes its children, as losing a machine does)."""
    return subprocess.Popen(
        [sys.executable, "-m", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _wait_for(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                return
        except sqlite3.OperationalError:  # the store is being written
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_real_cluster_survives_a_killed_worker_and_a_killed_client(tmp_path):
    """`dask scheduler` and two `dask worker` processes on loopback; the suite runs through
    `cosolve bench --scheduler`; one worker is SIGKILLed mid-job, then the client; `--resume`
    (with a fresh worker) finishes the suite: every job recorded exactly once, the jobs recorded
    before the kills untouched, the killed ones run again, the SQLite store intact."""
    from distributed import Client

    address = f"tcp://127.0.0.1:{_free_port()}"
    scheduler = _start("dask", "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard")
    workers = {}
    try:
        _wait_for(lambda: Client(address, timeout="2s").close() is None, "the scheduler", 60)
        for name in ("w1", "w2"):
            workers[name] = _start(
                "dask", "worker", address, "--nthreads", "1", "--nworkers", "1", "--name", name, "--no-dashboard"
            )
        with Client(address, timeout="10s") as client:
            client.wait_for_workers(2, timeout=60)
        # 8 jobs: greedy and rlsa (which uses its budget) on 4 graphs
        suite = write_suite(tmp_path, budget=1, seeds=range(1, 5), extra='[[methods]]\nname = "rlsa"')
        out = tmp_path / "out"
        log = open(tmp_path / "client.log", "w")  # noqa: SIM115 (closed below)
        client_proc = subprocess.Popen(
            [sys.executable, "-m", "cosolve", "bench", str(suite), "--out", str(out), "--scheduler", address, "--no-progress"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        db = out / "results.sqlite"
        try:
            _wait_for(lambda: db.exists() and len(rows(out)) >= 2, "two recorded jobs")
        except AssertionError as e:
            raise AssertionError(f"{e}; the client said: {(tmp_path / 'client.log').read_text()[-2000:]}") from None
        _kill(workers.pop("w1"))  # mid-job: both workers are busy while jobs remain
        killed_at = {j["key"] for j in rows(out)}
        _wait_for(lambda: len(rows(out)) >= len(killed_at) + 2, "two more jobs after the worker was killed")
        client_proc.send_signal(signal.SIGKILL)
        client_proc.wait()
        log.close()
        before = {j["key"]: j["finished_at"] for j in rows(out)}
        assert len(before) < 8, "the client should be killed mid-way"
        workers["w3"] = _start("dask", "worker", address, "--nthreads", "1", "--name", "w3", "--no-dashboard")
        resumed = bench("bench", suite, "--out", out, "--scheduler", address, "--resume", "--no-progress")
        assert resumed.returncode == 0, resumed.stderr
        assert f"8 jobs ({len(before)} already recorded)" in resumed.stdout
        final = rows(out)
        assert len(final) == 8 and len({j["key"] for j in final}) == 8
        # Every job ran to its end on some worker. On a loaded 2-core machine (scheduler, three
        # workers, client, and their children) a 1 s job may pass its kill deadline; the budget
        # watchdog recording it as "killed" is tested on its own and is not what this test is about.
        ran = [j for j in final if j["status"] == "done" or (j["error"] or "").startswith("overran its budget")]
        assert len(ran) == 8, [j["error"] for j in final if j not in ran]
        assert sum(j["status"] == "done" for j in final) >= 4  # half: most ran within budget
        for j in final:
            if j["key"] in before:
                assert j["finished_at"] == before[j["key"]]  # recorded once, not run again
        con = sqlite3.connect(db)
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()
        print(f"timeline: {len(killed_at)} done at the worker kill, {len(before)} at the client kill, "
              f"{8 - len(before)} run by --resume")  # fmt: skip
    finally:
        for proc in workers.values():
            _kill(proc)
        _kill(scheduler)


def test_reading_a_folder_without_results_is_refused_and_creates_nothing(tmp_path):
    from cosolve.errors import UsageError
    from cosolve.harness.store import Store

    missing = tmp_path / "not-a-results-folder"
    with pytest.raises(UsageError, match=r"no results\.sqlite here"):
        Store.existing(missing)
    assert not missing.exists()
