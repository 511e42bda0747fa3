"""One benchmark job in its own process: ``python -m cosolve.bench.worker JOB_JSON``.

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
    from cosolve.core.solver import Solver
    from cosolve.errors import CosolveError
    from cosolve.io import read

    job = json.loads(argv[0])
    try:
        solver = Solver(job["method"], time_limit=job["budget"], seed=job["seed"], threads=job["threads"], **job["options"])
        solver._check()
        start = time.perf_counter()
        problem = read(job["path"], problem=job["problem"])
        solver.check_supports(problem)
        read_time = time.perf_counter() - start
        setup_time = solver.prepare(problem)
        _emit("ready", read_time=read_time, setup_time=setup_time)
        result = solver.solve(problem)
    except CosolveError as e:
        _emit("error", message=str(e))
        return 2
    _emit("result", **result.to_dict(with_solution=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
