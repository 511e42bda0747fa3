"""DIMACS and edge-list graph files, and the random graph generators."""

import re

import numpy as np
import pytest

from cosolve.errors import InputError
from cosolve.generators.graphs import barabasi_albert, erdos_renyi
from cosolve.io import read
from cosolve.io.graphfiles import write_dimacs, write_edgelist
from cosolve.problems import GRAPH_PROBLEMS, MaxCut, MaximumIndependentSet


def same_graph(a, b) -> bool:
    return a.n == b.n and np.array_equal(a.edges, b.edges) and np.array_equal(a.weights, b.weights)


@pytest.mark.parametrize("kind", sorted(GRAPH_PROBLEMS))
def test_dimacs_round_trip(tmp_path, kind):
    g = erdos_renyi(12, 0.3, problem=kind, seed=4, weighted=kind == "maxcut")
    path = tmp_path / "g.col"
    write_dimacs(g, path)
    back = read(path, problem=kind)
    assert type(back) is type(g) and same_graph(g, back) and back.name == "g"
    assert back.labels.tolist() == list(range(1, 13))


def test_edgelist_round_trip_keeps_labels(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("# a comment\n10 30 2.5\n30 20 1\n% another\n\n20 10 4 # trailing comment\n")
    g = read(path, problem="maxcut")
    assert isinstance(g, MaxCut)
    assert g.labels.tolist() == [10, 20, 30]
    assert g.edges.tolist() == [[0, 1], [0, 2], [1, 2]] and g.weights.tolist() == [4, 2.5, 1]
    out = tmp_path / "again.edgelist"
    write_edgelist(g, out)
    assert same_graph(g, read(out, problem="maxcut"))
    x = np.array([1, 0, 0], dtype=np.int8)  # node labelled 10 on side 1
    assert g.solution_lines(x) == ["10"]


def test_dimacs_duplicates_and_loose_edge_count(tmp_path):
    path = tmp_path / "dup.dimacs"
    path.write_text("c both directions\np edge 3 4\ne 1 2\ne 2 1\ne 2 3\ne 3 2\n")
    g = read(path, problem="mis")
    assert isinstance(g, MaximumIndependentSet) and g.edges.tolist() == [[0, 1], [1, 2]]


def test_graph_file_needs_problem(tmp_path):
    path = tmp_path / "g.col"
    path.write_text("p edge 2 1\ne 1 2\n")
    for problem in (None, "setcover"):
        with pytest.raises(InputError, match=rf"{re.escape(str(path))}: .*--problem mis\|maxcut\|maxclique\|mds"):
            read(path, problem=problem)


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("c x\np edge 3\ne 1 2\n", 2, "p edge N M"),
        ("p edge three 2\ne 1 2\n", 1, "integer"),
        ("p edge 3 2\ne 1 2\ne 2 4\n", 3, "node 4 out of range 1..3"),
        ("p edge 3 2\ne 1 2\ne 0 1\n", 3, "node 0 out of range"),
        ("e 1 2\np edge 3 1\n", 1, "before"),
        ("p edge 3 2\ne 1 2\nx 2 3\n", 3, "unknown DIMACS line"),
        ("p edge 3 2\ne 1 2 heavy\n", 2, "weight"),
        ("p edge 3 2\np edge 3 2\n", 2, "second"),
    ],
)
def test_malformed_dimacs(tmp_path, text, line, needle):
    path = tmp_path / "bad.col"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read(path, problem="mis")
    assert f"{path}:{line}:" in str(err.value) and needle in str(err.value)


def test_malformed_edgelist(tmp_path):
    path = tmp_path / "bad.edges"
    path.write_text("1 2\n2 3\n3 x\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:3: .*integer"):
        read(path, problem="mds")
    path.write_text("1 2\n2 3 1 9\n")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:2: "):
        read(path, problem="mds")
    path.write_text("# only comments\n")
    with pytest.raises(InputError, match="no edges"):
        read(path, problem="mds")


def test_generators():
    g = erdos_renyi(30, 0.2, problem="mis", seed=1)
    assert isinstance(g, MaximumIndependentSet) and g.n == 30 and len(g.edges) > 0
    assert same_graph(g, erdos_renyi(30, 0.2, problem="mis", seed=1))
    assert not same_graph(g, erdos_renyi(30, 0.2, problem="mis", seed=2))
    b = barabasi_albert(40, 2, problem="maxcut", seed=0, weighted=True)
    assert isinstance(b, MaxCut) and len(b.edges) == 2 * (40 - 2)
    assert b.weights.min() >= 1 and b.weights.max() <= 10
    with pytest.raises(InputError):
        erdos_renyi(5, 0.5, problem="tsp")


def test_truncated_dimacs_and_conflicting_repeats_are_errors(tmp_path):
    from cosolve.errors import InputError
    from cosolve.io import read

    truncated = tmp_path / "t.col"
    truncated.write_text("p edge 4 3\ne 1 2\ne 2 3\n")
    with pytest.raises(InputError, match=r"t\.col:3: truncated: the 'p' line declares 3 edges but only 2"):
        read(truncated, problem="mis")
    both_ways = tmp_path / "b.col"
    both_ways.write_text("p edge 3 2\ne 1 2\ne 2 1\ne 2 3\ne 3 2\n")
    assert read(both_ways, problem="mis").sizes() == {"nodes": 3, "edges": 2}
    repeats = tmp_path / "r.edges"
    repeats.write_text("1 2\n2 3\n2 1 5\n")
    with pytest.raises(InputError, match=r"r\.edges:3: edge repeated with another weight \(5; line 1 gave 1\)"):
        read(repeats, problem="maxcut")


