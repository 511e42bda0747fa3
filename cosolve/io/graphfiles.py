"""Graph files: DIMACS (``p edge N M`` / ``e u v [w]``), rudy (the Gset MaxCut format: a first
line ``N M``, then M lines ``u v w``, 1-based), METIS (``N M [FMT]``, then one line of neighbours
per node) and plain edge lists (``u v [w]``).

Both give a graph problem of the requested kind (``mis``, ``maxcut``, ``maxclique``, ``mds``)
via ``GRAPH_PROBLEMS[kind](n, edges, weights=..., labels=..., name=...)``; edges are 0-based
node pairs (E, 2), weights (E,) floats (1 where a line has none), labels (n,) the node names
of the file (DIMACS, rudy and METIS: 1..N; edge lists: the sorted distinct integer labels).
"""

from __future__ import annotations

import os

import numpy as np

from cosolve.errors import InputError
from cosolve.io.files import atomic_write, check_declared, instance_name, read_text
from cosolve.problems.graphs import GRAPH_PROBLEMS, GraphProblem


def _kind(problem: str | None, where: str) -> type[GraphProblem]:
    if problem not in GRAPH_PROBLEMS:
        choices = "|".join(GRAPH_PROBLEMS)
        raise InputError(f"a graph file needs the problem; pass --problem {choices} (problem= in Python)", where=where)
    return GRAPH_PROBLEMS[problem]


#: Isolated nodes take no line, so a graph file may declare more nodes than it has bytes; but no
#: more than this many, plus this many per character of the file.
SPARE_NODES = 1_000_000


def _check_nodes(n: int, text: str, at: str) -> None:
    check_declared(n, SPARE_NODES + 16 * len(text), "nodes", at)


def _int(text: str, at: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{what} must be an integer, got {text!r}", where=at) from None
    if not -(2**63) <= value < 2**63:
        raise InputError(f"{what} must be a 64-bit integer, got {text!r}", where=at)
    return value


def _node(text: str, n: int, at: str) -> int:
    """The 1-based node ``text`` of a graph of ``n`` nodes as a 0-based index, checked to be in 1..n."""
    u = _int(text, at, "a node")
    if not 1 <= u <= n:
        raise InputError(f"node {u} out of range 1..{n}", where=at)
    return u - 1


def _weight(text: str, at: str) -> float:
    try:
        w = float(text)
    except ValueError:
        raise InputError(f"edge weight must be a number, got {text!r}", where=at) from None
    if not np.isfinite(w):
        raise InputError(f"edge weight must be finite, got {text!r}", where=at)
    return w


def _check_repeats(e: np.ndarray, weights: list[float], lines: list[int], where: str) -> None:
    """An edge given twice (either direction) must carry the same weight both times."""
    if len(e) < 2:
        return
    w = np.asarray(weights)
    key = np.sort(e, axis=1)
    order = np.lexsort((key[:, 1], key[:, 0]))
    same = np.all(key[order[1:]] == key[order[:-1]], axis=1) & (w[order[1:]] != w[order[:-1]])
    if same.any():
        k = int(np.flatnonzero(same)[0])
        first, second = sorted((int(order[k]), int(order[k + 1])))
        raise InputError(
            f"edge repeated with another weight ({weights[second]:g}; line {lines[first]} gave {weights[first]:g})",
            where=f"{where}:{lines[second]}",
        )


def _build(
    kind: type[GraphProblem],
    n: int,
    edges: list[tuple[int, int]],
    weights: list[float],
    labels,
    name: str,
    where: str,
    lines: list[int],
):
    e = np.array(edges, dtype=np.int64).reshape(-1, 2)
    _check_repeats(e, weights, lines, where)
    try:
        return kind(n, e, weights=np.array(weights, dtype=np.float64), labels=labels, name=name)
    except InputError as err:
        raise InputError(str(err), where=where) from None


def read_dimacs(path: str | os.PathLike, *, problem: str | None) -> GraphProblem:
    """Read a DIMACS graph: ``c`` comments, one ``p FORMAT N M`` line (``edge``, ``col``, ...),
    ``e u v [w]`` lines with 1 <= u, v <= N. Fewer than M ``e`` lines is a truncated file; more
    are accepted (files often list both u-v and v-u). Endpoints outside 1..N, and an edge
    repeated with another weight, are errors at their line; self-loops are dropped."""
    where = str(path)
    kind = _kind(problem, where)
    n: int | None = None
    m = 0
    edges: list[tuple[int, int]] = []
    weights: list[float] = []
    lines: list[int] = []
    no = 0
    text = read_text(path)
    for no, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0] == "c":
            continue
        at = f"{where}:{no}"
        tag = fields[0]
        if tag == "p":
            if n is not None:
                raise InputError("a second 'p' line", where=at)
            if len(fields) != 4:
                raise InputError(f"expected 'p edge N M', got {line.strip()!r}", where=at)
            n = _int(fields[2], at, "the number of nodes")
            m = _int(fields[3], at, "the number of edges")
            if n < 1 or m < 0:
                raise InputError(f"expected 'p edge N M' with N >= 1 and M >= 0, got {line.strip()!r}", where=at)
            _check_nodes(n, text, at)
        elif tag in ("e", "a"):
            if n is None:
                raise InputError("an edge before the 'p edge N M' line", where=at)
            if len(fields) not in (3, 4):
                raise InputError(f"expected 'e u v [weight]', got {line.strip()!r}", where=at)
            edges.append((_node(fields[1], n, at), _node(fields[2], n, at)))
            weights.append(_weight(fields[3], at) if len(fields) == 4 else 1.0)
            lines.append(no)
        elif tag == "n":
            raise InputError("node weights ('n' lines) are not supported", where=at)
        else:
            raise InputError(f"unknown DIMACS line type {tag!r} (expected c, p or e)", where=at)
    if n is None:
        raise InputError("no 'p edge N M' line", where=where)
    if len(edges) < m:
        raise InputError(
            f"truncated: the 'p' line declares {m} edges but only {len(edges)} 'e' lines follow", where=f"{where}:{no}"
        )
    return _build(kind, n, edges, weights, np.arange(1, n + 1), instance_name(path), where, lines)


