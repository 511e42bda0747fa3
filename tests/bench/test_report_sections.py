"""The report's per-job sections: jobs not done, jobs that compiled numba kernels inside their budget."""

from cosolve.bench.report import LISTED_FAILURES, _compiled_in_budget, _failures


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

    from cosolve.bench.report import plot_anytime

    row = {"instance_set": "g", "budget": 1.0, "label": "greedy", "reference": None, "status": "failed", "trace": None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "No artists with labels" would fail the test
        (path,) = plot_anytime([row], tmp_path)
    assert path.is_file() and path.stat().st_size > 0
