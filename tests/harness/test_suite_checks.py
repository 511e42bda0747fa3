"""A suite's mistakes are refused before any job runs, each as one error naming the suite file and
its entry: budgets, reference files, graph files without a problem, a method that cannot solve a
set, an option naming a missing file, and an --out that is a file."""

import shutil
from pathlib import Path

import pytest

from cosolve.errors import InputError, UsageError
from cosolve.harness.runner import check_suite, run_suite
from cosolve.harness.suite import load_suite, resolve_instances

SCP41 = Path(__file__).resolve().parents[2] / "instances" / "setcover" / "scp41.txt"


def suite_file(folder: Path, *, budgets="[1]", instances="", method='name = "greedy"') -> Path:
    shutil.copy(SCP41, folder / "scp41.txt")
    text = (
        f'name = "t"\nbudgets = {budgets}\n[[instances]]\nname = "sc"\npaths = ["scp41.txt"]\n{instances}\n'
        f"[[methods]]\n{method}\n"
    )
    path = folder / "suite.toml"
    path.write_text(text)
    return path


def checked(path: Path, out: Path) -> None:
    suite = load_suite(path)
    check_suite(suite, suite.jobs(resolve_instances(suite, out)))


@pytest.mark.parametrize("budgets", ['["1"]', "[true]", "[1e12]", "[nan]", "[inf]", "[0]"])
def test_a_budget_that_is_not_a_positive_number_of_seconds_is_refused(tmp_path, budgets):
    with pytest.raises(InputError, match=r"budgets must be .* got"):
        load_suite(suite_file(tmp_path, budgets=budgets))


def test_integer_and_float_budgets_are_accepted(tmp_path):
    assert load_suite(suite_file(tmp_path, budgets="[1, 2.5]")).budgets == [1.0, 2.5]


@pytest.mark.parametrize(
    ("csv", "needle"),
    [
        (None, "no such reference file"),
        ("foo,bar\nscp41,429\n", "needs an 'instance' (or 'name') column and an 'optimum' (or 'value') column; found: foo, bar"),
        ("instance,optimum\nscp41,abc\n", "refs.csv:2: value 'abc' of scp41 is not a finite number"),
        ("instance,optimum\nscp41,inf\n", "refs.csv:2: value 'inf' of scp41 is not a finite number"),
    ],
)
def test_a_bad_reference_file_is_refused_naming_it(tmp_path, csv, needle):
    if csv is not None:
        (tmp_path / "refs.csv").write_text(csv)
    with pytest.raises(InputError, match=r"refs\.csv") as caught:
        checked(suite_file(tmp_path, instances='reference = "refs.csv"'), tmp_path / "out")
    assert needle in str(caught.value)


def test_a_good_reference_file_gives_the_value(tmp_path):
    (tmp_path / "refs.csv").write_text("instance,optimum\nscp41,429\n")
    suite = load_suite(suite_file(tmp_path, instances='reference = "refs.csv"'))
    (instance,) = resolve_instances(suite, tmp_path / "out")
    assert instance.reference == 429.0 and instance.problem == "setcover"


def test_graph_files_without_a_problem_are_refused_naming_the_set(tmp_path):
    path = suite_file(tmp_path)
    (tmp_path / "g.col").write_text("p edge 3 2\ne 1 2\ne 2 3\n")
    path.write_text(path.read_text().replace('"scp41.txt"', '"g.col"'))
    with pytest.raises(InputError, match=r"\[\[instances\]\] 'sc': g.col may hold any of mis, .*add problem = \"mis\""):
        checked(path, tmp_path / "out")


def test_a_method_that_does_not_solve_the_files_kind_is_refused_naming_the_entry(tmp_path):
    with pytest.raises(UsageError, match=r"suite.toml: \[\[methods\]\] #1 \(ils\) on scp41: method ils does not solve setcover"):
        checked(suite_file(tmp_path, method='name = "ils"'), tmp_path / "out")


def test_an_unknown_option_error_names_the_methods_entry(tmp_path):
    method = 'name = "greedy"\nlabel = "g"\noptions = { improv = false }'
    with pytest.raises(UsageError, match=r"suite.toml: \[\[methods\]\] #1 \(g\): unknown option 'improv'"):
        checked(suite_file(tmp_path, method=method), tmp_path / "out")


def test_an_option_naming_a_missing_checkpoint_is_refused_with_where_paths_are_relative_to(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    path = suite_file(tmp_path / "sub", method='name = "glns"\noptions = { checkpoint = "model" }')
    with pytest.raises(UsageError, match="option checkpoint: no such file or folder 'model' \\(relative to the current"):
        checked(path, tmp_path / "out")
    (tmp_path / "sub" / "model").mkdir()  # beside the suite, not in the current directory
    with pytest.raises(UsageError, match=r"it exists relative to the suite file.*run from"):
        checked(path, tmp_path / "out")


def test_an_out_path_that_is_a_file_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "taken.txt"
    out.write_text("keep")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        run_suite(load_suite(suite_file(tmp_path)), out, progress=False)
    assert out.read_text() == "keep"


def test_two_files_of_a_set_with_one_instance_name_are_refused(tmp_path):
    path = suite_file(tmp_path)
    (tmp_path / "other").mkdir()
    shutil.copy(SCP41, tmp_path / "other" / "scp41.txt")
    path.write_text(path.read_text().replace('paths = ["scp41.txt"]', 'paths = ["scp41.txt", "other/scp41.txt"]'))
    with pytest.raises(InputError, match=r"are both instance 'scp41'; an instance name .* must be unique within a set"):
        checked(path, tmp_path / "out")


def test_a_reference_file_that_names_none_of_the_sets_instances_is_refused(tmp_path):
    (tmp_path / "refs.csv").write_text("instance,optimum\nscp41.txt,429\n")  # the file name, not the instance name
    with pytest.raises(InputError, match=r"reference 'refs.csv' names none of the set's instances \(it has scp41.txt"):
        checked(suite_file(tmp_path, instances='reference = "refs.csv"'), tmp_path / "out")


def test_a_resumed_run_gives_recorded_jobs_the_corrected_reference(tmp_path):
    from cosolve.harness.store import Store
    from cosolve.harness.suite import Instance

    store = Store(tmp_path)
    with store.db:
        store.db.execute("INSERT INTO jobs (key, instance_set, instance, reference) VALUES ('k1', 'sc', 'scp41', NULL)")
        store.db.execute("INSERT INTO jobs (key, instance_set, instance, reference) VALUES ('k2', 'sc', 'scp42', 500)")
    store.set_references([Instance("sc", "scp41", "scp41.txt", "setcover", 429.0), Instance("sc", "scp42", "x", None, None)])
    assert dict(store.db.execute("SELECT instance, reference FROM jobs")) == {"scp41": 429.0, "scp42": 500.0}
    store.close()
