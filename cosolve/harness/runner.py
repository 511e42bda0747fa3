"""Run a suite on a Dask cluster and store every job as it finishes."""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cosolve.errors import UsageError
from cosolve.harness.job import run_job
from cosolve.harness.store import Store
from cosolve.harness.suite import Job, Suite, resolve_instances


def machine_info() -> dict[str, Any]:
    """CPU model, logical cores, memory and platform of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import psutil

        memory = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:  # pragma: no cover
        memory = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory,
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


#: How long a run waits to connect to the Dask scheduler named by ``--scheduler`` before it gives up.
SCHEDULER_TIMEOUT = "10s"
VERSIONED = ("cosolve", "numpy", "scipy", "numba", "ortools", "pyscipopt", "highspy", "networkx", "dask", "distributed", "torch")


def package_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in (
        "cosolve",
        "numpy",
        "scipy",
        "numba",
        "ortools",
        "pyscipopt",
        "highspy",
        "networkx",
        "dask",
        "distributed",
        "torch",
    ):
        with contextlib.suppress(PackageNotFoundError):
            out[name] = version(name)
    return out


def git_commit() -> str | None:
    """The commit of the cosolve checkout, with ``+dirty`` when the package's own files (not
    recorded results or suites) have uncommitted changes; None outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        if commit.returncode != 0:
            return None
        package = ["git", "status", "--porcelain", "--untracked-files=no", "--", str(here.parent)]
        dirty = subprocess.run(package, cwd=here, capture_output=True, text=True, timeout=5)
        return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def _spec(job: Job) -> dict[str, Any]:
    return {
        "key": job.key,
        "path": job.instance.path,
        "problem": job.instance.problem,
        "method": job.method.name,
        "options": job.method.options,
        "budget": job.budget,
        "seed": job.seed,
        "threads": job.threads,
        "memory_limit": job.memory_limit,
    }


def check_suite(suite: Suite, jobs: list[Job]) -> None:
    """Fail before running anything on an unknown method or option, a file an option names that
    does not exist, or a method/problem mismatch; each error names the suite file and the
    ``[[methods]]`` entry."""
    from cosolve.method_catalog import get_method, methods
    from cosolve.solver import Solver, missing_paths

    where = {id(method): f"{suite.path}: [[methods]] #{k + 1} ({method.label})" for k, method in enumerate(suite.methods)}
    for method in suite.methods:
        missing = missing_paths(get_method(method.name), method.options) if method.name in methods() else []
        for key, value in missing:  # before validate(), whose error names no suite entry
            beside = (suite.path.parent / value).exists()
            hint = (
                f"; it exists relative to the suite file, but option paths are relative to the current directory: "
                f"run from {suite.path.parent} or give {str((suite.path.parent / value).resolve())!r}"
                if beside
                else " (relative to the current directory)"
            )
            raise UsageError(f"{where[id(method)]}: option {key}: no such file or folder {value!r}{hint}")
        try:
            Solver(method.name, **method.options).validate()
        except UsageError as e:
            raise UsageError(f"{where[id(method)]}: {e}") from None
    for job in jobs:
        if job.instance.problem is not None:
            try:
                Solver(job.method.name, problem=job.instance.problem, **job.method.options).validate()
            except UsageError as e:
                raise UsageError(f"{where[id(job.method)]} on {job.instance.name}: {e}") from None


def run_suite(
    suite: Suite,
    out: Path,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
    oversubscribe: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every job of ``suite`` not yet in ``out``'s store; returns counts and wall time.

    Everything is checked (cores, methods, options, instance files) before anything runs or the
    store is touched."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder; name a folder for the results")
    cores = os.cpu_count() or 1
    if scheduler is None and workers * suite.threads > cores and not oversubscribe:
        raise UsageError(
            f"{workers} workers x {suite.threads} threads exceed this machine's {cores} cores; timings would not be "
            "comparable (lower --workers, or pass --oversubscribe)"
        )
    instances = resolve_instances(suite, out)
    jobs = suite.jobs(instances)
    check_suite(suite, jobs)
    store = Store(out)
    try:
        if store.count() and not resume:
            raise UsageError(
                f"{out} already holds {store.count()} job results; pass --resume to continue them, or choose another --out"
            )
        store.set_references(instances)
        done = store.done_keys()
        todo = [job for job in jobs if job.key not in done]
        run_id = store.start_run(
            suite=suite.name,
            suite_path=str(suite.path),
            command="cosolve " + shlex.join(sys.argv[1:]),
            machine=machine_info(),
            versions=package_versions(),
            git_commit=git_commit(),
            workers=workers if scheduler is None else None,
            scheduler=scheduler,
        )
        start = time.perf_counter()
        counts = _execute(store, run_id, todo, workers, scheduler, progress, skipped=len(jobs) - len(todo))
        store.finish_run(run_id)
        counts.update(total=len(jobs), skipped=len(jobs) - len(todo), wall=time.perf_counter() - start)
        return counts
    finally:
        store.close()


def _execute(
    store: Store, run_id: int, todo: list[Job], workers: int, scheduler: str | None, progress: bool, skipped: int
) -> dict[str, Any]:
    from distributed import Client, LocalCluster, as_completed

    counts = {"done": 0, "killed": 0, "failed": 0}
    if not todo:
        return counts
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            cluster, client = None, Client(scheduler, timeout=SCHEDULER_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as e:
            raise UsageError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({type(e).__name__}: {e})") from None
    try:
        slots = max(1, sum(client.nthreads().values()))
        futures = {client.submit(run_job, _spec(job), pure=False): job for job in todo}
        with _Progress(len(todo) + skipped, skipped, slots, [j.budget for j in todo], enabled=progress) as bar:
            for future in as_completed(futures):
                job = futures[future]
                try:
                    outcome = future.result()
                except Exception as e:  # a worker-side failure outside the job's own process
                    outcome = {"key": job.key, "status": "failed", "error": f"{type(e).__name__}: {e}"}
                store.record(run_id, job, outcome)
                counts[outcome["status"]] += 1
                bar.advance(outcome["status"], job.budget)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return counts


class _Progress:
    """A live bar: jobs done / running / failed and an estimate of the time left (from budgets)."""

    def __init__(self, total: int, skipped: int, slots: int, budgets: list[float], *, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.total, self.finished, self.failed, self.slots = total, skipped, 0, slots
        self.pending = list(budgets)
        self.left = sum(budgets) + 1.5 * len(budgets)  # budget plus start-up per job
        self.text = not self.enabled and enabled

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("[bold]bench"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[state]}"),
                TimeElapsedColumn(),
                transient=False,
            )
            self.progress.start()
            self.task = self.progress.add_task("jobs", total=self.total, completed=self.finished, state=self._state())
        return self

    def _state(self) -> str:
        running = min(self.slots, self.total - self.finished)
        eta = self.left / self.slots
        return f"running {running}  failed/killed {self.failed}  ~{eta:.0f} s left"

    def advance(self, status: str, budget: float) -> None:
        self.finished += 1
        self.failed += status != "done"
        self.left = max(0.0, self.left - budget - 1.5)
        if self.enabled:
            self.progress.update(self.task, completed=self.finished, state=self._state())
        elif self.text:
            print(f"bench: {self.finished}/{self.total} jobs, {self._state()}", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.progress.stop()
