"""File formats: how each is recognised by name, read and (where cosolve writes it) written.

Which problem kinds a format holds is said by the kinds themselves
(:attr:`cosolve.problems.registry.ProblemKind.formats`). Readers and writers are imported when
used, so listing formats does not load HiGHS or SCIP.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from cosolve.core.problem import Problem
from cosolve.core.registry import Registry


def _call(target: str) -> Callable[..., Any]:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Format:
    """A file format.

    ``reader``: ``"module:function"`` called as ``function(path, problem=...)`` (``problem`` is the
    kind asked for, or None) returning a Problem; ``tells_kind``: whether the reader works out the
    kind itself when several kinds share the format (an MPS file is a set cover when it is one),
    else a file needs ``--problem``; ``extensions``: file name endings that imply it (before an
    optional ``.gz``, ``.bz2`` or ``.xz``); ``writer``: ``"module:function"`` called as ``function(problem, path)``, with
    ``suffix`` the ending of the files it writes; ``magic``: the bytes its files start with, when
    that tells it; ``either``: for a format told apart only by reading the whole file, the formats
    it may turn out to be (then it is not listed for ``--format``).
    """

    name: str
    description: str
    reader: str
    tells_kind: bool = True
    extensions: tuple[str, ...] = ()
    writer: str | None = None
    suffix: str = ""
    magic: bytes = b""
    either: tuple[str, ...] = ()

    def read(self, path: str | os.PathLike, problem: str | None) -> Problem:
        return _call(self.reader)(path, problem=problem)

    def write(self, problem: Problem, path: str | os.PathLike) -> None:
        if self.writer is None:
            raise ValueError(f"cosolve does not write {self.name} files")
        _call(self.writer)(problem, path)


_ALL = (
    Format(
        "orlib",
        "set cover, row-wise OR-Library text: m n, n costs, per row k and k column indices",
        "cosolve.io.orlib:read_orlib",
        writer="cosolve.io.orlib:write_orlib",
        suffix=".txt",
    ),
    Format(
        "rail",
        "set cover, column-wise text: m n, per column cost, k and k row indices",
        "cosolve.io.orlib:read_rail",
        writer="cosolve.io.orlib:write_rail",
        suffix=".txt",
    ),
    Format(
        "mps",
        "MIP in fixed or free MPS, optionally gzipped (read by HiGHS); set cover when it is one",
        "cosolve.io.mps:read_mps",
        extensions=(".mps",),
    ),
    Format(
        "lp",
        "MIP in CPLEX LP format (read by HiGHS); set cover when it is one",
        "cosolve.io.mps:read_lp",
        extensions=(".lp",),
    ),
    Format(
        "dimacs",
        "graph, DIMACS: 'p edge N M' and 'e u v [w]' lines (needs --problem)",
        "cosolve.io.graphfiles:read_dimacs",
        tells_kind=False,
        extensions=(".col", ".clq", ".dimacs"),
        writer="cosolve.io.graphfiles:write_dimacs",
        suffix=".col",
    ),
    Format(
        "rudy",
        "graph, rudy (Gset MaxCut files): first line 'N M', then M lines 'u v w', 1-based (needs --problem)",
        "cosolve.io.graphfiles:read_rudy",
        tells_kind=False,
        extensions=(".rudy",),
        writer="cosolve.io.graphfiles:write_rudy",
        suffix=".rudy",
    ),
    Format(
        "metis",
        "graph, METIS: header 'N M [FMT]', then a line of neighbours (and edge weights if FMT is 1) per node (needs --problem)",
        "cosolve.io.graphfiles:read_metis",
        tells_kind=False,
        extensions=(".graph", ".metis"),
        writer="cosolve.io.graphfiles:write_metis",
        suffix=".graph",
    ),
    Format(
        "edgelist",
        "graph, 'u v [w]' per line, '#'/'%' comments (needs --problem)",
        "cosolve.io.graphfiles:read_edgelist",
        tells_kind=False,
        extensions=(".edges", ".edgelist"),
        writer="cosolve.io.graphfiles:write_edgelist",
        suffix=".edges",
    ),
    Format(
        "tsplib",
        "TSP, TSPLIB symmetric: EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT, GEO or EXPLICIT (any matrix format)",
        "cosolve.io.tsplib:read_tsplib",
        extensions=(".tsp",),
        writer="cosolve.io.tsplib:write_tsplib",
        suffix=".tsp",
    ),
    Format(
        "jigsaw",
        "jigsaw puzzle, NumPy .npz with arrays pieces (p, s, s[, c]), grid (rows, cols) and optionally truth",
        "cosolve.io.jigsawfile:read_jigsaw",
        extensions=(".npz",),
        writer="cosolve.io.jigsawfile:write_jigsaw",
        suffix=".npz",
        magic=b"PK\x03\x04",  # a zip archive: the only one cosolve reads is a jigsaw .npz
    ),
    Format(
        "numbers",
        "numeric text in the orlib or the rail layout, told apart by reading it all",
        "cosolve.io.orlib:read_either_layout",
        either=("orlib", "rail"),
    ),
)

#: Every format by name, the ones ``--format`` takes and the sniffer's own alike; packages add
#: theirs from a module in the entry-point group ``cosolve.formats`` or in ``COSOLVE_PLUGINS``.
ALL_FORMATS: Registry[Format] = Registry("format", group="cosolve.formats")
for _format in _ALL:
    ALL_FORMATS.register(_format)


class _Derived(Mapping[str, Any]):
    """A read-only mapping worked out from :data:`ALL_FORMATS` on each use (so it includes formats
    registered later)."""

    def __init__(self, derive: Callable[[], dict[str, Any]]) -> None:
        self._derive = derive

    def __getitem__(self, key: str) -> Any:
        return self._derive()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._derive())

    def __len__(self) -> int:
        return len(self._derive())


#: The formats ``--format`` takes, with their descriptions.
FORMATS: Mapping[str, str] = _Derived(lambda: {f.name: f.description for f in ALL_FORMATS.values() if not f.either})
#: File name endings (lower case, without a compression suffix) and the format each implies.
EXTENSIONS: Mapping[str, str] = _Derived(lambda: {ext: f.name for f in ALL_FORMATS.values() for ext in f.extensions})
