"""RB graphs and the named instance distributions (graphs and set cover)."""

import numpy as np
import pytest
import scipy.sparse as sp

from cosolve.errors import InputError
from cosolve.generators.distributions import DISTRIBUTIONS, sample_graph
from cosolve.generators.graphs import rb_graph


def test_rb_graph_is_cliques_plus_cross_edges():
    g = rb_graph(6, 4, 0.5, seed=1)
    assert g.n == 24
    a = g.adjacency.toarray()
    for c in range(6):
        block = a[4 * c : 4 * c + 4, 4 * c : 4 * c + 4]
        assert block.sum() == 12  # a clique of 4 nodes: every off-diagonal pair
    assert len(g.edges) > 6 * 6  # edges between the cliques too
    # an independent set takes at most one node per clique: one node per clique never exceeds 6
    cross = a.copy()
    for c in range(6):
        cross[4 * c : 4 * c + 4, 4 * c : 4 * c + 4] = 0
    assert cross.sum() > 0


@pytest.mark.parametrize(
    "name, low, high", [("rb-small", 200, 300), ("rb-large", 800, 1200), ("er-700-800", 700, 800), ("ba-small", 200, 300)]
)
def test_distributions_respect_their_node_ranges_and_are_deterministic(name, low, high):
    graphs = [sample_graph(name, seed) for seed in range(3)]
    assert all(low <= g.n <= high for g in graphs)
    again = sample_graph(name, 1)
    assert again.n == graphs[1].n and np.array_equal(again.edges, graphs[1].edges)
    assert not (graphs[0].n == graphs[1].n and np.array_equal(graphs[0].edges, graphs[1].edges))


def test_ba_small_has_m_four():
    g = sample_graph("ba-small", 0, "maxcut")
    assert len(g.edges) == 4 * (g.n - 4) and g.kind == "maxcut"


def test_unknown_names_are_rejected_with_the_valid_ones():
    with pytest.raises(InputError, match="valid: " + ", ".join(DISTRIBUTIONS)):
        sample_graph("rb-medium", 0)
    with pytest.raises(InputError, match="unknown graph problem"):
        sample_graph("rb-small", 0, "tsp")
    with pytest.raises(InputError):
        rb_graph(1, 4, 0.5)


def test_balas_ho_set_covers_are_valid_and_reproducible():
    from cosolve.generators.distributions import get_distribution

    balas_ho = get_distribution("balas-ho")
    a, b = balas_ho.sample(3), balas_ho.sample(3)
    assert (a.matrix != b.matrix).nnz == 0 and np.array_equal(a.costs, b.costs)
    assert 50 <= a.n_rows <= 200 and a.n_cols >= 5 * a.n_rows
    assert (a.matrix.sum(axis=1) >= 1).all()  # every row can be covered


@pytest.mark.parametrize("seed", range(4))
def test_planted_rb_graph_has_an_independent_set_of_one_node_per_clique(seed):
    import networkx as nx

    g = rb_graph(6, 3, 0.6, seed=seed, planted=True, distinct=True)
    graph = nx.Graph()
    graph.add_nodes_from(range(g.n))
    graph.add_edges_from(map(tuple, g.edges))
    _clique, size = nx.max_weight_clique(nx.complement(graph), weight=None)
    assert size == 6  # at most one node per clique, and the planted set reaches it
    plain = rb_graph(6, 3, 0.6, seed=seed)
    assert len(plain.edges) > 0


def test_gset_styles_have_the_edge_counts_of_their_models():
    from cosolve.generators.distributions import gset
    from cosolve.generators.graphs import gset_random, planar_union, toroidal_grid

    g = gset_random(60, 0.1, problem="maxcut", seed=1, signed=True)
    assert len(g.edges) == round(0.1 * 60 * 59 / 2) and set(np.unique(g.weights)) == {-1.0, 1.0}
    t = toroidal_grid(5, 7, problem="maxcut", seed=2)
    assert len(t.edges) == 2 * 35 and np.all(np.bincount(t.edges.ravel(), minlength=35) == 4)
    p = planar_union(80, 0.99, problem="maxcut", seed=3)
    assert len(p.edges) <= 2 * (3 * 80 - 6) and np.all(p.weights == 1)
    assert [gset(s, "maxcut").n for s in range(12)] == [800] * 4 + [1000] * 4 + [2000] * 4


