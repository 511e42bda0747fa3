"""The bench/ folder stays readable: its top level, every suite loading, every module importing as part of
the ``bench`` package, and every command and path its READMEs document existing."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from cosolve.harness.suite import _match, load_suite, read_references
from cosolve.method_catalog import get_method, methods
from cosolve.solver import missing_paths

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SUITES = sorted(BENCH.rglob("*.toml"))
MODULES = sorted(p for p in BENCH.rglob("*.py") if p.name != "__init__.py")
# the hand-written pages: READMEs and the discussion pages of results/, not the generated reports (report.md,
# core_baselines.md, ...: they keep the commands as they were run) nor the model cards of training runs
PAGES = [BENCH / "results" / name for name in ("cam.md", "glns.md", "sinkhorn.md")]
DOCS = [p for p in sorted(BENCH.rglob("README.md")) if not {"runs", "run"} & set(p.relative_to(BENCH).parts)] + PAGES


def test_the_top_level_holds_only_the_folders_a_reader_needs():
    entries = {p.name for p in BENCH.iterdir() if p.name != "__pycache__"}
    assert entries == {"README.md", "__init__.py", "suites", "tables", "scripts", "results", "experiments"}


@pytest.mark.parametrize("path", SUITES, ids=lambda p: str(p.relative_to(BENCH)))
def test_every_suite_loads_and_finds_its_files(path, monkeypatch):
    """Instance paths and references resolve from the suite's folder; option paths (checkpoints)
    from the repository root, where the documented commands run."""
    monkeypatch.chdir(ROOT)
    suite = load_suite(path)
    for spec in suite.instance_sets:
        if spec.get("reference"):
            assert read_references((path.parent / spec["reference"]).resolve())
        if "paths" in spec:
            assert _match(path.parent, spec["paths"], str(path))
    for method in suite.methods:
        assert method.name in methods()
        assert missing_paths(get_method(method.name), method.options) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_imports_as_part_of_the_bench_package(path):
    text = path.read_text()
    assert not re.search(r"sys\.path\.(insert|append)|sys\.path\s*[+=]", text), "bench/ edits no sys.path"
    importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))


def test_every_suite_is_named_in_the_readme_of_its_folder():
    published = (BENCH / "README.md").read_text()
    assert [p.name for p in (BENCH / "suites").glob("*.toml") if f"`{p.name}`" not in published] == []
    for topic in (BENCH / "experiments").iterdir():
        if (topic / "suites").is_dir():
            readme = (topic / "README.md").read_text()
            assert [p.name for p in (topic / "suites").glob("*.toml") if p.name not in readme] == []


def test_the_results_index_lists_every_published_folder():
    index = (BENCH / "results" / "README.md").read_text()
    listed = set(re.findall(r"^- `([^`/]+)/?`", index, re.M))
    assert listed == {p.name for p in (BENCH / "results").iterdir() if p.name != "README.md"}


NOT_INSIDE = r"(?<![\w/.~$-])"  # a path of its own, not the tail of /tmp/.../bench/... or $OUT/bench/...
MODULE = re.compile(r"python3? -m (bench(?:\.[a-z_0-9]+)+)")
FILE = re.compile(NOT_INSIDE + r"bench/(?:suites|tables|scripts|experiments/[a-z_]+)/[a-z_0-9]+\.(?:toml|py|sh|csv)")
FOLDER = re.compile(NOT_INSIDE + r"(bench/(?:results|experiments/[a-z_]+/results)/[a-z0-9][a-z0-9_-]*(?:\.md)?)(?![\w*-])")
OLD = re.compile(NOT_INSIDE + r"bench/(?!__init__)(?:device/)?[a-z_0-9]+\.(?:toml|py|sh|csv)\b")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(BENCH)))
def test_documented_commands_and_paths_exist(doc):
    text = doc.read_text()
    for module in MODULE.findall(text):  # bench.tables.NAME: the package
        path = ROOT / module.replace(".", "/")
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), f"{doc}: no module {module}"
    for path in FILE.findall(text):
        assert (ROOT / path).is_file(), f"{doc}: no file {path}"
    for folder in FOLDER.findall(text):
        assert (ROOT / folder).exists(), f"{doc}: no folder {folder}"
    assert OLD.findall(text) == [], f"{doc}: paths of before bench/ had its folders"
