"""Reports from a results database alone: tidy CSV, Markdown tables, PNG plots.

``write_reports(folder)`` reads ``folder/results.sqlite`` and (re)writes ``results.csv``,
``report.md``, ``anytime_<set>.png`` and ``profile.png`` in the same folder.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cosolve.core.result import Sense
from cosolve.errors import UsageError
from cosolve.harness.benchmark_metrics import gap_at, performance_profile, primal_gap, primal_integral, shifted_geometric_mean
from cosolve.harness.store import Store

CSV_COLUMNS = [
    "instance_set", "instance", "problem", "label", "method", "options", "budget", "seed", "threads", "status",
    "result_status", "termination", "objective", "bound", "reference", "reference_source", "primal_gap",
    "primal_integral", "time", "wall", "read_time", "setup_time", "solve_compile_time", "host", "error",
]  # fmt: skip


def _better(sense: str | None, a: float, b: float) -> bool:
    """``a`` strictly better than ``b`` for the stored sense (minimise when unknown)."""
    return Sense(sense or Sense.MINIMIZE.value).better(a, b)


#: ``reference_source`` of a reference from the suite's reference file, of one the run found, and
#: of a reference file's value that a job of the run beat (so it was not the best known)
FROM_FILE, FROM_RUN, BEATEN = "reference file", "best found in run", "best found in run, better than the reference file"
#: statuses that end a run with a proof: they count as solved (``proven``, the time to a proof)
PROVEN = ("optimal", "infeasible", "unbounded")
#: ``reference_source`` of an instance some run proved unbounded: no finite optimum, no gap
UNBOUNDED = "none: proven unbounded"


def enrich(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``reference`` (the reference file's value, else the best objective of any job on that
    instance; the best objective too where it is better than the file's, which was then not the
    best known: no gap is negative), ``reference_source``, ``primal_gap`` and ``primal_integral``
    to each job row."""
    senses: dict[tuple[str, str], str] = {}
    best: dict[tuple[str, str], float] = {}
    unbounded = {(r["instance_set"], r["instance"]) for r in rows if r.get("result_status") == "unbounded"}
    for r in rows:
        inst = (r["instance_set"], r["instance"])
        if r["sense"]:
            senses[inst] = r["sense"]
    for r in rows:
        inst = (r["instance_set"], r["instance"])
        if r["objective"] is not None and (inst not in best or _better(senses.get(inst), r["objective"], best[inst])):
            best[inst] = r["objective"]
    out = []
    for r in rows:
        inst = (r["instance_set"], r["instance"])
        r = dict(r)
        if inst in unbounded:  # any objective is beaten by another: no reference, no gap
            r["reference"], r["reference_source"] = None, UNBOUNDED
        elif r["reference"] is not None and inst in best and _better(senses.get(inst), best[inst], r["reference"]):
            r["reference"], r["reference_source"] = best[inst], BEATEN
        elif r["reference"] is not None:
            r["reference_source"] = FROM_FILE
        elif inst in best:
            r["reference"], r["reference_source"] = best[inst], FROM_RUN
        else:
            r["reference_source"] = "none"
        trace = [(t, obj) for t, obj, _ in json.loads(r["trace"] or "[]") if obj is not None]
        objective = r["objective"] if r["status"] == "done" else None
        r["primal_gap"] = primal_gap(objective, r["reference"])
        r["primal_integral"] = primal_integral(trace if r["status"] == "done" else [], r["reference"], r["budget"])
        r["sense"] = senses.get(inst, r["sense"])
        out.append(r)
    return out


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {k: ("" if r.get(k) is None or (isinstance(r.get(k), float) and math.isnan(r[k])) else r[k]) for k in CSV_COLUMNS}
            )


def summary(rows: list[dict[str, Any]]) -> dict[tuple[str, float, str], dict[str, Any]]:
    """Per (instance set, budget, method label): runs, mean primal gap, mean primal integral,
    wins, optimal count, shifted geometric mean time (unsolved count as the budget), failures."""
    groups: dict[tuple[str, float, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["instance_set"], r["budget"], r["label"])].append(r)
    winners: dict[tuple[str, str, float, int], float] = {}
    for r in rows:
        if r["status"] == "done" and r["objective"] is not None:
            k = (r["instance_set"], r["instance"], r["budget"], r["seed"])
            if k not in winners or _better(r["sense"], r["objective"], winners[k]):
                winners[k] = r["objective"]
    out = {}
    for key, group in sorted(groups.items()):
        wins = sum(
            1
            for r in group
            if r["status"] == "done"
            and r["objective"] is not None
            and abs(r["objective"] - winners[(r["instance_set"], r["instance"], r["budget"], r["seed"])])
            <= 1e-9 * max(1.0, abs(r["objective"]))
        )
        times = [r["time"] if r["result_status"] in PROVEN and r["status"] == "done" else r["budget"] for r in group]
        gaps = [r["primal_gap"] for r in group if not math.isnan(r["primal_gap"])]
        integrals = [r["primal_integral"] for r in group if not math.isnan(r["primal_integral"])]
        out[key] = {
            "runs": len(group),
            "gap_runs": len(gaps),
            "mean_primal_gap": float(np.mean(gaps)) if gaps else math.nan,
            "mean_primal_integral": float(np.mean(integrals)) if integrals else math.nan,
            "best": wins,
            "proven": sum(r["result_status"] in PROVEN and r["status"] == "done" for r in group),
            "sgm_time": shifted_geometric_mean(times),
            "killed": sum(r["status"] == "killed" for r in group),
            "failed": sum(r["status"] == "failed" for r in group),
        }
    return out


