"""The bundled instances and their recorded values agree with what the solvers find."""

import csv
from pathlib import Path

import pytest

import cosolve

INSTANCES = Path(__file__).resolve().parents[1] / "instances"
GRAPH_VALUES = list(csv.DictReader((INSTANCES / "graphs" / "best_known.csv").read_text().splitlines()))


@pytest.mark.parametrize(
    "row", [r for r in GRAPH_VALUES if r["problem"] != "maxcut"], ids=lambda r: f"{r['instance']}-{r['problem']}"
)
def test_graph_optima_are_reproduced_by_scip_and_never_beaten_by_greedy(row):
    path = INSTANCES / "graphs" / f"{row['instance']}.col"
    value = float(row["value"])
    assert row["status"] == "optimal"
    exact = cosolve.solve(path, method="scip", problem=row["problem"], time_limit=20)
    assert exact.status is cosolve.Status.OPTIMAL and exact.objective == value
    greedy = cosolve.solve(path, method="greedy", problem=row["problem"], time_limit=5)
    problem = cosolve.read(path, problem=row["problem"])
    assert problem.evaluate(greedy.solution).feasible
    assert (greedy.objective >= value) if problem.sense is cosolve.Sense.MINIMIZE else (greedy.objective <= value)


def test_every_graph_problem_has_a_value():
    graphs = {p.stem for p in (INSTANCES / "graphs").glob("*.col")}
    assert graphs and {(g, p) for g in graphs for p in ("mis", "maxcut", "maxclique", "mds")} == {
        (r["instance"], r["problem"]) for r in GRAPH_VALUES
    }


def test_tsp_optima_match_the_optimal_tours():
    from cosolve.io.tsplib import read_tour

    for row in csv.DictReader((INSTANCES / "tsplib" / "optima.csv").read_text().splitlines()):
        problem = cosolve.read(INSTANCES / "tsplib" / f"{row['name']}.tsp")
        tour = read_tour(INSTANCES / "tsplib" / f"{row['name']}.opt.tour")
        assert problem.evaluate(tour).objective == float(row["optimum"])


def test_tsplib_types_optima_match_their_tours():
    from cosolve.io.tsplib import read_tour

    folder = INSTANCES / "tsplib-types"
    for row in csv.DictReader((folder / "optima.csv").read_text().splitlines()):
        problem = cosolve.read(folder / f"{row['name']}.tsp")
        assert problem.metric == row["edge_weight_type"] and problem.n == int(row["n"])
        tour_file = folder / f"{row['name']}.opt.tour"
        if tour_file.exists():
            assert problem.evaluate(read_tour(tour_file)).objective == float(row["optimum"])


def test_tsplib_large_instances_read_with_their_sizes_and_no_tour_beats_their_optima():
    from cosolve import Solver

    rows = list(csv.DictReader((INSTANCES / "tsplib-large" / "optima.csv").read_text().splitlines()))
    assert len(rows) == 10
    for row in rows:
        problem = cosolve.read(INSTANCES / "tsplib-large" / f"{row['name']}.tsp")
        assert problem.n == int(row["n"]) and problem.metric == row["edge_weight_type"]
    kro = cosolve.read(INSTANCES / "tsplib-large" / "kroA200.tsp")
    result = Solver("ils", time_limit=None, kicks=20_000).solve(kro)
    assert 29368 <= result.objective <= 1.01 * 29368
