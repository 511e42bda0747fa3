"""Run one job in a child process with the budget enforced from outside (what Dask executes)."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time
from typing import Any

#: A job may use its budget plus this much before it is killed: 5% + 1 s.
KILL_FACTOR, KILL_SLACK = 1.05, 1.0
#: Seconds allowed for starting Python and reading the instance (not part of the budget).
READ_LIMIT = 600.0
#: Seconds a process may take to exit after it has sent its result (interpreter and library
#: teardown, e.g. torch's); the result counts either way.
EXIT_GRACE = 30.0


def kill_after(budget: float) -> float:
    """Seconds after the instance is read at which a job is killed as an overrun."""
    return budget * KILL_FACTOR + KILL_SLACK


def run_job(spec: dict[str, Any]) -> dict[str, Any]:
    """Run ``spec`` (the job as a dict: path, problem, method, options, budget, seed, threads,
    key) in ``python -m cosolve.bench.worker`` and return what happened.

    ``status`` is ``done`` (a result came back), ``killed`` (it overran the budget by more than
    5% + 1 s and was killed; its result is lost), or ``failed`` (an error, with ``error``).
    """
    payload = {k: spec[k] for k in ("path", "problem", "method", "options", "budget", "seed", "threads")}
    out: dict[str, Any] = {"key": spec["key"], "host": socket.gethostname(), "started_at": time.time()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosolve.bench.worker", json.dumps(payload)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    errors: list[str] = []

    def drain() -> None:  # keep the child from blocking on a full stderr pipe
        for line in proc.stderr:  # type: ignore[union-attr]
            errors.append(line)
            del errors[:-20]

    threading.Thread(target=pump, daemon=True).start()
    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    events: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + READ_LIMIT
    ready_at = result_at = None
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            proc.wait()
            if result_at is not None:  # the result came in time; only the exit was slow
                break
            what = "overran its budget" if ready_at is not None else f"did not read its instance within {READ_LIMIT:g} s"
            limit = f" (killed {kill_after(spec['budget']):.2f} s after the instance was read)" if ready_at else ""
            out.update(status="killed", error=f"{what}{limit}", wall=time.monotonic() - (ready_at or deadline))
            break
        if line is None:
            break
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a method printed to stdout: not ours
        events[event.get("event", "")] = event
        if event.get("event") == "ready":
            ready_at = time.monotonic()
            deadline = ready_at + kill_after(spec["budget"])
        elif event.get("event") == "result":
            result_at = time.monotonic()
            deadline = result_at + EXIT_GRACE
    if "status" not in out:
        proc.wait()
        drainer.join(5.0)
        stderr = "".join(errors).strip()
        if "result" in events:
            out.update(status="done", result=events["result"])
        else:
            message = events.get("error", {}).get("message") or (stderr.splitlines() or [f"exit code {proc.returncode}"])[-1]
            out.update(status="failed", error=message)
        out["wall"] = (result_at or time.monotonic()) - ready_at if ready_at else None
    out["read_time"] = events.get("ready", {}).get("read_time")
    out["setup_time"] = events.get("ready", {}).get("setup_time")
    out["finished_at"] = time.time()
    return out
