"""The set cover LNS methods end to end: optimal on tiny instances (brute force), deadline
honoured, statistics reported, clear errors; and the GLNS policy's training and checkpoints."""

import itertools
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import cosolve
from cosolve import Solver
from cosolve.errors import InputError, UsageError
from cosolve.problems import MIP, SetCover

ROOT = Path(__file__).resolve().parents[3]
GRADIENT = {"policy": "gradient"}


def tiny_cover(seed, m=9, n=12):
    rng = np.random.default_rng(seed)
    a = (rng.random((m, n)) < 0.25).astype(np.int8)
    a[np.arange(m), rng.integers(0, n, m)] = 1
    return SetCover(rng.integers(1, 9, n).astype(float), sp.csr_array(a), name=f"tiny{seed}")


def brute_force(p):
    subsets = np.array(list(itertools.product([0, 1], repeat=p.n_cols)), dtype=np.int32)
    feasible = ((p.matrix @ subsets.T) > 0).all(axis=0)
    return float((subsets[feasible] @ p.costs).min())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method,options", [("lns-random", {}), ("glns", GRADIENT), ("glns", {})])
def test_tiny_instances_are_solved_to_proven_optimality(seed, method, options):
    p = tiny_cover(seed)
    r = Solver(method, time_limit=20, **options).solve(p)
    assert r.status == "optimal" and r.termination == "completed"
    assert r.objective == brute_force(p) == r.bound
    assert p.evaluate(r.solution).feasible


@pytest.mark.parametrize("method,options", [("lns-random", {}), ("glns", GRADIENT), ("glns", {"sub_solver": "cpsat"})])
def test_deadline_is_honoured_and_statistics_are_reported(method, options):
    p = cosolve.read(ROOT / "instances/setcover/scpd1.txt")
    solver = Solver(method, time_limit=1.5, **options)
    solver.prepare(p)
    start = time.perf_counter()
    r = solver.solve(p)
    assert time.perf_counter() - start < 1.5 + 0.5
    assert r.status in ("feasible", "optimal") and p.evaluate(r.solution).feasible
    assert r.bound is not None and r.bound <= 60 <= r.objective  # scpd1's optimum is 60
    s = r.stats
    assert s["iterations"] >= 1 and 0 <= s["improved"] <= s["iterations"]
    assert s["improved_share"] == pytest.approx(s["improved"] / s["iterations"])
    assert r.objective <= s["start_objective"]
    # the trace never gets worse, and a later point never loses the bound
    objectives = [pt.objective for pt in r.trace if pt.objective is not None]
    assert objectives == sorted(objectives, reverse=True)


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


def test_short_training_lowers_the_validation_energy_and_round_trips(tmp_path):
    import torch

    from cosolve.methods.glns.train import CoverBatch, GLNSConfig, Prepared, load_checkpoint, train, training_instance, validate

    torch.set_num_threads(1)
    config = GLNSConfig(validation_instances=3, validate_every=1e9)
    before = validate(config.policy(), CoverBatch.of([Prepared.of(training_instance(500000 + i)) for i in range(3)], 1.5), config)
    policy, progress = train(config, time_limit=60, max_iterations=60, out=tmp_path, seed=0)
    assert progress.history[-1]["energy"] < before.energy
    loaded, loaded_config, meta = load_checkpoint(tmp_path)
    assert loaded_config == config and meta["iterations"] in (0, 60)
    for a, b in zip(policy.state_dict().values(), loaded.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert "GLNS checkpoint" in (tmp_path / "README.md").read_text()
    r = Solver("glns", time_limit=2, checkpoint=str(tmp_path)).solve(tiny_cover(1))
    assert r.status == "optimal"


def test_training_instances_are_valid_and_reproducible():
    from cosolve.methods.glns.train import training_instance

    a, b = training_instance(3), training_instance(3)
    assert (a.matrix != b.matrix).nnz == 0 and np.array_equal(a.costs, b.costs)
    assert 50 <= a.n_rows <= 200 and a.n_cols >= 5 * a.n_rows
