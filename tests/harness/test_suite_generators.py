"""Suites that draw graphs from a named distribution, and the store's set-up time column."""

import sqlite3

import numpy as np

from cosolve.generators.distributions import sample_graph
from cosolve.harness.store import Store
from cosolve.harness.suite import load_suite, resolve_instances
from cosolve.io import read

SUITE = """
name = "dist"
budgets = [1]

[[instances]]
name = "ba"
generator = "graph_distribution"
params = { distribution = "ba-small" }
problem = "maxcut"
count = 3
first_seed = 7

[[methods]]
name = "greedy"
"""


def test_a_distribution_with_count_gives_consecutive_seeds(tmp_path):
    path = tmp_path / "suite.toml"
    path.write_text(SUITE)
    instances = resolve_instances(load_suite(path), tmp_path / "out")
    assert [i.name for i in instances] == ["ba-small-7", "ba-small-8", "ba-small-9"]
    for k, instance in enumerate(instances):  # each file holds the graph of its seed
        graph = read(instance.path, problem="maxcut")
        assert instance.problem == "maxcut" and 200 <= graph.n <= 300
        assert np.array_equal(graph.edges, sample_graph("ba-small", 7 + k, "maxcut").edges)


def test_an_old_results_database_gains_the_setup_time_column(tmp_path):
    db = sqlite3.connect(tmp_path / Store.FILENAME)
    db.execute("CREATE TABLE jobs (key TEXT PRIMARY KEY, read_time REAL)")
    db.commit()
    db.close()
    store = Store(tmp_path)
    columns = {row[1] for row in store.db.execute("PRAGMA table_info(jobs)")}
    assert "setup_time" in columns
    store.close()


def test_a_generated_set_without_problem_finds_references_keyed_by_its_kind(tmp_path):
    (tmp_path / "refs.csv").write_text("instance,problem,value\nrtsp6_s1,tsp,123\nrtsp6_s2,mis,7\n")
    path = tmp_path / "suite.toml"
    path.write_text(
        'name = "t"\nbudgets = [1]\n[[instances]]\nname = "r"\ngenerator = "random_tsp"\nparams = { n = 6 }\n'
        'seeds = [1, 2]\nreference = "refs.csv"\n[[methods]]\nname = "greedy"\n'
    )
    instances = resolve_instances(load_suite(path), tmp_path / "out")
    assert [(i.name, i.problem, i.reference) for i in instances] == [("rtsp6_s1", "tsp", 123.0), ("rtsp6_s2", "tsp", None)]


def test_a_method_may_run_on_some_sets_only_and_share_its_label_on_disjoint_sets(tmp_path):
    import pytest

    from cosolve.errors import InputError

    two_sets = (
        SUITE.replace('name = "greedy"', 'name = "greedy"\nsets = ["ba"]')
        + """
[[instances]]
name = "ba2"
generator = "graph_distribution"
params = { distribution = "ba-small" }
problem = "maxcut"
count = 2

[[methods]]
name = "greedy"
options = { improve = false }
sets = ["ba2"]
"""
    )
    path = tmp_path / "suite.toml"
    path.write_text(two_sets)
    suite = load_suite(path)
    jobs = suite.jobs(resolve_instances(suite, tmp_path / "out"))
    assert sorted((j.instance.set, j.method.options.get("improve", True)) for j in jobs) == [
        ("ba", True), ("ba", True), ("ba", True), ("ba2", False), ("ba2", False)
    ]  # fmt: skip
    path.write_text(two_sets.replace('sets = ["ba2"]', 'sets = ["ba", "ba2"]'))
    with pytest.raises(InputError, match="run on the same instance set"):
        load_suite(path)
    path.write_text(two_sets.replace('sets = ["ba2"]', 'sets = ["nope"]'))
    with pytest.raises(InputError, match=r"sets must be .* names \(ba, ba2\)"):
        load_suite(path)
