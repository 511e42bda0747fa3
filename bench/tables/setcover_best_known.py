"""Best-known covers of the generated set cover suites, from every results folder and stored covers.

    python -m bench.tables.setcover_best_known [--instances DIR] > bench/results/setcover-best-known/best_known.csv

Per generated instance (a job without a proven reference): the cheapest objective of any finished
job in ``bench/results/setcover-*/results.sqlite``, ``bench/experiments/*/results/setcover-*/results.sqlite``
(runs behind no published table, moved there) and ``bench/results/glns/results.sqlite``, or a
cheaper stored cover ``bench/results/setcover-best-known/NAME.sol`` (a solution file, as
``cosolve solve --output`` writes), which is read back and evaluated on the instance file
``DIR/*/NAME.txt`` (default: the instances of ``bench/results/setcover-glns-final-2``; regenerate
them with ``cosolve bench bench/suites/setcover_glns_final.toml``). Writes ``instance,value,source`` CSV;
the source names the folders by name (``jobs in bench/results/NAME ...``, as when they all lay in
bench/results/, so that a rebuild reproduces the stored file).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from bench import EXPERIMENTS, RESULTS
from bench.tables.glns import finished_jobs

COVERS = RESULTS / "setcover-best-known"


def best_of_folders() -> dict[str, tuple[float, list[str]]]:
    """instance -> (cheapest objective, folders that found it), over generated instances."""
    stores = [*RESULTS.glob("setcover-*/results.sqlite"), *EXPERIMENTS.glob("*/results/setcover-*/results.sqlite")]
    folders = [*sorted(stores, key=lambda path: path.parent.name), RESULTS / "glns" / "results.sqlite"]
    best: dict[str, tuple[float, list[str]]] = {}
    for path in folders:
        if not path.is_file():
            continue
        for job in finished_jobs(str(path.parent)):
            name, value = job["instance"], job["objective"]
            if value is None or job["reference"] is not None:
                continue
            old = best.get(name)
            if old is None or value < old[0] - 1e-9:
                best[name] = (value, [path.parent.name])
            elif abs(value - old[0]) <= 1e-9 and path.parent.name not in old[1]:
                old[1].append(path.parent.name)
    return best


def stored_cover(cover: Path, instances: Path) -> float:
    """The cost of a stored solution file, checked feasible on its instance."""
    from cosolve.io import read, read_solution

    found = sorted(instances.glob(f"*/{cover.stem}.txt"))
    if not found:
        raise SystemExit(f"{cover}: no instance file {cover.stem}.txt under {instances}")
    problem = read(found[0])
    verdict = problem.evaluate(read_solution(problem, cover))
    if not verdict.feasible:
        raise SystemExit(f"{cover}: not a feasible cover of {found[0]}")
    return float(verdict.objective)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=Path, default=RESULTS / "setcover-glns-final-2" / "instances")
    args = parser.parse_args()
    rows = {name: (value, "jobs in bench/results/" + " ".join(folders)) for name, (value, folders) in best_of_folders().items()}
    for cover in sorted(COVERS.glob("*.sol")):
        value = stored_cover(cover, args.instances)
        if cover.stem not in rows or value < rows[cover.stem][0] - 1e-9:
            rows[cover.stem] = (value, f"stored cover bench/results/setcover-best-known/{cover.name}")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["instance", "value", "source"])
    for name in sorted(rows):
        out.writerow([name, f"{rows[name][0]:g}", rows[name][1]])


if __name__ == "__main__":
    main()
