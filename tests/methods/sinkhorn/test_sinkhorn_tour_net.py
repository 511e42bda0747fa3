"""The Gumbel–Sinkhorn TSP edge network trained across instances: its features are scale-free and
match the candidate lists, training lowers its loss, a resumed run continues the saved one
exactly, a fitted or loaded network starts the solve (valid tours, brute-force optima on tiny
instances), and mismatched settings or checkpoints are refused."""

import numpy as np
import pytest
import torch

from cosolve import Solver
from cosolve.errors import InputError, UsageError
from cosolve.generators.tsp import random_tsp
from cosolve.methods.sinkhorn.latent_tour import CandidateGraph
from cosolve.methods.sinkhorn.tour_net import EDGE_FEATURES, edge_features, load_tour_net, network_logits
from cosolve.problems.tsp import TSP
from tests.oracles import brute_force_tsp

TRAIN = [random_tsp(n, seed=s) for s, n in enumerate((14, 16, 18, 20, 22, 24))]


def _fit(**options):
    settings = {"steps": 8, "batch_size": 2, "validate_every": 0.0, "neighbors": 6, "seed": 0, **options}
    return Solver("gumbel-sinkhorn", **settings)


def test_edge_features_are_scale_free_and_rank_the_candidate_lists():
    problem = random_tsp(40, seed=1)
    graph = CandidateGraph.of(problem, 6)
    features = edge_features(graph)
    assert features.shape == (len(graph.pattern.rows), len(EDGE_FEATURES)) and np.isfinite(features).all()
    scaled = CandidateGraph.of(TSP(problem.coords * 7.0), 6)
    assert np.array_equal(scaled.lists, graph.lists)
    np.testing.assert_allclose(edge_features(scaled), features, atol=2e-3)  # integer rounding of EUC_2D only
    rows, cols = graph.pattern.rows.numpy(), graph.pattern.cols.numpy()
    for i, j, rank_ij, rank_ji in zip(rows, cols, features[:, 4], features[:, 5], strict=True):
        listed = np.flatnonzero(graph.lists[i] == j)
        assert rank_ij == pytest.approx(listed[0] / 6 if listed.size else 1.0)
        back = np.flatnonzero(graph.lists[j] == i)
        assert rank_ji == pytest.approx(back[0] / 6 if back.size else 1.0)


def test_training_lowers_the_validated_loss():
    solver = _fit(steps=40, lr=1e-2).fit(TRAIN, progress=False)
    history = solver.method_.training_.history
    assert len(history) > 2
    assert history[-1]["energy"] < 0.9 * history[0]["energy"]  # the noiseless per-city loss at the end temperature


def test_a_resumed_training_run_continues_the_saved_one(tmp_path):
    from cosolve.core.method import FitContext
    from cosolve.methods.sinkhorn.tour_net import TourNetConfig, TourNetTask
    from cosolve.training.loop import train
    from cosolve.training.training_data import FixedInstances

    config = TourNetConfig(neighbors=6, batch_size=2, validation_size=2, validate_every=0.0, iterations=6)
    whole, progress, _ = train(TourNetTask(config), FixedInstances(TRAIN), FitContext(None))
    seen = []
    stop_after_three = FitContext(
        None, out=tmp_path / "run", on_progress=lambda p: seen.append(p.iteration), stop=lambda: 3 in seen
    )
    train(TourNetTask(config), FixedInstances(TRAIN), stop_after_three)  # stopped as by Ctrl-C after iteration 3
    resume = FitContext(None, out=tmp_path / "run", resume=True)
    with pytest.raises(UsageError, match="other settings"):
        train(TourNetTask(TourNetConfig(**{**vars(config), "lr": 0.1})), FixedInstances(TRAIN), resume)
    resumed, again, _ = train(TourNetTask(config), FixedInstances(TRAIN), resume)
    assert again.iteration == progress.iteration == 6
    for name, weights in whole.state_dict().items():
        assert torch.equal(weights, resumed.state_dict()[name]), name
    assert [h["objective"] for h in again.history][-1] == progress.history[-1]["objective"]
    assert (tmp_path / "run" / "model.pt").is_file() and (tmp_path / "run" / "README.md").is_file()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_fitted_network_starts_the_solve_and_reaches_tiny_optima(seed):
    solver = _fit(time_limit=5, rounds=1, latent_steps=20).fit(TRAIN, progress=False)
    problem = random_tsp(9, seed=100 + seed)
    result = solver.solve(problem)
    assert result.stats["start"] == "network"
    assert sorted(result.solution.tolist()) == list(range(9))
    assert result.objective == pytest.approx(problem.tour_length(result.solution))
    assert result.objective == pytest.approx(brute_force_tsp(problem))


def test_a_saved_network_loads_with_the_same_logits_and_starts_the_solve(tmp_path):
    solver = _fit().fit(TRAIN, progress=False)
    solver.save(tmp_path / "net")
    policy, config, _ = load_tour_net(tmp_path / "net")
    graph = CandidateGraph.of(random_tsp(30, seed=7), config.neighbors)
    assert torch.equal(network_logits(policy, graph), network_logits(solver.method_.tour_net_[0], graph))
    loaded = Solver("gumbel-sinkhorn", checkpoint=str(tmp_path / "net"), neighbors=6, time_limit=5, rounds=1)
    result = loaded.solve(random_tsp(30, seed=7))
    assert result.stats["start"] == "network" and sorted(result.solution.tolist()) == list(range(30))


def test_mismatched_settings_and_checkpoints_are_refused(tmp_path):
    _fit().fit(TRAIN, progress=False).save(tmp_path / "net")
    with pytest.raises(UsageError, match="trained with neighbors=6"):
        Solver("gumbel-sinkhorn", checkpoint=str(tmp_path / "net"), neighbors=8, time_limit=1).solve(random_tsp(20, seed=0))
    with pytest.raises(UsageError, match="without labels"):
        _fit(objective="supervised").fit(TRAIN, progress=False)
    Solver("gumbel-sinkhorn", steps=1).fit(_sequences(), progress=False).save(tmp_path / "sorting")
    with pytest.raises(InputError, match="not a Gumbel-Sinkhorn TSP checkpoint"):
        Solver("gumbel-sinkhorn", checkpoint=str(tmp_path / "sorting"), time_limit=1).solve(random_tsp(10, seed=0))


def _sequences():
    from cosolve.methods.sinkhorn.sorting import random_sequences

    return random_sequences(4, 3)