def gset_like(tmp_path, n=800, m=19176, seed=0, name="G.txt"):
    """A rudy file in the layout of the Gset graphs: 'n m', then m lines 'u v w', weights ±1."""
    rng = np.random.default_rng(seed)
    pairs = np.array([(u, v) for u in range(n) for v in range(u + 1, n)])
    edges = pairs[rng.choice(len(pairs), m, replace=False)]
    weights = rng.choice([-1, 1], m)
    path = tmp_path / name
    lines = [f"{n} {m}"] + [f"{u + 1} {v + 1} {w}" for (u, v), w in zip(edges.tolist(), weights.tolist(), strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path, edges, weights


def test_a_rudy_file_is_detected_and_its_header_is_not_an_edge(tmp_path):
    path, edges, weights = gset_like(tmp_path)
    g = read(path, problem="maxcut")
    assert isinstance(g, MaxCut) and g.n == 800 and len(g.edges) == 19176
    assert g.labels.tolist() == list(range(1, 801))
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2, 800)
    cut = sum(w for (u, v), w in zip(edges.tolist(), weights.tolist(), strict=True) if x[u] != x[v])
    assert g.cut_value(x) == cut  # the ±1 weights, and nothing from the header
    with pytest.raises(InputError, match=r"a rudy file may hold any of .*pass --problem"):
        read(path)
    out = tmp_path / "again.rudy"
    from cosolve.io.graphfiles import write_rudy

    write_rudy(g, out)
    assert same_graph(g, read(out, problem="maxcut"))


@pytest.mark.parametrize(
    "text, needle",
    [
        ("\n4 3\n1 2 1\n2 3 1\n", r"2:.*may be a rudy header"),  # one edge missing: header or edge?
        ("4 2\n1 2 1\n2 9 1\n", r"1:.*may be a rudy header"),  # node 9 outside 1..4
        ("5 2\n1 2\n3 4\n", r"1:.*pass --format rudy or --format edgelist"),  # unweighted, counts match
    ],
)
def test_a_first_line_that_may_be_a_header_or_an_edge_is_refused(tmp_path, text, needle):
    path = tmp_path / "g.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=needle):
        read(path, problem="maxcut")


def test_an_edge_list_without_a_header_shape_stays_an_edge_list(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n3 1\n")  # as a header: 1 node, yet nodes 2 and 3 follow
    g = read(path, problem="maxcut")
    assert g.n == 3 and len(g.edges) == 3


@pytest.mark.parametrize(
    "text, line, needle",
    [
        ("4 2\n1 2 1\n", 0, "truncated: the header declares 2 edges but only 1"),
        ("4 1\n1 2 1\n2 3 1\n", 3, "more edge lines than the 1"),
        ("4 1\n1 5 1\n", 2, r"node 5 out of range 1\.\.4"),
        ("4 1\n1 2 x\n", 2, "edge weight must be a number"),
        ("four 1\n", 1, "expected the rudy header"),
    ],
)
def test_malformed_rudy_files_are_errors_at_their_line(tmp_path, text, line, needle):
    path = tmp_path / "g.rudy"
    path.write_text(text)
    where = re.escape(str(path)) + (f":{line}" if line else "")
    with pytest.raises(InputError, match=where + ".*" + needle):
        read(path, problem="maxcut")


def test_metis_files_round_trip_weighted_and_unweighted(tmp_path):
    from cosolve.io.graphfiles import write_metis

    for weighted in (False, True):
        g = erdos_renyi(10, 0.3, problem="maxcut", seed=5, weighted=weighted)
        path = tmp_path / f"g{int(weighted)}.graph"
        write_metis(g, path)
        back = read(path, problem="maxcut")
        assert same_graph(g, back) and back.labels.tolist() == list(range(1, 11))
    path = tmp_path / "isolated.graph"
    path.write_text("% node 3 has no neighbours\n3 1\n2\n1\n\n")
    g = read(path, problem="mis")
    assert g.n == 3 and g.edges.tolist() == [[0, 1]]


@pytest.mark.parametrize(
    "text, line, needle",
    [
        ("3 1\n2\n1\n", 3, "truncated: the header declares 3 nodes but 2"),
        ("2 1\n2\n1\n1\n", 4, "more node lines than the 2"),
        ("3 2\n2\n1\n\n", 1, "the header declares 2 edges but the node lines hold 1"),
        ("2 1\n2\n\n", 2, "edge 1-2 is not listed at node 2"),
        ("2 1 1\n2 5\n1 4\n", 3, "edge 2-1 has weight 4 here and 5 at line 2"),
        ("2 1 1\n2\n1 4\n", 2, r"expected 'neighbour weight' pairs"),
        ("2 1 11\n2\n1\n", 1, "FMT 11 .* not supported"),
        ("2 1\n3\n1\n", 2, r"node 3 out of range 1\.\.2"),
        ("2 1\n1\n1\n", 2, "node 1 lists itself"),
    ],
)
def test_malformed_metis_files_are_errors_at_their_line(tmp_path, text, line, needle):
    path = tmp_path / "g.graph"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(str(path)) + f":{line}: " + needle):
        read(path, problem="maxcut")