def rudy_header(line: str) -> tuple[int, int] | None:
    """``(N, M)`` if ``line`` is a rudy header (two integers, N >= 1, M >= 0), else None."""
    fields = line.split()
    if len(fields) != 2 or not all(f.isdigit() for f in fields):
        return None
    n, m = int(fields[0]), int(fields[1])
    return (n, m) if n >= 1 else None


def read_rudy(path: str | os.PathLike, *, problem: str | None) -> GraphProblem:
    """Read a rudy graph (the format of the Gset MaxCut instances): a first line ``N M``, then
    exactly M lines ``u v [w]`` with 1 <= u, v <= N (w: an integer or real weight, 1 if absent).
    Blank lines are skipped. A missing or extra edge line, an endpoint outside 1..N and an edge
    repeated with another weight are errors at their line; self-loops are dropped."""
    where = str(path)
    kind = _kind(problem, where)
    header: tuple[int, int] | None = None
    edges: list[tuple[int, int]] = []
    weights: list[float] = []
    lines: list[int] = []
    text = read_text(path)
    for no, raw in enumerate(text.splitlines(), 1):
        fields = raw.split()
        if not fields:
            continue
        at = f"{where}:{no}"
        if header is None:
            header = rudy_header(raw)
            if header is None:
                raise InputError(f"expected the rudy header 'N M' (nodes >= 1, edges >= 0), got {raw.strip()!r}", where=at)
            _check_nodes(header[0], text, at)
            continue
        n, m = header
        if len(edges) == m:
            raise InputError(f"more edge lines than the {m} the header 'N M' declares", where=at)
        if len(fields) not in (2, 3):
            raise InputError(f"expected 'u v [weight]', got {raw.strip()!r}", where=at)
        edges.append((_node(fields[0], n, at), _node(fields[1], n, at)))
        weights.append(_weight(fields[2], at) if len(fields) == 3 else 1.0)
        lines.append(no)
    if header is None:
        raise InputError("empty file: no rudy header 'N M'", where=where)
    n, m = header
    if len(edges) < m:
        raise InputError(f"truncated: the header declares {m} edges but only {len(edges)} edge lines follow", where=where)
    return _build(kind, n, edges, weights, np.arange(1, n + 1), instance_name(path), where, lines)


