"""The report's per-job sections: jobs not done, jobs that compiled numba kernels inside their budget."""

import json

import numpy as np

from cosolve.harness.report_writer import LISTED_FAILURES, _compiled_in_budget, _failures


def _job(i, **fields):
    return {"instance_set": "er", "instance": f"er-{i}", "label": "cam", "budget": 1.0, "seed": 0, **fields}


def test_only_jobs_that_compiled_inside_their_budget_are_named():
    rows = [_job(0, solve_compile_time=0.0), _job(1, solve_compile_time=1.234), _job(2, solve_compile_time=None), _job(3)]
    lines = _compiled_in_budget(rows)
    assert lines[0] == "## Jobs that compiled numba kernels inside their budget (1)"
    assert [line for line in lines if line.startswith("| er/")] == ["| er/er-1 | cam | 1 | 0 | 1.23 |"]
    assert _compiled_in_budget(rows[:1] + rows[2:]) == []  # none: no section


def test_long_lists_are_cut_with_a_count_and_keep_their_columns():
    bad = [_job(i, status="killed", error="over | budget") for i in range(LISTED_FAILURES + 2)]
    lines = _failures(bad)
    listed = [line for line in lines if line.startswith("| er/")]
    assert len(listed) == LISTED_FAILURES and listed[0] == "| er/er-0 | cam | 1 | 0 | killed | over \\| budget |"
    assert lines[-2] == "| ... | 2 more in results.csv | | | | |" and lines[-2].count("|") == listed[0].count("|") - 1


def test_an_anytime_plot_without_a_reference_says_so_without_a_legend_warning(tmp_path):
    import warnings

    from cosolve.harness.report_writer import plot_anytime

    row = {"instance_set": "g", "budget": 1.0, "label": "greedy", "reference": None, "status": "failed", "trace": None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "No artists with labels" would fail the test
        (path,) = plot_anytime([row], tmp_path)
    assert path.is_file() and path.stat().st_size > 0


def test_a_job_that_beats_the_reference_file_becomes_the_reference_and_no_gap_is_negative():
    from cosolve.harness.report_writer import BEATEN, enrich, markdown

    def row(label, objective, reference=440.0):
        return _job(0, instance_set="sc", instance="scp41", label=label, objective=objective, reference=reference,
                    sense="minimize", status="done", trace=json.dumps([[0.1, objective, None]]),
                    result_status="feasible", time=1.0)  # fmt: skip

    rows = enrich([row("scip", 429.0), row("greedy", 433.0)])
    assert [(r["reference"], r["reference_source"]) for r in rows] == [(429.0, BEATEN)] * 2
    assert rows[0]["primal_gap"] == 0.0 and rows[1]["primal_gap"] > 0  # scip ahead, as it is
    kept = enrich([row("scip", 445.0)])[0]  # a reference the run does not beat stays
    assert kept["reference"] == 440.0 and kept["reference_source"] == "reference file"
    runs = [{"suite": "t", "id": 1, "machine": "{}", "versions": "{}", "workers": 1, "scheduler": None,
             "command": "cosolve bench t.toml", "git_commit": None}]  # fmt: skip
    report = markdown(rows, runs)
    assert "The reference file's value was beaten on: sc/scp41" in report


def test_proofs_of_infeasibility_count_as_solved_and_an_unbounded_instance_has_no_gap():
    from cosolve.harness.report_writer import UNBOUNDED, enrich, summary

    def row(instance, result_status, objective, time):
        return _job(0, instance_set="mip", instance=instance, label="scip", objective=objective, reference=None,
                    sense="minimize", status="done", trace=json.dumps([[time, objective, None]] if objective else []),
                    result_status=result_status, time=time, budget=10.0)  # fmt: skip

    rows = enrich([row("infeasible", "infeasible", None, 0.01), row("unbounded", "unbounded", 200000.0, 0.02)])
    assert rows[1]["reference"] is None and rows[1]["reference_source"] == UNBOUNDED and np.isnan(rows[1]["primal_gap"])
    (stats,) = summary(rows).values()
    assert stats["proven"] == 2 and stats["sgm_time"] < 0.05  # the times of the proofs, not the budget


def test_a_mean_gap_over_fewer_runs_than_the_row_counts_says_over_how_many():
    from cosolve.harness.report_writer import enrich, markdown, summary

    def row(instance, label, objective, status="done"):
        trace = json.dumps([[0.1, objective, None]]) if objective is not None else None
        return _job(0, instance_set="tsp", instance=instance, label=label, objective=objective, reference=None,
                    sense="minimize", status=status, trace=trace, result_status="feasible", time=1.0,
                    error="unreadable" if status == "failed" else None)  # fmt: skip

    # eil51 solved by both; "broken" unreadable, so failed for both: no reference, no gap there
    rows = enrich([row("eil51", "ils", 426.0), row("eil51", "scip", 430.0), row("broken", "ils", None, "failed"),
                   row("broken", "scip", None, "failed")])  # fmt: skip
    table = summary(rows)
    assert table[("tsp", 1.0, "ils")]["runs"] == 2 and table[("tsp", 1.0, "ils")]["gap_runs"] == 1
    runs = [{"suite": "t", "id": 1, "machine": "{}", "versions": "{}", "workers": 1, "scheduler": None,
             "command": "cosolve bench t.toml", "git_commit": None}]  # fmt: skip
    report = markdown(rows, runs)
    assert "| ils | 2 | 0.00% (1 of 2) |" in report and "## tsp, 1 s (2 instances)" in report
