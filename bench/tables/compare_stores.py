"""Two benchmark stores, job by job: the mean objective of each (instance set, budget, method label)
over the jobs both hold with a solution, and on how many instances the second is better, equal or worse.

    python -m bench.tables.compare_stores BEFORE/results.sqlite AFTER/results.sqlite

"Better" follows each job's recorded sense (lower for minimisation, higher for maximisation).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
from collections import defaultdict


def load(path: str) -> dict[tuple, tuple]:
    db = sqlite3.connect(path)
    columns = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
    setup = "setup_time" if "setup_time" in columns else "NULL"  # stores older than the set-up timing have none
    rows = db.execute(
        f"SELECT instance_set, instance, label, budget, seed, objective, sense, {setup} FROM jobs WHERE status = 'done'"
    ).fetchall()
    return {row[:5]: row[5:] for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    groups: dict[tuple, list] = defaultdict(list)
    for key in sorted(set(before) & set(after)):
        if before[key][0] is not None and after[key][0] is not None:
            groups[(key[0], key[3], key[2])].append((before[key], after[key]))
    print("| set | budget (s) | method | jobs | mean before | mean after | better | equal | worse | setup before | setup after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, budget, label), pairs in sorted(groups.items()):
        sign = 1.0 if pairs[0][1][1] == "maximize" else -1.0
        better = sum(sign * (a[0] - b[0]) > 0 for b, a in pairs)
        worse = sum(sign * (a[0] - b[0]) < 0 for b, a in pairs)
        setup = [statistics.mean(p[i][2] or 0.0 for p in pairs) for i in (0, 1)]
        means = [statistics.mean(p[i][0] for p in pairs) for i in (0, 1)]
        print(
            f"| {name} | {budget:g} | {label} | {len(pairs)} | {means[0]:.3f} | {means[1]:.3f} | {better} "
            f"| {len(pairs) - better - worse} | {worse} | {setup[0]:.2f} | {setup[1]:.2f} |"
        )


if __name__ == "__main__":
    main()
