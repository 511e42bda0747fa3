"""DistributedDataParallel with 2 gloo processes gives the single-process gradient of the full batch."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.training.ddp_case import case_gradients

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_agree_with_one(tmp_path):
    out = tmp_path / "grads.npy"
    init = f"tcp://127.0.0.1:{_free_port()}"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    procs = [
        subprocess.Popen([sys.executable, "-m", "tests.training.ddp_worker", str(rank), "2", init, str(out)], cwd=ROOT, env=env)
        for rank in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    np.testing.assert_allclose(np.load(out), case_gradients(halves=[0, 1], ddp=False), rtol=1e-5, atol=1e-7)
