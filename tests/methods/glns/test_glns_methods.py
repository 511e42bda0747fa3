"""The set cover LNS methods end to end: optimal on tiny instances (brute force), deadline
honoured, statistics reported, clear errors; and the GLNS policy's training and checkpoints."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import torch

import cosolve
from cosolve import Solver
from cosolve.errors import InputError, UsageError
from cosolve.problems import MIP, SetCover
from tests.oracles import brute_force_setcover

ROOT = Path(__file__).resolve().parents[3]
GRADIENT = {"policy": "gradient"}


def tiny_cover(seed, m=9, n=12):
    rng = np.random.default_rng(seed)
    a = (rng.random((m, n)) < 0.25).astype(np.int8)
    a[np.arange(m), rng.integers(0, n, m)] = 1
    return SetCover(rng.integers(1, 9, n).astype(float), sp.csr_array(a), name=f"tiny{seed}")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "method,options",
    [
        ("lns-random", {}),
        ("lns-random", {"refine_fresh": True}),
        ("lns-random", {"neighbourhood": "expensive"}),
        ("glns", GRADIENT),
        ("glns", {}),
        ("glns", {"neighbourhood": "disagreement"}),
        ("glns", {"region_seed": "expensive"}),
    ],
)
def test_tiny_instances_are_solved_to_proven_optimality(seed, method, options):
    p = tiny_cover(seed)
    r = Solver(method, time_limit=20, **options).solve(p)
    assert r.status == "optimal" and r.termination == "completed"
    assert r.objective == brute_force_setcover(p) == r.bound
    assert p.evaluate(r.solution).feasible


@pytest.mark.parametrize("method,options", [("lns-random", {}), ("glns", GRADIENT), ("glns", {"sub_solver": "cpsat"})])
def test_deadline_is_honoured_and_statistics_are_reported(method, options):
    p = cosolve.read(ROOT / "instances/setcover/scpd1.txt")
    solver = Solver(method, time_limit=1, **options)  # the first repair comes within 0.4 s
    solver.prepare(p)
    r = solver.solve(p)
    assert r.termination == "time_limit"  # scpd1's optimum is not proven within 1 s
    assert r.status in ("feasible", "optimal") and p.evaluate(r.solution).feasible
    assert r.bound is not None and r.bound <= 60 <= r.objective  # scpd1's optimum is 60
    s = r.stats
    assert s["iterations"] >= 1 and 0 <= s["improved"] <= s["iterations"]
    assert s["improved_share"] == pytest.approx(s["improved"] / s["iterations"])
    assert r.objective <= s["start_objective"]
    # the trace never gets worse, and once a bound is proven a later point never loses or lowers it
    objectives = [pt.objective for pt in r.trace if pt.objective is not None]
    assert objectives == sorted(objectives, reverse=True)
    first = next(k for k, pt in enumerate(r.trace) if pt.bound is not None)
    bounds = [pt.bound for pt in r.trace[first:]]
    assert None not in bounds and bounds == sorted(bounds)


def test_a_mip_that_is_not_a_set_cover_gets_an_error_naming_the_methods_for_it():
    mip = MIP(
        c=np.array([1.0, 2.0]), matrix=sp.csr_array(np.array([[1.0, 1.0]])), row_lower=np.array([1.0]),
        row_upper=np.array([np.inf]), lower=np.zeros(2), upper=np.array([3.0, 3.0]), integrality=np.array([True, True]),
    )  # fmt: skip
    for method in ("glns", "lns-random"):
        with pytest.raises(UsageError, match=r"does not solve mip problems \(it solves: setcover\); methods for mip: .*scip"):
            Solver(method, time_limit=1).solve(mip)


def test_bad_checkpoint_is_a_clear_error(tmp_path):
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a readable GLNS checkpoint"):
        Solver("glns", time_limit=1, checkpoint=str(bad)).solve(tiny_cover(0))
    with pytest.raises(InputError, match="no such file"):
        Solver("glns", time_limit=1, checkpoint=str(tmp_path / "missing.pt")).solve(tiny_cover(0))


def test_fit_lowers_the_validation_energy_and_round_trips(tmp_path):
    from cosolve.generators.distributions import get_distribution
    from cosolve.methods.glns.glns_task import load_checkpoint

    solver = Solver("glns", train_time=300, iterations=20, validation_instances=3, validate_every=1e9, seed=0)
    solver.fit(get_distribution("balas-ho"), out=tmp_path, progress=False)
    history = solver.method_.training_.history
    assert [h["iteration"] for h in history] == [0, 20]  # 20 iterations: 514 -> 442 (seeded)
    assert history[-1]["energy"] < history[0]["energy"]  # the untrained policy is validated at iteration 0
    loaded, loaded_config, meta = load_checkpoint(tmp_path)
    assert loaded_config == solver.method_.model_.config and meta["iterations"] == solver.method_.training_.best_iteration
    for a, b in zip(solver.method_.model_.policy.state_dict().values(), loaded.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert "GLNS checkpoint" in (tmp_path / "README.md").read_text()
    r = Solver("glns", time_limit=2, checkpoint=str(tmp_path)).solve(tiny_cover(1))
    assert r.status == "optimal"


def test_stalled_repairs_hand_the_budget_back_to_the_refinement():
    from cosolve.generators.distributions import sample_setcover

    p = sample_setcover("balas-ho", 0)
    r = Solver("lns-random", time_limit=1, refine_patience=1, seed=0).solve(p)
    assert r.stats["refine_restarts"] >= 1 and r.stats["iterations"] >= r.stats["refine_restarts"]
    assert np.all(p.matrix @ r.solution >= 1) and r.objective == p.costs @ r.solution
    assert r.objective <= r.stats["refined_objective"]
    never = Solver("lns-random", time_limit=1, refine_patience=0, refine_balance=0, repair_probation=0, seed=0).solve(p)
    assert never.stats["refine_restarts"] == 0


def test_repairs_that_never_improve_lose_the_budget_to_the_refinement_after_their_probation():
    from cosolve.generators.distributions import sample_setcover

    p = sample_setcover("balas-ho", 0)
    # 10 ms sub-MIPs find nothing; neither the failed-repair count nor the balance restarts a refinement
    quiet = {"time_limit": 1, "sub_time": 0.01, "refine_patience": 0, "refine_balance": 0, "seed": 0}
    r = Solver("lns-random", repair_probation=0.05, **quiet).solve(p)
    assert r.options["probation_since"] == "gain"  # the default: r is also the probation counted from the last gain
    assert r.stats["improved"] == 0 and 0 < r.stats["probation_failed_at"] <= 1.0
    assert r.stats["refine_restarts"] >= 1 and r.objective <= r.stats["refined_objective"]
    assert np.all(p.matrix @ r.solution >= 1) and r.objective == p.costs @ r.solution
    assert r.stats["rwls_time"] > 0  # the rest went to the row-weighting local search (the default)
    cft = Solver("lns-random", repair_probation=0.05, local_search="refine", **quiet).solve(p)
    assert cft.stats["rwls_time"] == 0 and cft.stats["refine_restarts"] >= 1
    assert cft.stats["refine_rounds"] > r.stats["refine_rounds"]  # the rest went to CFT's refinement
    # 2 s: a restart needs the local search to go a whole second without a cheaper cover first
    restarts = Solver("lns-random", repair_probation=0.05, rest_restarts=True, **{**quiet, "time_limit": 2}).solve(p)
    assert restarts.stats["rest_restarts"] >= 1  # the local search stalled and a fresh refinement restarted it
    assert np.all(p.matrix @ restarts.solution >= 1) and restarts.objective <= restarts.stats["refined_objective"]
    off = Solver("lns-random", repair_probation=0, **quiet).solve(p)  # no probation
    assert off.stats["refine_restarts"] == 0 and np.isnan(off.stats["probation_failed_at"])


def test_repairs_that_fail_for_as_long_as_the_refinement_took_hand_the_budget_back():
    from cosolve.generators.distributions import sample_setcover

    p = sample_setcover("balas-ho", 0)
    r = Solver("lns-random", time_limit=1, refine_patience=0, refine_balance=1, seed=0).solve(p)
    assert r.stats["refine_restarts"] >= 1  # the failed-repair count alone (patience 0) never restarts
    assert np.all(p.matrix @ r.solution >= 1) and r.objective <= r.stats["refined_objective"]


def test_the_balance_halves_after_repairs_that_found_nothing_and_doubles_after_one_that_did():
    from cosolve.methods.glns.lns import adapted_balance

    assert adapted_balance(1.0, 1.0, repairs_paid=False) == 0.5
    assert adapted_balance(0.125, 1.0, repairs_paid=False) == 0.125  # at least 1/8 of the initial
    assert adapted_balance(0.5, 1.0, repairs_paid=True) == 1.0
    assert adapted_balance(4.0, 1.0, repairs_paid=True) == 4.0  # at most 4 times
    from cosolve.generators.distributions import sample_setcover

    p = sample_setcover("balas-ho", 0)
    # without the repairs' probation, whose failure hands the rest to one refinement
    fixed = Solver("lns-random", time_limit=1, refine_patience=0, refine_balance=1, repair_probation=0, seed=0).solve(p)
    assert fixed.stats["refine_restarts"] >= 1 and fixed.stats["refine_balance"] == 1.0
    adapted = Solver(
        "lns-random", time_limit=1, refine_patience=0, refine_balance=1, refine_adapt=True, repair_probation=0, seed=0
    ).solve(p)
    restarts, balance = adapted.stats["refine_restarts"], adapted.stats["refine_balance"]
    assert np.all(p.matrix @ adapted.solution >= 1)
    assert restarts >= 1 and 0.125 <= balance <= 4.0
    assert balance != 1.0 or restarts >= 2  # one restart moves it; a second may move it back


def test_numpy_policy_equals_the_torch_forward_of_the_shipped_checkpoint():
    from cosolve.diffusion.energies import CoverEnergy
    from cosolve.methods.glns.cover_policy import CoverTensors, cover_logits
    from cosolve.methods.glns.cover_policy_numpy import CoverGraph
    from cosolve.methods.glns.glns_checkpoint import load_numpy_checkpoint
    from cosolve.methods.glns.glns_task import load_checkpoint
    from cosolve.methods.glns.lns_methods import GLNS_CHECKPOINT
    from cosolve.training.checkpoint import shipped_folder

    folder = shipped_folder() / GLNS_CHECKPOINT
    torch_policy, config, meta = load_checkpoint(folder)  # model.pt, through torch
    numpy_policy, numpy_config, numpy_meta = load_numpy_checkpoint(folder)  # model.npz, no torch
    assert numpy_config == config and numpy_meta.keys() == meta.keys()
    rng = np.random.default_rng(0)
    p = tiny_cover(5, m=30, n=50)
    costs = p.costs / p.costs.max()
    reduced = costs - rng.uniform(0, 0.5, p.n_cols)
    incumbent = rng.integers(0, 2, p.n_cols)
    energy = CoverEnergy(p.matrix, costs, penalty=config.penalty)
    x = rng.integers(0, 2, (4, p.n_cols)).astype(np.int8)
    tensors = CoverTensors.build(p.matrix, costs, reduced, incumbent)
    graph = CoverGraph.build(p.matrix, costs, reduced, incumbent)
    for t in (1.0, 0.37, 1 / 16):
        with torch.no_grad():
            expected = cover_logits(torch_policy, energy, tensors, x, t).numpy()
        got = numpy_policy(x.T, energy.flip_gain(x).T, graph.state_cover(x), t, graph)
        assert got.shape == expected.shape == (p.n_cols, 4)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * max(float(np.abs(expected).max()), 1.0))


def test_solving_with_the_shipped_model_imports_no_torch():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from cosolve import Solver\n"
        "from cosolve.generators.distributions import sample_setcover\n"
        "r = Solver('glns', time_limit=0.5, refine_share=0).solve(sample_setcover('balas-ho', 0))\n"
        "assert r.objective > 0 and r.stats['iterations'] > 0\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_after_a_repair_whose_model_could_not_be_built_in_time_the_neighbourhoods_stay_below_half_of_what_was_built(
    monkeypatch,
):
    import cosolve.methods.glns.lns as lns
    from cosolve.methods.glns.repair import Repair
    from tests.heuristics.setcover.setcover_cases import random_cover

    real = lns.repair
    sizes, caps = [], []

    def slow_to_build(sub, costs, **kwargs):  # stands for a model too large to build in its slice
        sizes.append(sub.size)
        if sub.size > 300 and not caps:
            caps.append((len(sizes), sub.size * 0.2 / 2))
            return Repair(sub.start.copy(), float(costs[sub.free] @ sub.start), False, 0.2)
        return real(sub, costs, **kwargs)

    monkeypatch.setattr(lns, "repair", slow_to_build)
    p = random_cover(np.random.default_rng(0), 200, 2000, 0.02)
    options = dict(refine_share=0, refine_patience=0, refine_balance=0, repair_probation=0, size=160)
    r = Solver("lns-random", time_limit=1, seed=0, **options).solve(p)  # hundreds of repairs after the abandoned one
    assert caps and r.stats["abandoned"] == 1 and p.evaluate(r.solution).feasible
    abandoned_at, cap = caps[0]
    later = sizes[abandoned_at:]
    # the free set may pass its budget by the last row's 40 candidates and the incumbent's columns on it
    assert len(later) > 10 and max(later) <= cap + 40 + np.diff(p.matrix.indptr).max()