def _fmt(value: float, spec: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def markdown(rows: list[dict[str, Any]], runs: list[dict[str, Any]]) -> str:
    table = summary(rows)
    suite = runs[-1]["suite"] if runs else "suite"
    lines = [f"# Benchmark: {suite}", ""]
    for run in runs:
        machine = json.loads(run["machine"] or "{}")
        versions = json.loads(run["versions"] or "{}")
        where = f"{run['workers']} local worker(s)" if run["workers"] else f"scheduler {run['scheduler']}"
        lines += [
            f"- Run {run['id']}: `{run['command']}` ({where}), commit `{run['git_commit'] or 'unknown'}`",
            f"  on {machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gib')} GiB, "
            f"Python {machine.get('python')}; {', '.join(f'{k} {v}' for k, v in versions.items())}",
        ]
    sources = defaultdict(set)
    for r in rows:
        sources[r["reference_source"]].add((r["instance_set"], r["instance"]))
    named = {FROM_FILE: "the reference file", "none": "no reference (no solution)"}
    lines += [
        "",
        "References: " + "; ".join(f"{len(v)} instance(s) from {named.get(k, k)}" for k, v in sorted(sources.items())) + ".",
    ]
    if sources.get(FROM_RUN) or sources.get(BEATEN):
        lines.append(
            "Where no best-known value exists, or a job beat the reference file's, the best objective found by any "
            "method in this run is the reference (marked *)."
        )
    if sources.get(BEATEN):
        beaten = ", ".join(f"{s}/{i}" for s, i in sorted(sources[BEATEN]))
        lines.append(f"The reference file's value was beaten on: {beaten} (correct the file).")
    lines.append("")
    sets = sorted({k[0] for k in table})
    for name in sets:
        marked = any(r["reference_source"] in (FROM_RUN, BEATEN) for r in rows if r["instance_set"] == name)
        for budget in sorted({k[1] for k in table if k[0] == name}):
            n_inst = len({r["instance"] for r in rows if r["instance_set"] == name and r["budget"] == budget})
            lines += [
                f"## {name}, {budget:g} s ({n_inst} instance{'' if n_inst == 1 else 's'})",
                "",
                f"| method | runs | mean primal gap{' *' if marked else ''} | mean primal integral (s) | best | proven "
                "| sgm time (s) | killed | failed |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
            for (s, b, label), v in table.items():
                if s == name and b == budget:
                    over = "" if v["gap_runs"] == v["runs"] else f" ({v['gap_runs']} of {v['runs']})"
                    lines.append(
                        f"| {label} | {v['runs']} | {_fmt(100 * v['mean_primal_gap'], '.2f')}%{over} "
                        f"| {_fmt(v['mean_primal_integral'], '.3f')} | {v['best']} | {v['proven']} "
                        f"| {_fmt(v['sgm_time'], '.2f')} | {v['killed']} | {v['failed']} |"
                    )
            lines.append("")
    lines += _failures(rows)
    lines += _compiled_in_budget(rows)
    lines += [
        "Metrics (see bench/README.md): primal gap = |obj − ref| / max(|obj|, |ref|) (1 without a solution;",
        "none on an instance no job solved, which has no reference: '(k of n)' then says over how many runs);",
        "primal integral = ∫₀ᵀ gap(t) dt in seconds (gap 1 before the first solution, T the budget);",
        "best = runs whose objective equals the best of any method on that instance, budget and seed;",
        "sgm time = shifted geometric mean (shift 1 s) of the time to proven optimality, the budget where not proven.",
    ]
    return "\n".join(lines) + "\n"


#: Jobs listed one by one in a report section (the rest are counted; results.csv has all).
LISTED_FAILURES = 30

#: Seconds of numba compiling inside a job's budget from which the report names the job.
COMPILED_IN_BUDGET = 0.05


def _job_section(title: str, intro: list[str], jobs: list[dict[str, Any]], columns: tuple[str, ...], cells: Any) -> list[str]:
    """A report section listing ``jobs`` (instance, method, budget, seed, then ``columns``, whose
    values ``cells(job)`` gives); empty without jobs."""
    if not jobs:
        return []
    lines = [f"## {title} ({len(jobs)})", "", *intro]
    lines.append("| instance | method | budget (s) | seed | " + " | ".join(columns) + " |")
    lines.append("|---|---|---|---|" + "---|" * len(columns))
    for r in jobs[:LISTED_FAILURES]:
        where = f"{r['instance_set']}/{r['instance']}"
        lines.append(f"| {where} | {r['label']} | {r['budget']:g} | {r['seed']} | " + " | ".join(cells(r)) + " |")
    if len(jobs) > LISTED_FAILURES:
        lines.append(f"| ... | {len(jobs) - LISTED_FAILURES} more in results.csv | | |" + " |" * len(columns))
    return [*lines, ""]


def _failures(rows: list[dict[str, Any]]) -> list[str]:
    """A report section naming each failed or killed job and why (empty when every job is done)."""
    bad = [r for r in rows if r["status"] != "done"]
    return _job_section(
        "Jobs not done", [], bad, ("status", "why"), lambda r: (r["status"], (r["error"] or "").replace("|", "\\|"))
    )


def _compiled_in_budget(rows: list[dict[str, Any]]) -> list[str]:
    """A report section naming the jobs whose solve compiled numba kernels inside its budget (a
    cold cache: they ran slower than they would have; empty when none did)."""
    slow = [r for r in rows if (r.get("solve_compile_time") or 0.0) >= COMPILED_IN_BUDGET]
    intro = [
        "Their numba cache did not hold every kernel the solve ran (a fresh checkout or environment):",
        "they ran slower than they would have. Delete their rows and run again with --resume.",
        "",
    ]
    return _job_section(
        "Jobs that compiled numba kernels inside their budget", intro, slow, ("compiling (s)",),
        lambda r: (f"{r['solve_compile_time']:.2f}",),
    )  # fmt: skip


def plot_anytime(rows: list[dict[str, Any]], folder: Path) -> list[Path]:
    """Mean primal gap over time per method, one PNG per instance set, at its largest budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name in sorted({r["instance_set"] for r in rows}):
        subset = [r for r in rows if r["instance_set"] == name]
        budget = max(r["budget"] for r in subset)
        times = np.geomspace(min(0.01, budget / 100), budget, 200)
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        for label in sorted({r["label"] for r in subset}):
            runs = [r for r in subset if r["label"] == label and r["budget"] == budget and r["reference"] is not None]
            if not runs:
                continue
            curves = [
                gap_at(
                    [(t, o) for t, o, _ in json.loads(r["trace"] or "[]") if o is not None] if r["status"] == "done" else [],
                    r["reference"],
                    times,
                )
                for r in runs
            ]
            ax.step(times, 100 * np.mean(curves, axis=0), where="post", label=label)
        ax.set_xscale("log")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("mean primal gap (%)")
        ax.set_title(f"{name}: anytime primal gap, {budget:g} s budget")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_lines():
            ax.legend()
        else:  # every job failed, or no instance has a reference value: nothing to draw
            ax.text(0.5, 0.5, "no run with a reference value", transform=ax.transAxes, ha="center")
        path = folder / f"anytime_{name}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_profile(rows: list[dict[str, Any]], folder: Path) -> Path | None:
    """Dolan–Moré profile of the primal integral over every (instance, seed) at each set's largest budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    largest = {}
    for r in rows:
        largest[r["instance_set"]] = max(largest.get(r["instance_set"], 0.0), r["budget"])
    labels = sorted({r["label"] for r in rows})
    cells: dict[tuple[str, str, int], dict[str, float]] = defaultdict(dict)
    for r in rows:
        if r["budget"] == largest[r["instance_set"]] and not math.isnan(r["primal_integral"]):
            cells[(r["instance_set"], r["instance"], r["seed"])][r["label"]] = r["primal_integral"]
    if not cells:
        return None
    costs = np.array([[c.get(label, np.inf) for label in labels] for c in cells.values()])
    taus = np.geomspace(
        1.0,
        max(
            2.0,
            float(np.nanmax(np.where(np.isfinite(costs), costs, np.nan) / np.maximum(costs.min(axis=1, keepdims=True), 1e-6)))
            * 1.1,
        ),
        300,
    )
    profile = performance_profile(costs, taus)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k, label in enumerate(labels):
        ax.step(taus, profile[:, k], where="post", label=label)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("τ (within a factor τ of the best primal integral)")
    ax.set_ylabel("fraction of instances")
    ax.set_title(f"Performance profile, primal integral ({len(cells)} instance runs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    path = folder / "profile.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_reports(folder: str | Path) -> list[Path]:
    """Rewrite every report of ``folder`` from its database; returns the files written."""
    folder = Path(folder)
    store = Store.existing(folder)
    try:
        rows, runs = enrich(store.rows()), store.runs()
    finally:
        store.close()
    if not rows:
        raise UsageError(f"{folder}: the database holds no job results yet")
    write_csv(rows, folder / "results.csv")
    (folder / "report.md").write_text(markdown(rows, runs))
    written = [folder / "results.csv", folder / "report.md", *plot_anytime(rows, folder)]
    profile = plot_profile(rows, folder)
    return written + ([profile] if profile else [])
