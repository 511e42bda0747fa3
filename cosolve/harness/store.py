"""Durable benchmark results: one SQLite database per output folder.

Every finished job is committed in its own transaction as soon as it comes back, so a killed
run loses at most the jobs in flight. Tables: ``runs`` (one row per invocation: command,
machine, versions, commit), ``jobs`` (one row per job key, with its result and trace).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from cosolve.errors import UsageError
from cosolve.harness.suite import Job

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    suite TEXT NOT NULL,
    suite_path TEXT,
    command TEXT,
    started REAL,
    finished REAL,
    machine TEXT,       -- JSON: cpu, cores, memory, platform
    versions TEXT,      -- JSON: package versions
    git_commit TEXT,
    workers INTEGER,
    scheduler TEXT
);
CREATE TABLE IF NOT EXISTS jobs (
    key TEXT PRIMARY KEY,
    run_id INTEGER REFERENCES runs(id),
    instance_set TEXT, instance TEXT, path TEXT, problem TEXT, reference REAL,
    method TEXT, label TEXT, options TEXT,
    options_used TEXT,      -- JSON object: every option of the method as the solve used it (auto worked out)
    budget REAL, seed INTEGER, threads INTEGER,
    status TEXT,            -- done | killed | failed
    result_status TEXT, termination TEXT, sense TEXT,
    objective REAL, bound REAL, time REAL, wall REAL, read_time REAL, setup_time REAL,
    solve_compile_time REAL, -- seconds numba compiled kernels inside the solve's budget (a cold cache)
    trace TEXT,             -- JSON list of [time, objective, bound]
    stats TEXT,             -- JSON object: the method's own counters (Result.stats)
    extras TEXT,            -- JSON object: the problem kind's report values (e.g. a jigsaw's pieces in place)
    error TEXT, host TEXT, finished_at REAL
);
"""


class Store:
    """The results database of one output folder (``DIR/results.sqlite``)."""

    FILENAME = "results.sqlite"

    @classmethod
    def existing(cls, folder: str | Path) -> Store:
        """The store of a results folder ``cosolve bench`` wrote (UsageError if it has none: a
        reader must not create an empty one)."""
        if not (Path(folder) / cls.FILENAME).is_file():
            raise UsageError(f"{folder}: no {cls.FILENAME} here (run cosolve bench SUITE --out {folder} first)")
        return cls(folder)

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / self.FILENAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(jobs)")}
        added = (
            ("setup_time", "REAL"), ("stats", "TEXT"), ("options_used", "TEXT"), ("extras", "TEXT"),
            ("solve_compile_time", "REAL"),
        )  # fmt: skip
        for column, kind in added:  # folders written before they existed
            if column not in columns:
                with self.db:
                    self.db.execute(f"ALTER TABLE jobs ADD COLUMN {column} {kind}")

    def close(self) -> None:
        self.db.close()

    def done_keys(self) -> set[str]:
        """Keys of the jobs that need no rerun: finished or killed (failed ones are retried)."""
        return {k for (k,) in self.db.execute("SELECT key FROM jobs WHERE status IN ('done', 'killed')")}

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]

    def set_references(self, instances: list[Any]) -> None:
        """Give the recorded jobs of each of ``instances`` (:class:`~cosolve.harness.suite.Instance`)
        its reference value, where it has one: a resumed run's reference file may have been
        corrected since the first run."""
        known = [(i.reference, i.set, i.name) for i in instances if i.reference is not None]
        with self.db:
            self.db.executemany("UPDATE jobs SET reference = ? WHERE instance_set = ? AND instance = ?", known)

    def start_run(self, **fields: Any) -> int:
        fields = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in fields.items()}
        cols = ", ".join(fields)
        with self.db:
            cur = self.db.execute(
                f"INSERT INTO runs ({cols}, started) VALUES ({', '.join('?' * len(fields))}, ?)", [*fields.values(), time.time()]
            )
        return int(cur.lastrowid)

    def finish_run(self, run_id: int) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run_id))

    def record(self, run_id: int, job: Job, outcome: dict[str, Any]) -> None:
        """Write one job's outcome (replacing an earlier failed attempt) in one transaction."""
        r = outcome.get("result") or {}
        trace = [[p["time"], p["objective"], p["bound"]] for p in r.get("trace", [])]
        row = {
            "key": job.key,
            "run_id": run_id,
            "instance_set": job.instance.set,
            "instance": job.instance.name,
            "path": job.instance.path,
            "problem": r.get("problem") or job.instance.problem,
            "reference": job.instance.reference,
            "method": job.method.name,
            "label": job.method.label,
            "options": job.method.options_json,
            "options_used": json.dumps(r.get("options") or {}, sort_keys=True),
            "budget": job.budget,
            "seed": job.seed,
            "threads": job.threads,
            "status": outcome["status"],
            "result_status": r.get("status"),
            "termination": r.get("termination"),
            "sense": r.get("sense"),
            "objective": r.get("objective"),
            "bound": r.get("bound"),
            "time": r.get("time"),
            "wall": outcome.get("wall"),
            "read_time": outcome.get("read_time"),
            "setup_time": r.get("setup_time", outcome.get("setup_time")),  # set up before a kill: from the ready event
            "solve_compile_time": r.get("compile_time"),  # the set-up is outside a job's budget: the solve's
            "trace": json.dumps(trace),
            "stats": json.dumps(r.get("stats") or {}),
            "extras": json.dumps(r.get("extras") or {}),
            "error": outcome.get("error"),
            "host": outcome.get("host"),
            "finished_at": outcome.get("finished_at"),
        }
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO jobs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values())
            )

    def rows(self) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT * FROM jobs ORDER BY instance_set, instance, label, budget, seed")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, values, strict=True)) for values in cur.fetchall()]

    def runs(self) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT * FROM runs ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, values, strict=True)) for values in cur.fetchall()]