@pytest.mark.parametrize("seed", range(4))
def test_orlib_nr_set_covers_have_the_shape_of_the_orlib_set_their_seed_picks(seed):
    from cosolve.generators.distributions import ORLIB_NR_SHAPES, get_distribution

    p = get_distribution("orlib-nr").sample(seed)
    _name, rows, cols, density = ORLIB_NR_SHAPES[seed]
    assert (p.n_rows, p.n_cols) == (rows, cols)
    assert p.matrix.nnz == round(density * rows * cols)
    assert p.costs.min() >= 1 and p.costs.max() <= 100 and np.all(p.costs == np.round(p.costs))
    assert (p.matrix.sum(axis=1) >= 2).all() and (p.matrix.sum(axis=0) >= 1).all()


@pytest.mark.parametrize("seed", range(3))
def test_rail_like_columns_are_short_runs_of_nearby_rows_costing_one_or_two(seed):
    from cosolve.generators.setcover import rail_like

    p = rail_like(300, 6000, seed=seed)
    a = sp.csc_array(p.matrix)
    sizes = np.diff(a.indptr)
    assert sizes.min() >= 1 and sizes.max() <= 12 and 4 < sizes.mean() < 8
    assert set(np.unique(p.costs)) == {1.0, 2.0}
    assert p.costs[sizes >= 10].mean() > p.costs[sizes <= 3].mean()  # longer columns cost more
    assert (p.matrix.sum(axis=1) >= 1).all()
    for j in range(0, p.n_cols, 37):
        rows = np.sort(a.indices[a.indptr[j] : a.indptr[j + 1]])
        gaps = np.diff(np.r_[rows, rows[0] + p.n_rows])  # cyclic gaps between consecutive rows
        assert np.count_nonzero(gaps > 1) <= 3  # at most three runs of consecutive rows
        assert p.n_rows - gaps.max() < 4 * 12  # within the window (3 k) plus a run (k rows)
    b = rail_like(300, 6000, seed=seed)
    assert (p.matrix != b.matrix).nnz == 0 and np.array_equal(p.costs, b.costs)


def test_rail_like_adds_a_column_for_each_row_no_column_reaches():
    from cosolve.generators.setcover import rail_like

    p = rail_like(500, 3, seed=0)  # three columns cannot reach 500 rows
    assert (p.matrix.sum(axis=1) >= 1).all() and p.n_cols > 3


def test_the_rail_distributions_draw_sizes_in_their_ranges():
    from cosolve.generators.distributions import _rail_size, rail, rail_scattered

    sizes = [_rail_size(seed) for seed in range(200)]
    assert all(500 <= m <= 2500 and min(100 * m, 1_000_000) <= n <= min(400 * m, 1_000_000) for m, n in sizes)
    assert min(m for m, _ in sizes) < 600 and max(m for m, _ in sizes) > 2400
    rows, cols = _rail_size(5)
    for make in (rail, rail_scattered):
        p = make(5)
        assert p.n_rows == rows and p.n_cols >= cols


def test_scattered_rail_columns_draw_each_row_on_its_own():
    from cosolve.generators.setcover import rail_like

    runs = sp.csc_array(rail_like(400, 4000, seed=1).matrix)
    scattered = sp.csc_array(rail_like(400, 4000, max_pieces=None, spread=8.0, seed=1).matrix)

    def mean_runs(a):
        counts = []
        for j in range(a.shape[1]):
            rows = np.sort(a.indices[a.indptr[j] : a.indptr[j + 1]])
            counts.append(1 + np.count_nonzero(np.diff(rows) > 1))
        return np.mean(counts)

    assert mean_runs(scattered) > 2 * mean_runs(runs)


def test_setcover_distributions_refuse_graph_distributions():
    from cosolve.generators.distributions import sample_setcover

    with pytest.raises(InputError, match="not set covers"):
        sample_setcover("rb-small", 0)
    assert sample_setcover("balas-ho", 1).n_rows >= 50
