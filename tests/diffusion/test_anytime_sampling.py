"""The cam and rlsa methods: feasible answers, optimal on tiny graphs, deadlines, checkpoints."""

import time

import pytest
import torch

from cosolve import Solver
from cosolve.core.result import Status, Termination
from cosolve.errors import InputError, UsageError
from cosolve.generators.distributions import sample_graph
from cosolve.generators.graphs import erdos_renyi
from cosolve.methods.cam.cam_task import CAMConfig, CAMTask
from cosolve.training.loop import save_model
from tests.oracles import brute_force_binary

KINDS = ["mis", "maxclique", "maxcut", "mds"]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """An untrained tiny checkpoint per problem kind (weights fixed by the seed)."""
    folder = tmp_path_factory.mktemp("ckpt")
    out = {}
    for kind in KINDS:
        config = CAMConfig(problem=kind, hidden=8, layers=2, time_features=4, steps=6)
        torch.manual_seed(0)
        save_model(folder / kind, CAMTask(config), config.policy(), {"command": "test"})
        out[kind] = str(folder / kind)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_rlsa_finds_the_optimum_of_tiny_graphs(kind, seed):
    problem = erdos_renyi(10, 0.35, problem=kind, seed=seed, weighted=kind == "maxcut")
    result = Solver("rlsa", time_limit=30, seed=seed, rounds=3).solve(problem)
    assert result.status is Status.FEASIBLE and result.termination is Termination.COMPLETED
    assert problem.evaluate(result.solution).feasible
    assert result.objective == brute_force_binary(problem)


@pytest.mark.parametrize("kind", KINDS)
def test_cam_returns_feasible_solutions_and_best_of_rounds(kind, checkpoints, monkeypatch):
    import cosolve.diffusion.inference as inference

    problem = erdos_renyi(10, 0.35, problem=kind, seed=2, weighted=kind == "maxcut")
    solver = Solver("cam", time_limit=30, rounds=4, chains=8, polish=0, checkpoint=checkpoints[kind])
    solver.prepare(problem)  # the warm-up decodes too: not recorded
    decode_best, rounds = inference.decode_best, []

    def recording(batch, marginals, states=None):
        found = decode_best(batch, marginals, states)
        if len(marginals) == 8:  # a round of 8 chains (not the one-chain timing probe)
            rounds.append(found[0][1])
        return found

    monkeypatch.setattr(inference, "decode_best", recording)
    result = solver.solve(problem)
    assert problem.evaluate(result.solution).feasible
    assert result.termination is Termination.COMPLETED and result.setup_time > 0
    assert result.stats == {"chains": 8, "steps_per_round": 6, "rounds": 4, "steps": 24}
    assert len(rounds) == 4 and result.objective == (max(rounds) if problem.sense.value == "maximize" else min(rounds))


@pytest.mark.parametrize("method", ["cam", "rlsa"])
def test_time_limit_is_honoured_with_a_solution(method, checkpoints):
    problem = sample_graph("rb-small", 3, "mis")
    options = {"checkpoint": checkpoints["mis"], "steps": 10_000} if method == "cam" else {"steps": 100_000}
    solver = Solver(method, time_limit=0.5, **options)
    solver.prepare(problem)
    result = solver.solve(problem)
    assert result.stats["rounds"] == 1 and 0 < result.stats["steps"] < result.options["steps"]  # the deadline cut the round
    assert result.termination is Termination.TIME_LIMIT and problem.evaluate(result.solution).feasible


@pytest.mark.parametrize("budget", [0.05, 0.3])
def test_slow_steps_end_before_the_deadline(budget, monkeypatch):
    """Steps of at least 4 ms per chain (64 ms for the 16 chains): the sampler must not start one
    that would end after the deadline (so at most budget / 64 ms of them are taken), and still
    answers when not even the first fits. (How far past the deadline a solve ends is measured in
    bench/scripts/overshoot.py, not here.)"""
    import cosolve.diffusion.sampler as sampler

    problem = sample_graph("rb-small", 4, "mis")
    solver = Solver("rlsa", time_limit=budget, steps=1000, chains=16)
    solver.prepare(problem)
    fast_rule = sampler.rlsa_rule

    def slow_rule(*args, **kwargs):
        rule = fast_rule(*args, **kwargs)

        def step(x, t, s):
            time.sleep(0.004 * x.shape[0])
            return rule(x, t, s)

        return step

    monkeypatch.setattr(sampler, "rlsa_rule", slow_rule)
    result = solver.solve(problem)
    assert result.stats["rounds"] == 1 and result.stats["steps"] <= budget / 0.064
    assert (result.stats["steps"] > 0) == (budget > 0.1)
    assert result.termination is Termination.TIME_LIMIT and problem.evaluate(result.solution).feasible


