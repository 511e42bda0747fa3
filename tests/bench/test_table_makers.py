"""Every table maker of bench/tables, run as its documented ``python -m bench.tables.NAME ...`` command
on tiny results folders, so that no documented command rots.

The folders are real ``cosolve bench`` stores: a suite file is loaded and its instances resolved
(generated into the folder) by the harness, and each job runs through the harness's worker
(``cosolve.harness.worker``) and is recorded by :class:`cosolve.harness.store.Store`, in this process
rather than one process per job, so that the whole module takes seconds. Budgets are 0.1-0.2 s.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import runpy
import sys
import time
from pathlib import Path

import pytest

import bench
from cosolve.harness import worker
from cosolve.harness.store import Store
from cosolve.harness.suite import load_suite, resolve_instances

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "bench" / "tables"

SETCOVER = f"""
name = "setcover-tiny"
budgets = [0.1]
seeds = [0, 1]

[[instances]]
name = "orlib"
paths = ["{ROOT}/instances/setcover/scp41.txt", "{ROOT}/instances/setcover/scp42.txt"]
reference = "{ROOT}/instances/setcover/optima.csv"

[[instances]]
name = "random-tiny"
generator = "random_setcover"
params = {{ n_rows = 40, n_cols = 400, nnz = 2000 }}
seeds = [1, 2]

[[methods]]
name = "greedy"

[[methods]]
name = "greedy"
label = "greedy-raw"
options = {{ improve = false }}
"""

GRAPHS = """
name = "graphs-tiny"
budgets = [0.2]
seeds = [0, 1]

[[instances]]
name = "er-mis"
generator = "erdos_renyi"
params = { n = 30, p = 0.2 }
problem = "mis"
seeds = [1, 2]

[[methods]]
name = "greedy"

[[methods]]
name = "polish"

[[methods]]
name = "rlsa"
label = "rlsa-alone"
options = { polish = 0 }
"""

TSP = f"""
name = "tsp-tiny"
budgets = [0.1]
seeds = [0]

[[instances]]
name = "tsplib"
paths = ["{ROOT}/instances/tsplib/eil51.tsp"]
reference = "{ROOT}/instances/tsplib/optima.csv"

[[instances]]
name = "random-20"
generator = "random_tsp"
params = {{ n = 20 }}
seeds = [1, 2]

[[methods]]
name = "greedy"

