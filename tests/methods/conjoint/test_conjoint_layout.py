"""The conjoint code's layering, read from its sources (imports inside functions count, those under
``TYPE_CHECKING`` do not): the problem family imports neither ``cosolve.io`` nor the methods nor the
command line, no module imports another's private name, and the conjoint modules import one another
without cycles."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CONJOINT = [
    *sorted((ROOT / "cosolve" / "problems" / "conjoint").glob("*.py")),
    *sorted((ROOT / "cosolve" / "methods" / "conjoint").rglob("*.py")),
    ROOT / "cosolve" / "io" / "conjoint_csv.py",
    ROOT / "cosolve" / "cli" / "conjoint.py",
]


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` of each ``from module import name`` (``name`` empty for ``import module``)."""
    tree = ast.parse(path.read_text())
    skip = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in node.body
        for n in ast.walk(sub)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, a.name) for a in node.names]
    return found


def test_the_problem_family_sits_below_io_methods_and_the_cli():
    upward = {
        str(path.relative_to(ROOT)): module
        for path in CONJOINT
        if _module(path).startswith("cosolve.problems.")
        for module, _ in _imports(path)
        if module.startswith(("cosolve.io", "cosolve.methods", "cosolve.cli"))
    }
    assert upward == {}


def test_no_private_name_is_imported_across_modules():
    private = [
        f"{path.relative_to(ROOT)}: {module}.{name}"
        for path in CONJOINT
        for module, name in _imports(path)
        if module.startswith("cosolve") and name.startswith("_")
    ]
    assert private == []


def test_the_conjoint_modules_import_one_another_without_cycles():
    modules = {_module(path): path for path in CONJOINT}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for module, imported in _imports(path):
            for candidate in (f"{module}.{imported}", module):
                if candidate in modules and candidate != name:
                    targets.add(candidate)
                    break
        graph[name] = targets
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := cycle_from(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            assert cycle_from(node, []) is None
