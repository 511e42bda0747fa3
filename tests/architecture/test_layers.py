"""The package's layers only point down: every import of a cosolve module, at module level or
inside a function (``TYPE_CHECKING`` blocks aside), goes to a module of the same layer or a lower
one, and no two modules import each other, directly or through others.

The order is the one ``docs/architecture.md`` draws (lowest first)."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cosolve"

#: Lowest first; a module belongs to the layer of the longest prefix that names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cosolve.errors",),
    ("cosolve.core",),
    ("cosolve.problems",),
    ("cosolve.io", "cosolve.generators"),
    ("cosolve.heuristics", "cosolve.portfolio"),
    ("cosolve.diffusion",),
    ("cosolve.training",),
    ("cosolve.baselines",),
    ("cosolve.methods",),
    ("cosolve.method_catalog", "cosolve.solver"),
    ("cosolve",),
    ("cosolve.cli", "cosolve.harness"),
    ("cosolve.__main__",),
)


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                lines.update(n.lineno for n in ast.walk(sub) if hasattr(n, "lineno"))
    return lines


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The cosolve modules ``name`` imports, anywhere in its file except ``TYPE_CHECKING`` blocks
    (``from package import module`` counts the package and the module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.split(".")[0] == "cosolve":
                found.add(target)
    return found


def layer_of(name: str) -> int:
    best, level = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    return level


@functools.cache
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_module_belongs_to_a_layer():
    assert [name for name in modules() if layer_of(name) < 0] == []


def test_no_module_imports_a_module_of_a_higher_layer():
    upward = [
        f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})"
        for name, targets in graph().items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(name)
    ]
    assert upward == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_between_modules():
    assert cycles(graph()) == []


def test_no_import_cycle_between_subpackages():
    def sub(name: str) -> str:
        return ".".join(name.split(".")[:2])

    edges: dict[str, set[str]] = defaultdict(set)
    for name, targets in graph().items():
        for target in targets:
            if sub(name) != sub(target) and "." in sub(name) and "." in sub(target):
                edges[sub(name)].add(sub(target))
    assert cycles(edges) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]), ({"a": {"b"}, "b": set()}, [])],
)
def test_the_cycle_finder_finds_cycles_and_only_them(edges, expected):
    assert cycles(edges) == expected


def test_the_import_parser_counts_imports_inside_functions_and_not_type_checking_blocks(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cosolve.solver import Solver\n"
        "def f():\n    from cosolve.core.deadline import Deadline\n"
    )
    assert imports("cosolve.core.probe", source, modules()) == {"cosolve.core.deadline"}


def test_no_module_imports_a_private_name_of_another():
    """A helper several modules use is public in the one module that owns it."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cosolve"):
                found += [
                    f"{name} imports {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert found == []
