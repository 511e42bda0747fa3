"""Small helpers shared by the subcommands."""

from __future__ import annotations

import math


def fmt_value(value: float | None) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.10g}"


def fmt_gap(gap: float | None) -> str:
    return "-" if gap is None else f"{100 * gap:.2f}%"
