import json
import math

import numpy as np
import pytest

from cosolve.core.result import Result, Sense, Status, Termination, Trace, TracePoint, relative_gap


@pytest.mark.parametrize(
    ("objective", "bound", "expected"),
    [
        (10.0, 10.0, 0.0),
        (10.0, 8.0, 0.2),
        (8.0, 10.0, 0.2),  # maximisation: bound above
        (-10.0, -12.0, 2 / 12),
        (0.0, 0.0, 0.0),
        (5.0, 0.0, 1.0),
        (-1.0, 1.0, 1.0),  # opposite signs: capped
        (None, 3.0, None),
        (3.0, None, None),
        (3.0, math.inf, None),
    ],
)
def test_relative_gap(objective, bound, expected):
    gap = relative_gap(objective, bound)
    if expected is None:
        assert gap is None
    else:
        assert gap == pytest.approx(expected)


def _trace(sense=Sense.MINIMIZE):
    clock = iter(range(100)).__next__
    return Trace(
        sense, lambda: float(clock()), lambda x: (float(np.sum(x)), bool(x[0] == 1), None if x[0] == 1 else "x0 must be 1")
    )


def test_trace_keeps_only_feasible_improvements():
    trace = _trace()
    assert trace.offer(np.array([1, 1, 1]))
    assert not trace.offer(np.array([1, 1, 1]))  # not strictly better
    assert not trace.offer(np.array([0, 0, 0]))  # infeasible
    assert trace.offer(np.array([1, 0, 1]))
    assert trace.objective == 2.0
    assert [p.objective for p in trace.points] == [3.0, 2.0]
    assert [p.time for p in trace.points] == [0.0, 1.0]


def test_trace_rejects_a_wrong_reported_objective():
    trace = _trace()
    with pytest.raises(AssertionError, match="evaluates to 3"):
        trace.offer(np.array([1, 1, 1]), objective=2.0)


def test_trace_bounds_only_tighten_and_never_pass_the_incumbent():
    trace = _trace(Sense.MINIMIZE)
    trace.offer(np.array([1, 1]))
    assert trace.offer_bound(1.0)
    assert not trace.offer_bound(0.5)
    assert trace.offer_bound(5.0)  # clipped to the incumbent
    assert trace.bound == 2.0
    maxi = _trace(Sense.MAXIMIZE)
    maxi.offer(np.array([1, 1]))
    assert maxi.offer_bound(10.0)
    assert not maxi.offer_bound(11.0)
    assert maxi.offer_bound(3.0)
    assert maxi.bound == 3.0


def test_trace_listeners_see_every_event():
    trace = _trace()
    seen = []
    trace.listeners.append(seen.append)
    trace.offer(np.array([1, 1]))
    trace.offer_bound(1.0)
    assert seen == trace.points and len(seen) == 2


def test_result_json_round_trip():
    result = Result(
        status=Status.FEASIBLE,
        termination=Termination.TIME_LIMIT,
        objective=12.0,
        bound=10.0,
        solution=np.array([1, 0, 1], dtype=np.int8),
        time=1.5,
        method="scip",
        problem="setcover",
        sense=Sense.MINIMIZE,
        instance="toy",
        time_limit=1.0,
        trace=[TracePoint(0.1, 12.0, None), TracePoint(0.2, 12.0, 10.0)],
    )
    data = json.loads(result.to_json())
    assert data["status"] == "feasible" and data["termination"] == "time_limit"
    assert data["gap"] == pytest.approx(2 / 12)
    assert data["trace"][1] == {"time": 0.2, "objective": 12.0, "bound": 10.0}
    back = Result.from_dict(data)
    assert back.status is Status.FEASIBLE and back.gap == pytest.approx(result.gap)
    np.testing.assert_array_equal(back.solution, result.solution)
    assert "solution" not in result.to_dict(with_solution=False)
    assert "feasible (time_limit)" in str(result)
