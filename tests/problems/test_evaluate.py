import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.errors import InputError
from cosolve.problems import MIP, TSP, MaxCut, MaximumClique, MaximumIndependentSet, MinimumDominatingSet, SetCover

PATH4 = np.array([[0, 1], [1, 2], [2, 3]])  # path a-b-c-d


def test_setcover_objective_and_uncovered_row():
    a = sp.csr_array(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]]))
    sc = SetCover(np.array([1.0, 2.0, 3.0]), a)
    e = sc.evaluate(np.array([1, 1, 0]))
    assert e.feasible and e.objective == 3.0
    e = sc.evaluate(np.array([1, 0, 0]))
    assert not e.feasible and e.violation.startswith("row 2 is not covered")
    assert sc.solution_lines(np.array([1, 0, 1])) == ["1", "3"]
    with pytest.raises(InputError, match="length 3"):
        sc.evaluate(np.array([1, 0]))
    with pytest.raises(InputError, match="0/1"):
        sc.evaluate(np.array([1, 2, 0]))


def test_setcover_rejects_bad_instances():
    with pytest.raises(InputError, match="row 2 is covered by no column"):
        SetCover(np.ones(2), sp.csr_array(np.array([[1, 0], [0, 0]])))
    with pytest.raises(InputError, match="non-negative"):
        SetCover(np.array([1.0, -1.0]), sp.csr_array(np.eye(2)))
    with pytest.raises(InputError, match="2 columns but 3 costs"):
        SetCover(np.ones(3), sp.csr_array(np.eye(2)))


def test_graph_families():
    labels = np.array(["a", "b", "c", "d"])
    mis = MaximumIndependentSet(4, PATH4, labels=labels)
    assert mis.evaluate(np.array([1, 0, 1, 0])).objective == 2.0
    bad = mis.evaluate(np.array([1, 1, 0, 1]))
    assert not bad.feasible and "a and b" in bad.violation

    clique = MaximumClique(4, np.array([[0, 1], [1, 2], [0, 2], [2, 3]]))
    assert clique.evaluate(np.array([1, 1, 1, 0])).feasible
    assert not clique.evaluate(np.array([1, 0, 1, 1])).feasible

    cut = MaxCut(4, PATH4, weights=np.array([1.0, 2.0, 4.0]))
    assert cut.evaluate(np.array([0, 1, 0, 1])).objective == 7.0
    assert cut.evaluate(np.array([0, 0, 1, 1])).objective == 2.0

    mds = MinimumDominatingSet(4, PATH4)
    assert mds.evaluate(np.array([0, 1, 1, 0])).feasible
    bad = mds.evaluate(np.array([1, 0, 0, 0]))
    assert not bad.feasible and "node 3" in bad.violation  # labels default to 1..n


def test_graph_drops_self_loops_and_duplicates():
    g = MaximumIndependentSet(3, np.array([[0, 1], [1, 0], [2, 2], [1, 2]]))
    assert g.edges.tolist() == [[0, 1], [1, 2]]
    assert g.degrees.tolist() == [1, 2, 1]


def test_tsp_length_and_permutation_check():
    square = TSP(np.array([[0, 0], [0, 3], [4, 3], [4, 0.0]]))
    assert square.evaluate(np.array([0, 1, 2, 3])).objective == 14.0
    assert square.evaluate(np.array([0, 2, 1, 3])).objective == 18.0  # diagonals 5 + 5
    assert not square.evaluate(np.array([0, 1, 1, 3])).feasible
    short = square.evaluate(np.array([0, 1, 2]))  # a tour, but not of every city: infeasible, not malformed
    assert not short.feasible and short.violation == "the tour has 3 cities; the instance has 4"
    with pytest.raises(InputError):
        square.evaluate(np.array([[0, 1], [2, 3]]))


def test_mip_evaluation_names_the_violation():
    mip = MIP(
        c=np.array([1.0, 2.0]),
        matrix=sp.csr_array(np.array([[1.0, 1.0]])),
        row_lower=np.array([1.0]),
        row_upper=np.array([np.inf]),
        lower=np.zeros(2),
        upper=np.array([np.inf, 3.0]),
        integrality=np.array([True, False]),
        offset=10.0,
        var_names=["a", "b"],
        row_names=["cover"],
    )
    assert mip.evaluate(np.array([1.0, 0.0])).objective == 11.0
    assert "variable a = 0.5 is not integral" in mip.evaluate(np.array([0.5, 0.5])).violation
    assert "constraint cover" in mip.evaluate(np.array([0.0, 0.5])).violation
    assert "above its upper bound" in mip.evaluate(np.array([0.0, 4.0])).violation
