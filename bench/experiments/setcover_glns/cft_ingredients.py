"""CFT's refinement ingredient by ingredient (issue 26, item 1): the three-phase on a core priced
over the whole residual instance (as CFT does, and as cosolve now does) against a core fixed once
at the whole instance's multipliers (what cosolve did before), the consensus fixing of a pool
of covers, the fixing fraction set back after a cheaper cover (CFT's and pycft's rule) and each
three-phase restarted from CFT's initial multipliers (as pycft does), on set cover files.

    python -m bench.experiments.setcover_glns.cft_ingredients \
        bench/results/setcover-peers/instances/*/*.txt [--budget 8] [--seed 0]
        [--variants priced,consensus] [--cycles 1] [--whole-only]

For each instance: the start (Chvátal's greedy, redundancy removal, swap search) and the
Lagrangian bound (1,000 subgradient steps) are shared; then, per variant, one three-phase
(``refine(max_rounds=1)``) and the whole refinement (until a cycle of its fixing fraction finds
nothing, or ``--budget`` seconds), each with its objective and seconds. Prints a Markdown table;
one process, one thread.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosolve.heuristics.setcover.greedy_cover import chvatal_greedy, remove_redundant
from cosolve.heuristics.setcover.lagrangian import lagrangian_bound
from cosolve.heuristics.setcover.swap_search import swap_local_search
from cosolve.heuristics.setcover.three_phase import RefineStats, refine
from cosolve.io import read

#: name -> (label, refine's keyword arguments)
VARIANTS = {
    "priced": ("priced", {}),
    "fixed": ("fixed core (10/row)", {"core_per_row": 10}),
    "consensus": ("priced + consensus of 8 covers", {"consensus": 8}),
    "pi-reset": ("priced + pi back to 0.3 after a cheaper cover", {"pi_reset": True}),
    "fresh": ("priced + each three-phase from CFT's initial multipliers", {"fresh_multipliers": True}),
}


def run(path: str, budget: float, seed: int, variants: list[str], cycles: int, whole_only: bool) -> list[str]:
    p = read(path)
    costs = np.ascontiguousarray(p.costs, dtype=np.float64)
    csr, csc = p.matrix, p.csc
    x = swap_local_search(costs, csr, csc, remove_redundant(costs, csc, chvatal_greedy(costs, csr, csc)))
    start = float(costs @ x)
    lag = lagrangian_bound(costs, csr, csc, upper=start, iterations=1000)
    cells = [p.name, f"{start:g}", f"{lag.bound:.1f}"]
    for name in variants:
        kwargs = VARIANTS[name][1]
        for rounds in (1 << 30,) if whole_only else (1, 1 << 30):
            stats = RefineStats()
            t0 = time.perf_counter()
            limit = t0 + budget
            y = refine(
                costs, csr, csc, lag, x, stop=lambda limit=limit: time.perf_counter() > limit,
                rng=np.random.default_rng(seed), max_rounds=rounds, stats=stats, stall_cycles=cycles, **kwargs,
            )  # fmt: skip
            seconds = time.perf_counter() - t0
            extra = "" if rounds == 1 else f", {stats.rounds} rounds"
            cells.append(f"{float(costs @ y):g} ({seconds:.1f} s{extra})")
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--budget", type=float, default=8.0, help="seconds for each whole refinement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument(
        "--cycles", type=int, default=1, help="cycles of the fixing fraction without a cheaper cover that end a refinement"
    )
    parser.add_argument("--whole-only", action="store_true", help="only the whole refinement, not one three-phase")
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r}; valid: {', '.join(VARIANTS)}")
    whats = (
        [f"refinement (<= {args.budget:g} s)"] if args.whole_only else ["one three-phase", f"refinement (<= {args.budget:g} s)"]
    )
    heads = [f"{VARIANTS[name][0]}: {what}" for name in variants for what in whats]
    print("| instance | start | Lagrangian bound | " + " | ".join(heads) + " |")
    print("|---|---:|---:|" + "---:|" * len(heads))
    for path in args.files:
        cells = run(path, args.budget, args.seed, variants, args.cycles, args.whole_only)
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