def read_metis(path: str | os.PathLike, *, problem: str | None) -> GraphProblem:
    """Read a METIS graph: ``%`` comment lines, a header ``N M [FMT [NCON]]`` and then one line per
    node 1..N listing its neighbours (1-based), each followed by the edge's weight when FMT is
    ``1`` (``0`` or absent: unweighted). Every edge appears in the lines of both its ends with one
    weight, and M counts each once. Node weights (FMT ``10``, ``11``) are refused; a missing or
    extra node line, a one-sided or self edge and a wrong M are errors at their line."""
    where = str(path)
    kind = _kind(problem, where)
    text = read_text(path)
    rows = [(no, raw.split()) for no, raw in enumerate(text.splitlines(), 1) if not raw.lstrip().startswith("%")]
    while rows and not rows[0][1]:
        rows.pop(0)
    if not rows:
        raise InputError("empty file: no METIS header 'N M [FMT]'", where=where)
    no, head = rows[0]
    at = f"{where}:{no}"
    if not 2 <= len(head) <= 4:
        raise InputError(f"expected the METIS header 'N M [FMT [NCON]]', got {' '.join(head)!r}", where=at)
    n, m = _int(head[0], at, "the number of nodes"), _int(head[1], at, "the number of edges")
    if n < 1 or m < 0:
        raise InputError(f"expected N >= 1 nodes and M >= 0 edges, got {n} and {m}", where=at)
    _check_nodes(n, text, at)
    fmt = head[2] if len(head) > 2 else "0"
    if fmt not in ("0", "00", "000", "1", "01", "001"):
        raise InputError(f"FMT {fmt} (node weights or sizes) is not supported; only 0 and 1 (edge weights)", where=at)
    weighted = fmt.endswith("1")
    body = rows[1:]  # a node without neighbours has a blank line
    extra = [r for r in body[n:] if r[1]]
    if extra:
        raise InputError(f"more node lines than the {n} the header declares", where=f"{where}:{extra[0][0]}")
    if len(body) < n:
        last = f"{where}:{body[-1][0] if body else no}"
        raise InputError(f"truncated: the header declares {n} nodes but {len(body)} node lines follow", where=last)
    body = body[:n]
    seen: dict[tuple[int, int], tuple[float, int]] = {}
    edges: list[tuple[int, int]] = []
    weights: list[float] = []
    lines: list[int] = []
    for u, (no, fields) in enumerate(body):
        at = f"{where}:{no}"
        if weighted and len(fields) % 2:
            raise InputError("expected 'neighbour weight' pairs (FMT 1)", where=at)
        step = 2 if weighted else 1
        for k in range(0, len(fields), step):
            v = _node(fields[k], n, at)
            if v == u:
                raise InputError(f"node {u + 1} lists itself", where=at)
            w = _weight(fields[k + 1], at) if weighted else 1.0
            key = (min(u, v), max(u, v))
            if key in seen:
                first, first_no = seen.pop(key)
                if first != w:
                    raise InputError(f"edge {u + 1}-{v + 1} has weight {w:g} here and {first:g} at line {first_no}", where=at)
            elif u < v:
                seen[key] = (w, no)
                edges.append(key)
                weights.append(w)
                lines.append(no)
            else:
                raise InputError(f"edge {u + 1}-{v + 1} is not listed at node {v + 1}", where=at)
    if seen:
        (u, v), (_, no) = next(iter(seen.items()))
        raise InputError(f"edge {u + 1}-{v + 1} is not listed at node {v + 1}", where=f"{where}:{no}")
    if len(edges) != m:
        raise InputError(f"the header declares {m} edges but the node lines hold {len(edges)}", where=f"{where}:{rows[0][0]}")
    return _build(kind, n, edges, weights, np.arange(1, n + 1), instance_name(path), where, lines)