[[methods]]
name = "greedy"
label = "greedy-raw"
options = {{ improve = false }}
"""


def record(text: str, out: Path) -> Path:
    """Run every job of the suite ``text`` through the harness's worker and record it in ``out``."""
    out.mkdir(parents=True)
    path = out.parent / f"{out.name}.toml"
    path.write_text(text)
    suite = load_suite(path)
    instances = resolve_instances(suite, out)
    store = Store(out)
    run = store.start_run(suite=suite.name, suite_path=str(path), command="tests/bench/test_table_makers.py", workers=1)
    for job in suite.jobs(instances):
        payload = {
            "path": job.instance.path, "problem": job.instance.problem, "method": job.method.name,
            "options": job.method.options, "budget": job.budget, "seed": job.seed, "threads": job.threads,
        }  # fmt: skip
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert worker.main([json.dumps(payload)]) == 0, printed.getvalue()
        events = {}
        for line in printed.getvalue().splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                event = json.loads(line)
                events[event["event"]] = event
        outcome = {
            "status": "done", "result": events["result"], "wall": events["result"]["time"],
            "read_time": events["ready"]["read_time"], "setup_time": events["ready"]["setup_time"],
            "host": "test", "finished_at": time.time(),
        }  # fmt: skip
        store.record(run, job, outcome)
    store.finish_run(run)
    store.close()
    return out


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Three tiny results folders, laid out as under bench/results/ (a set cover folder is found by
    bench.tables.setcover_best_known by its ``setcover-`` name)."""
    results = tmp_path_factory.mktemp("bench") / "results"
    return {
        "setcover": record(SETCOVER, results / "setcover-tiny"),
        "graphs": record(GRAPHS, results / "graphs-tiny"),
        "tsp": record(TSP, results / "tsp-tiny"),
    }


def run_maker(name: str, *args, monkeypatch, capsys) -> str:
    """``python -m bench.tables.NAME ARGS...`` in this process: its standard output."""
    module = f"bench.tables.{name}"
    sys.modules.pop(module, None)  # run it afresh as __main__, as python -m does
    monkeypatch.setattr(sys, "argv", [str(TABLES / f"{name}.py"), *map(str, args)])
    capsys.readouterr()
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return capsys.readouterr().out


def table_rows(text: str, first: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"| {first} ")]


def test_glns(stores, monkeypatch, capsys):
    folder = stores["setcover"]
    out = run_maker("glns", folder, monkeypatch=monkeypatch, capsys=capsys)
    assert "### orlib, 0.1 s (2 instances x 2 seed(s); reference: optimum)" in out
    assert "### random-tiny, 0.1 s" in out and len(table_rows(out, "greedy")) == 2
    known = folder.parent / "known.csv"
    known.write_text("instance,value\nscp41,429\n")
    out = run_maker(
        "glns", folder, "--references", folder, "--merge", folder, "--borrow", "greedy-raw", "--labels", "greedy", "greedy-raw",
        "--against", "greedy", "--per-instance", "--known", known, monkeypatch=monkeypatch, capsys=capsys,
    )  # fmt: skip
    assert "above greedy |" in out and "| scp41 | 429 |" in out


def test_setcover_seeds(stores, monkeypatch, capsys):
    out = run_maker("setcover_seeds", stores["setcover"], "--against", "greedy", monkeypatch=monkeypatch, capsys=capsys)
    assert "greedy-raw" in out and "greedy against" in out


def test_setcover_best_known(stores, tmp_path, monkeypatch, capsys):
    """Reads every ``setcover-*`` store under bench/results/ and bench/experiments/*/results/ (here:
    the tiny folder) and the stored covers, which it checks on their instance files."""
    folder = stores["setcover"]
    import cosolve
    from cosolve.io import write_solution

    instances = folder / "instances"
    (instance,) = sorted(instances.glob("random-tiny/*s1.txt"))
    covers = folder.parent / "setcover-best-known"
    covers.mkdir(exist_ok=True)
    problem = cosolve.read(instance)
    cover = cosolve.Solver("greedy", time_limit=1).solve(problem)
    write_solution(problem, cover.solution, covers / f"{instance.stem}.sol")
    monkeypatch.setattr(bench, "RESULTS", folder.parent)
    monkeypatch.setattr(bench, "EXPERIMENTS", tmp_path / "experiments")
    out = run_maker("setcover_best_known", "--instances", instances, monkeypatch=monkeypatch, capsys=capsys)
    rows = {row["instance"]: row for row in csv.DictReader(io.StringIO(out))}
    assert set(rows) == {instance.stem, instance.stem.replace("_s1", "_s2")}  # generated instances only (no reference)
    assert float(rows[instance.stem]["value"]) <= cover.objective
    assert rows[instance.stem]["source"].startswith("jobs in bench/results/setcover-tiny")


def test_cam_and_cam_paired(stores, monkeypatch, capsys):
    folder = stores["graphs"]
    out = run_maker("cam", folder, monkeypatch=monkeypatch, capsys=capsys)
    assert "### er-mis, 0.2 s per graph (2 graphs;" in out
    assert {line.split(" |")[0] for line in out.splitlines() if line.startswith("| ") and "method" not in line} >= {
        "| greedy",
        "| polish",
        "| rlsa-alone",
    }
    out = run_maker("cam_paired", folder, "er-mis", "polish", 0.2, "greedy", 0.2, monkeypatch=monkeypatch, capsys=capsys)
    assert out.startswith("er-mis: polish at 0.2 s against greedy at 0.2 s on 2 graphs")


def test_graph_peers_and_graph_ablation(stores, monkeypatch, capsys):
    folder = stores["graphs"]
    out = run_maker("graph_peers", folder, monkeypatch=monkeypatch, capsys=capsys)
    assert "## er-mis, 0.2 s per graph (2 graphs; references: 2 run)" in out and table_rows(out, "polish")
    out = run_maker("graph_ablation", folder, "--against", "polish", monkeypatch=monkeypatch, capsys=capsys)
    assert "## er-mis, 0.2 s per graph (2 graphs x 2 seeds)" in out and len(table_rows(out, "greedy")) == 1
    run_maker("graph_ablation", folder, monkeypatch=monkeypatch, capsys=capsys)  # the default: cam+polish, none here


def test_references_makers(stores, tmp_path, monkeypatch, capsys):
    folder = stores["graphs"]
    out = run_maker("graph_references", "--found", folder, monkeypatch=monkeypatch, capsys=capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2 and all(row["source"].startswith("best-of:") for row in rows)
    target = tmp_path / "references.csv"
    out = run_maker("make_references", folder, target, monkeypatch=monkeypatch, capsys=capsys)
    assert out.startswith(f"wrote 2 references to {target}") and len(target.read_text().splitlines()) == 3


def test_graph_start_worth(stores, monkeypatch, capsys):
    folder = stores["graphs"]
    args = ("--polish", folder, "--samplers", folder, "--polish-budget", 0.2)
    out = run_maker("graph_start_worth", *args, monkeypatch=monkeypatch, capsys=capsys)
    assert "| er-mis | rlsa-alone | 0.2 s |" in out


def test_tsp(stores, monkeypatch, capsys):
    out = run_maker("tsp", stores["tsp"], "--ablation", "greedy,greedy-raw", monkeypatch=monkeypatch, capsys=capsys)
    assert "| tsplib |" in out and "| random-20 |" in out and "| eil51 | 51 | 426 |" in out
    assert "| TSPLIB | 0.1 s | greedy-raw | 1 |" in out


def test_training_curves(monkeypatch, capsys):
    """On two stored training runs (a CAM one and the GLNS one): a training run is not a bench store."""
    runs = [
        ROOT / "bench/results/cam-gpu/runs/mis-er-compare",
        ROOT / "bench/experiments/setcover_glns/results/glns-training/run",
    ]
    out = run_maker("training_curves", *runs, monkeypatch=monkeypatch, capsys=capsys)
    assert out.count("| seconds | iteration |") == 2


def test_compare_stores(stores, monkeypatch, capsys):
    """A store against itself: every group of jobs equal, none better or worse."""
    store = stores["setcover"] / "results.sqlite"
    out = run_maker("compare_stores", store, store, monkeypatch=monkeypatch, capsys=capsys)
    rows = [line.split(" | ") for line in out.splitlines() if line.startswith("| orlib ")]
    assert rows and all(row[6:9] == ["0", row[3], "0"] for row in rows)  # better, equal (all jobs), worse


def test_every_table_maker_is_run_here():
    """A table maker added to bench/tables/ needs a test here."""
    makers = {p.stem for p in TABLES.glob("*.py")} - {"__init__"}
    text = Path(__file__).read_text()
    assert {m for m in makers if f'run_maker("{m}"' not in text} == set()
