"""One benchmark job in its own process: ``python -m cosolve.harness.worker JOB_JSON``.

Prints two JSON lines on stdout: ``{"event": "ready", "read_time": s, "setup_time": s}`` once the instance is
read (the parent starts the budget's kill clock then), and ``{"event": "result", ...}`` with
the :class:`~cosolve.Result` (without the solution). Errors print ``{"event": "error",
"message": ...}`` and exit with code 2.
"""

from __future__ import annotations

import json
import sys
import time


def _emit(event: str, **data: object) -> None:
    print(json.dumps({"event": event, **data}), flush=True)


def main(argv: list[str]) -> int:
    from cosolve.errors import CosolveError
    from cosolve.io import read
    from cosolve.problems.registry import report_extras
    from cosolve.solver import Solver

    job = json.loads(argv[0])
    try:
        solver = Solver(
            job["method"],
            problem=job["problem"],
            time_limit=job["budget"],
            seed=job["seed"],
            threads=job["threads"],
            **job["options"],
        )
        solver.validate()
        start = time.perf_counter()
        problem = read(job["path"], problem=job["problem"])
        solver.check_supports(problem)
        read_time = time.perf_counter() - start
        _emit("ready", read_time=read_time, setup_time=solver.prepare(problem))
        result = solver.solve(problem)
    except CosolveError as e:
        _emit("error", message=str(e))
        return 2
    _emit("result", **result.to_dict(with_solution=False), extras=report_extras(problem, result.solution))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