def test_cam_checkpoint_must_match_the_problem(checkpoints):
    problem = erdos_renyi(8, 0.4, problem="mis", seed=0)
    with pytest.raises(UsageError, match="a cam model for maxcut, not for mis"):
        Solver("cam", checkpoint=checkpoints["maxcut"]).solve(problem)
    with pytest.raises(UsageError, match="a mis problem, not maxcut"):
        Solver("cam", problem="maxcut").solve(problem)
    with pytest.raises(InputError, match="no such file"):
        Solver("cam", checkpoint="/nonexistent/model.pt").solve(problem)


def test_a_checkpoint_folder_without_a_model_says_so(tmp_path):
    problem = erdos_renyi(8, 0.4, problem="mis", seed=0)
    with pytest.raises(InputError, match=r"a folder without model\.pt"):
        Solver("cam", checkpoint=str(tmp_path)).solve(problem)


@pytest.mark.parametrize("kind", ["mis", "maxcut"])
def test_the_shipped_checkpoint_loads_by_default(kind):
    problem = erdos_renyi(12, 0.3, problem=kind, seed=0)
    solver = Solver("cam", problem=kind, time_limit=30, rounds=1)
    result = solver.solve(problem)
    assert problem.evaluate(result.solution).feasible
    shipped = {"mis": "er-700-800", "maxcut": "ba-small", "maxclique": "rb-small", "mds": "ba-small"}
    assert solver.method_.model_.source.parent.name == f"cam-{kind}-{shipped[kind]}"


@pytest.mark.parametrize("kind", KINDS)
def test_polish_method_finds_the_optimum_of_tiny_graphs(kind):
    problem = erdos_renyi(12, 0.35, problem=kind, seed=4, weighted=kind == "maxcut")
    result = Solver("polish", time_limit=None, seed=1).solve(problem)  # 20 iterations per node
    assert result.termination is Termination.COMPLETED and result.stats["polish_iterations"] == 20 * problem.n
    assert problem.evaluate(result.solution).feasible
    assert result.objective == brute_force_binary(problem)


@pytest.mark.parametrize("method", ["rlsa", "cam"])
def test_polish_runs_after_sampling_by_default_and_polish_0_samples_only(method, checkpoints):
    problem = sample_graph("ba-small", 5, "maxcut")
    options = {"checkpoint": checkpoints["maxcut"]} if method == "cam" else {}
    sampled = Solver(method, time_limit=0.3, seed=0, polish=0, **options).solve(problem)  # 3 rounds or more
    polished = Solver(method, time_limit=0.3, seed=0, **options).solve(problem)
    assert "polish_iterations" not in sampled.stats
    assert polished.stats["polish_iterations"] > 0 and polished.stats["rounds"] >= 1
    assert polished.termination is Termination.TIME_LIMIT and problem.evaluate(polished.solution).feasible


@pytest.mark.parametrize("time_limit", [None, 30.0])
def test_polish_after_a_bounded_number_of_rounds_runs_20_iterations_per_node(time_limit):
    problem = erdos_renyi(12, 0.3, problem="mis", seed=3)
    result = Solver("rlsa", time_limit=time_limit, seed=0, rounds=1, steps=4).solve(problem)
    assert result.termination is Termination.COMPLETED and problem.evaluate(result.solution).feasible
    assert result.stats["polish_iterations"] == 20 * problem.n


def test_polish_share_must_leave_time_to_sample():
    with pytest.raises(UsageError, match="polish"):
        Solver("rlsa", polish=1.0).validate()
