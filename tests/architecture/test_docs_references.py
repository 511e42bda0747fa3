"""What README.md and docs/ point at exists: relative links, repository paths and the Python names
they quote (``cosolve.x.y``), so a moved file or module cannot leave the guides behind."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"\bcosolve(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
PATH = re.compile(r"\b((?:cosolve|bench|tests|instances|solvers|docs)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])")


def _guide_ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("guide", GUIDES, ids=_guide_ids(GUIDES))
def test_every_relative_link_resolves(guide):
    text = guide.read_text(encoding="utf-8")
    broken = [
        target
        for target in LINK.findall(text)
        if "://" not in target and not target.startswith("mailto:") and not (guide.parent / target).exists()
    ]
    assert broken == []


def resolves(name: str) -> bool:
    """Whether ``name`` (``cosolve.module.attribute...``) names a module or an attribute of one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


@pytest.mark.parametrize("guide", GUIDES, ids=_guide_ids(GUIDES))
def test_every_quoted_module_and_name_exists(guide):
    quoted = {name for code in CODE.findall(guide.read_text(encoding="utf-8")) for name in DOTTED.findall(code)}
    assert sorted(name for name in quoted if not resolves(name)) == []


@pytest.mark.parametrize("guide", GUIDES, ids=_guide_ids(GUIDES))
def test_every_quoted_repository_path_exists(guide):
    quoted = {path for code in CODE.findall(guide.read_text(encoding="utf-8")) for path in PATH.findall(code)}
    missing = [p for p in sorted(quoted) if "NAME" not in p and not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())]
    assert missing == []