def read_edgelist(path: str | os.PathLike, *, problem: str | None) -> GraphProblem:
    """Read ``u v [w]`` lines (integer node labels, optional weight); ``#`` and ``%`` start
    comments. Nodes are the sorted distinct labels, numbered 0..n-1; ``labels`` keeps them.
    An edge repeated with another weight is an error at its line; self-loops are dropped."""
    where = str(path)
    kind = _kind(problem, where)
    ends: list[tuple[int, int]] = []
    weights: list[float] = []
    lines: list[int] = []
    for no, raw in enumerate(read_text(path).splitlines(), 1):
        line = raw.split("#", 1)[0].split("%", 1)[0]
        fields = line.split()
        if not fields:
            continue
        at = f"{where}:{no}"
        if len(fields) not in (2, 3):
            raise InputError(f"expected 'u v [weight]', got {raw.strip()!r}", where=at)
        ends.append((_int(fields[0], at, "a node label"), _int(fields[1], at, "a node label")))
        weights.append(_weight(fields[2], at) if len(fields) == 3 else 1.0)
        lines.append(no)
    if not ends:
        raise InputError("no edges", where=where)
    pairs = np.array(ends, dtype=np.int64)
    labels = np.unique(pairs)
    edges = np.searchsorted(labels, pairs)
    return _build(kind, len(labels), edges.tolist(), weights, labels, instance_name(path), where, lines)


def _weight_text(graph: GraphProblem) -> list[str] | None:
    w = graph.weights
    if np.all(w == 1):
        return None
    return [str(int(x)) if x == int(x) else repr(float(x)) for x in w.tolist()]


def write_dimacs(graph: GraphProblem, path: str | os.PathLike) -> None:
    """Write ``graph`` as DIMACS (``p edge N M``, 1-based ``e`` lines; weights when not all 1).
    Node numbers are positions 1..n, not labels."""
    weights = _weight_text(graph)
    lines = [f"c {graph.name or 'graph'} written by cosolve", f"p edge {graph.n} {len(graph.edges)}"]
    for k, (u, v) in enumerate(graph.edges.tolist()):
        lines.append(f"e {u + 1} {v + 1}" + (f" {weights[k]}" if weights else ""))
    atomic_write(path, "\n".join(lines) + "\n")


def write_rudy(graph: GraphProblem, path: str | os.PathLike) -> None:
    """Write ``graph`` as rudy: ``N M``, then ``u v w`` per edge (1-based positions, not labels)."""
    weights = _weight_text(graph) or ["1"] * len(graph.edges)
    lines = [f"{graph.n} {len(graph.edges)}"]
    lines += [f"{u + 1} {v + 1} {weights[k]}" for k, (u, v) in enumerate(graph.edges.tolist())]
    atomic_write(path, "\n".join(lines) + "\n")


def write_metis(graph: GraphProblem, path: str | os.PathLike) -> None:
    """Write ``graph`` as METIS (``N M`` and FMT 1 when weights are not all 1; 1-based positions)."""
    weights = _weight_text(graph)
    neighbours: list[list[str]] = [[] for _ in range(graph.n)]
    for k, (u, v) in enumerate(graph.edges.tolist()):
        w = f" {weights[k]}" if weights else ""
        neighbours[u].append(f"{v + 1}{w}")
        neighbours[v].append(f"{u + 1}{w}")
    lines = [f"% {graph.name or 'graph'} written by cosolve", f"{graph.n} {len(graph.edges)}" + (" 1" if weights else "")]
    lines += [" ".join(row) for row in neighbours]
    atomic_write(path, "\n".join(lines) + "\n")


def write_edgelist(graph: GraphProblem, path: str | os.PathLike) -> None:
    """Write ``graph`` as ``u v [w]`` lines with the node labels (isolated nodes are lost)."""
    weights = _weight_text(graph)
    labels = graph.labels.tolist()
    lines = [f"# {graph.name or 'graph'}: {graph.n} nodes, {len(graph.edges)} edges"]
    for k, (u, v) in enumerate(graph.edges.tolist()):
        lines.append(f"{labels[u]} {labels[v]}" + (f" {weights[k]}" if weights else ""))
    atomic_write(path, "\n".join(lines) + "\n")
