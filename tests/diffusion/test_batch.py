"""A batch of graphs behaves as the disjoint union of its graphs."""

import numpy as np
import pytest

from cosolve.diffusion.batch import GraphBatch
from cosolve.diffusion.energies import energy_for
from cosolve.generators.graphs import erdos_renyi


@pytest.mark.parametrize("kind", ["mis", "maxclique", "maxcut", "mds"])
def test_batch_energy_is_the_sum_of_graph_energies(kind):
    graphs = [erdos_renyi(n, 0.4, problem=kind, seed=n, weighted=kind == "maxcut") for n in (5, 7, 6)]
    batch = GraphBatch(graphs)
    assert batch.n == 18 and list(batch.offsets) == [0, 5, 12, 18]
    x = np.random.default_rng(1).integers(0, 2, (4, batch.n)).astype(np.int8)
    per_graph = batch.graph_energies(x)
    for b, (g, part) in enumerate(zip(graphs, batch.split(x), strict=True)):
        np.testing.assert_allclose(per_graph[:, b], energy_for(g).energy(part), atol=1e-9)
        np.testing.assert_allclose(batch.split(batch.energy.flip_gain(x))[b], energy_for(g).flip_gain(part), atol=1e-9)
    np.testing.assert_allclose(per_graph.sum(axis=1), batch.energy.energy(x), atol=1e-9)


def test_coupling_is_the_complement_for_maxclique():
    g = erdos_renyi(6, 0.5, problem="maxclique", seed=2)
    coupling = GraphBatch([g]).coupling.toarray()
    adjacency = g.adjacency.toarray()
    np.testing.assert_array_equal(coupling > 0, (adjacency == 0) & ~np.eye(6, dtype=bool))


def test_batch_rejects_mixed_kinds():
    with pytest.raises(ValueError, match="one problem kind"):
        GraphBatch([erdos_renyi(4, 0.5, problem="mis"), erdos_renyi(4, 0.5, problem="mds")])
