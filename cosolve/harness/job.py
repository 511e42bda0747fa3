"""Run one job in a child process with the budget enforced from outside (what Dask executes)."""

from __future__ import annotations

import contextlib
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
#: Seconds between two looks at a job's resident memory when it has a memory limit.
MEMORY_POLL = 0.05


def resident_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` and its descendants (bytes; 0 once it has gone)."""
    import psutil

    try:
        proc = psutil.Process(pid)
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in family:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def _kill_family(proc: subprocess.Popen) -> None:
    import psutil

    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        children = []
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.kill()
    proc.kill()
    proc.wait()


def kill_after(budget: float) -> float:
    """Seconds after the instance is read at which a job is killed as an overrun."""
    return budget * KILL_FACTOR + KILL_SLACK


def run_job(spec: dict[str, Any]) -> dict[str, Any]:
    """Run ``spec`` (the job as a dict: path, problem, method, options, budget, seed, threads,
    key, and optionally memory_limit in GiB) in ``python -m cosolve.harness.worker`` and return
    what happened.

    ``status`` is ``done`` (a result came back), ``killed`` (it overran the budget by more than
    5% + 1 s and was killed; its result is lost), or ``failed`` (an error, with ``error``; a job
    whose resident memory, children included, went above ``memory_limit`` is killed and fails
    with the limit and the memory it had reached).
    """
    payload = {k: spec[k] for k in ("path", "problem", "method", "options", "budget", "seed", "threads")}
    out: dict[str, Any] = {"key": spec["key"], "host": socket.gethostname(), "started_at": time.time()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosolve.harness.worker", json.dumps(payload)],
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
    memory_limit = spec.get("memory_limit")
    cap = None if memory_limit is None else int(memory_limit * 2**30)
    while True:
        try:
            wait = max(0.0, deadline - time.monotonic())
            line = lines.get(timeout=wait if cap is None else min(wait, MEMORY_POLL))
        except queue.Empty:
            if cap is not None and time.monotonic() < deadline:
                used = resident_bytes(proc.pid)
                if used > cap:
                    _kill_family(proc)
                    error = f"exceeded its memory limit of {memory_limit:g} GiB (resident {used / 2**30:.2f} GiB); killed"
                    out.update(status="failed", error=error, wall=time.monotonic() - ready_at if ready_at else None)
                    break
                continue
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
