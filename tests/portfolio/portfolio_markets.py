"""The bundled OLPS markets, read once per test session (shared by the portfolio tests)."""

from functools import cache
from pathlib import Path

import numpy as np

from cosolve.portfolio import read_relatives

OLPS = Path(__file__).resolve().parents[2] / "instances" / "olps"


@cache
def market(name: str) -> np.ndarray:
    x = read_relatives(OLPS / f"{name}.csv")
    x.flags.writeable = False
    return x
