"""Conjoint experiments in long-format CSV: reading them into
:class:`~cosolve.problems.conjoint.data.ConjointData` and finding the bundled data set.

A file holds one row per profile (a candidate shown to a respondent): an outcome column (for a
forced choice, 1 for the chosen profile of its pair and 0 for the other; for a rating, the rating),
a respondent id, optionally a pair (task) id and the profile's position within its pair, one column
per randomised attribute holding the level shown, and any other columns (respondent covariates such
as a party, task covariates). Compressed files (gzip, bzip2, xz) are read as well
(:func:`cosolve.io.detect.read_bytes`).

Levels are sorted naturally (runs of digits compare as numbers, so ``"4 years" < "12 years"``) and
the first is the baseline, unless ``baselines`` names another (which is then moved to the front, the
others keeping their order). The bundled data set (Ono & Burden 2019, ``instances/conjoint/`` of a
checkout) can be named ``ono_burden``.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from cosolve.errors import InputError, UsageError
from cosolve.io.bundled import resolve_named
from cosolve.io.detect import read_bytes
from cosolve.problems.conjoint.data import ConjointData
from cosolve.problems.conjoint.design import Design

#: where the bundled conjoint data sets live in a checkout (absent from an installed wheel)
BUNDLED_DIR = Path(__file__).resolve().parents[2] / "instances" / "conjoint"
#: the bundled Ono & Burden (2019) presidential forced-choice conjoint
BUNDLED_FILE = "ono_burden_2019_president_tidy.csv"
#: short names of the bundled data sets, besides their file stems
ALIASES = {"ono_burden": BUNDLED_FILE, "ono_burden_2019": BUNDLED_FILE}
#: the 13 randomised attributes of the bundled file (the default ``attributes``)
BUNDLED_ATTRIBUTES = (
    "party", "gender", "age", "family", "race", "experience", "trait", "policy_expertise",
    "pos_security", "pos_immigrants", "pos_abortion", "pos_deficit", "fav_rating",
)  # fmt: skip
P0_RULES = ("empirical", "uniform")


def bundled_datasets() -> dict[str, Path]:
    """The bundled conjoint data sets by short name (file stems and aliases such as ``ono_burden``)."""
    if not BUNDLED_DIR.is_dir():
        return {}
    found = {p.stem: p for p in sorted(BUNDLED_DIR.glob("*.csv"))}
    found.update({alias: BUNDLED_DIR / f for alias, f in ALIASES.items() if (BUNDLED_DIR / f).exists()})
    return dict(sorted(found.items()))


def bundled_conjoint() -> Path:
    """The path of the bundled Ono & Burden (2019) file; InputError outside a checkout."""
    path = BUNDLED_DIR / BUNDLED_FILE
    if not path.exists():
        raise InputError("the bundled conjoint data set is not in this installation (it ships in a checkout)", where=str(path))
    return path


def resolve_data(name: str | os.PathLike) -> Path:
    """A path to an existing file, or the bundled data set called ``name``; else InputError."""
    return resolve_named(name, bundled_datasets(), "conjoint")


def natural_key(level: str) -> tuple:
    """Sort key comparing runs of digits as numbers: ``"4 years" < "12 years" < "No experience"``."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", level))


def read_conjoint(
    path: str | os.PathLike,
    *,
    outcome: str = "Y",
    respondent: str = "id",
    pair: str | None = "pair_id",
    profile: str | None = "profile_order",
    attributes: Sequence[str] | None = None,
    keep: Sequence[str] | None = None,
    p0: str = "empirical",
    baselines: Mapping[str, str] | None = None,
    levels: Mapping[str, Sequence[str]] | None = None,
) -> ConjointData:
    """Read a long-format conjoint CSV (module docstring); ``path`` may name a bundled data set.

    Column names: ``outcome`` (numeric), ``respondent`` (clusters), ``pair`` (tasks, two profiles
    each; None for single-profile ratings, and then ``profile`` is ignored) and ``profile`` (the
    position within the pair; its smaller value is position 0; None: the order of the rows). ``attributes``: the randomised
    columns (default: the 13 of the bundled file, which the file must then hold). ``keep``: the other
    columns to keep as covariates (default all). ``p0``: ``"empirical"`` (the observed level
    frequencies over the profiles) or ``"uniform"``. ``baselines``: attribute -> level to make the
    baseline. ``levels``: attribute -> its full list of levels (baseline first); every one must occur
    in the data and no other may.

    Raises InputError (one line naming the file, and the column, level or line) for: a missing or
    empty file, missing columns, a missing or non-numeric outcome, an empty attribute cell, a level
    listed but never randomised (or randomised but not listed), an attribute with a single level,
    a single respondent, a pair without exactly two profiles (or two respondents, or one position
    twice).
    """
    path = resolve_data(path)
    where = str(path)
    if pair is None:
        profile = None  # positions only exist within pairs
    if p0 not in P0_RULES:
        raise UsageError(f"unknown p0 rule {p0!r} (expected one of: {', '.join(P0_RULES)})")
    if path.is_dir():
        raise InputError("is a directory, not a CSV file", where=where)
    raw = read_bytes(path)  # decompressed, read once for pandas and the row check
    try:
        df = pd.read_csv(io.BytesIO(raw), keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InputError("empty file (expected a header line and one line per profile)", where=where) from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read as CSV: {str(exc).strip().splitlines()[-1]}", where=where) from None
    df.columns = [str(c).strip() for c in df.columns]
    _no_short_rows(raw.decode("utf-8", errors="replace"), len(df.columns), where)
    if attributes is None:
        absent = [a for a in BUNDLED_ATTRIBUTES if a not in df.columns]
        if absent:
            raise UsageError(f"{where}: give attributes=[...]: the file lacks the bundled attribute columns {', '.join(absent)}")
        attributes = BUNDLED_ATTRIBUTES
    attributes = list(attributes)
    if not attributes:
        raise UsageError("attributes must name at least one column")
    repeated = sorted({a for a in attributes if attributes.count(a) > 1})
    if repeated:
        raise UsageError(f"attributes name {', '.join(repeated)} more than once (each attribute is one factor)")
    used = [outcome, respondent] + [c for c in (pair, profile) if c is not None] + attributes
    wanted = used + [c for c in (keep or []) if c not in used]
    missing = list(dict.fromkeys(c for c in wanted if c not in df.columns))
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (the file has: {', '.join(df.columns)})", where=where)
    if len(df) == 0:
        raise InputError("no data rows (only a header)", where=where)
    for extra in (baselines or {}, levels or {}):
        unknown = [a for a in extra if a not in attributes]
        if unknown:
            raise UsageError(f"baselines/levels name attributes that are not among the attributes: {', '.join(unknown)}")

    y = _outcome(df[outcome], outcome, where)
    resp_labels = df[respondent].to_numpy()
    _no_empty(resp_labels, respondent, where)
    resp = pd.factorize(resp_labels, sort=True)[0].astype(np.int64)
    if resp.max() == 0:
        raise InputError(
            f"a single respondent ({respondent} = {_show(resp_labels[0])}): respondent-clustered standard errors need at least 2",
            where=where,
        )

    factor_levels, codes = [], []
    for a in attributes:
        values = df[a].to_numpy().astype(str)
        _no_empty(values, a, where)
        present = sorted(set(values.tolist()), key=natural_key)
        if levels is not None and a in levels:
            lv = [str(v) for v in levels[a]]
            absent = [v for v in lv if v not in present]
            if absent:
                raise InputError(
                    f"attribute {a}: level(s) {', '.join(map(repr, absent))} never randomised in the data", where=where
                )
            extra = [v for v in present if v not in lv]
            if extra:
                raise InputError(
                    f"attribute {a}: level(s) {', '.join(map(repr, extra))} not among the listed levels", where=where
                )
        else:
            lv = present
        if baselines is not None and a in baselines:
            base = str(baselines[a])
            if base not in lv:
                raise InputError(
                    f"attribute {a}: baseline {base!r} never randomised in the data (levels: {', '.join(lv)})", where=where
                )
            lv = [base] + [v for v in lv if v != base]
        if len(lv) < 2:
            raise InputError(f"attribute {a} has a single level {lv[0]!r}: nothing is randomised", where=where)
        factor_levels.append(tuple(lv))
        codes.append(pd.Categorical(values, categories=lv).codes.astype(np.int64))
    X = np.stack(codes, axis=1)

    if p0 == "uniform":
        probs = tuple(np.full(len(lv), 1.0 / len(lv)) for lv in factor_levels)
    else:
        probs = tuple(np.bincount(X[:, d], minlength=len(lv)) / len(X) for d, lv in enumerate(factor_levels))
    design = Design(tuple(attributes), tuple(factor_levels), probs)

    pair_codes = position = None
    if pair is not None:
        pair_codes, position = _pairs(df, pair, profile, resp, where)
    covariates = {c: df[c].to_numpy() for c in (df.columns if keep is None else keep) if c not in used}
    return ConjointData(design, X, y, resp, pair_codes, position, covariates, where, np.arange(len(y), dtype=np.int64) + 2)


def _outcome(column: pd.Series, name: str, where: str) -> np.ndarray:
    """The outcome column as float64 (N,); InputError at the first missing or non-numeric cell."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        cell = str(column.iloc[i])
        what = "missing" if not cell.strip() else f"{cell!r} is not a finite number"
        raise InputError(f"outcome column {name}: {what} ({bad.size} such row(s))", where=f"{where}:{i + 2}")
    return values


def _show(value: object) -> str:
    """A cell as it reads in the file: ``'p1'`` for text, ``3`` for a number (not ``np.int64(3)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _no_short_rows(text: str, width: int, where: str) -> None:
    """InputError naming the first line of the CSV ``text`` with fewer fields than the header
    (pandas fills them with empty cells, which would be reported as such)."""
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
    next(reader, None)
    for row in reader:
        if row and 0 < len(row) < width:
            raise InputError(f"{len(row)} fields where the header has {width}", where=f"{where}:{reader.line_num}")


def _no_empty(values: np.ndarray, name: str, where: str) -> None:
    empty = np.flatnonzero(np.char.strip(values.astype(str)) == "")
    if empty.size:
        raise InputError(f"column {name}: empty cell ({empty.size} such row(s))", where=f"{where}:{int(empty[0]) + 2}")


def _pairs(df: pd.DataFrame, pair: str, profile: str | None, resp: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Pair codes (N,) and positions 0/1 (N,); InputError for a pair that is not two profiles of one
    respondent in two distinct positions."""
    labels = df[pair].to_numpy()
    _no_empty(labels, pair, where)
    codes = pd.factorize(labels, sort=False)[0].astype(np.int64)
    counts = np.bincount(codes)
    if np.any(counts != 2):
        k = int(np.flatnonzero(counts != 2)[0])
        row, n_bad = int(np.flatnonzero(codes == k)[0]), int(np.sum(counts != 2))
        raise InputError(
            f"pair {pair} = {_show(labels[row])} has {counts[k]} profile(s), expected 2 ({n_bad} such pair(s))",
            where=f"{where}:{row + 2}",
        )
    rank = np.arange(len(codes)) if profile is None else pd.factorize(df[profile].to_numpy(), sort=True)[0]
    order = np.lexsort((np.arange(len(codes)), rank, codes))  # by pair, then position, then row
    first, second = order[0::2], order[1::2]
    if profile is not None:
        same = np.flatnonzero(rank[first] == rank[second])
        if same.size:
            row = int(min(first[same[0]], second[same[0]]))
            raise InputError(
                f"pair {pair} = {_show(labels[row])}: both profiles have {profile} = {_show(df[profile].iloc[row])}",
                where=f"{where}:{row + 2}",
            )
    split = np.flatnonzero(resp[first] != resp[second])
    if split.size:
        row = int(min(first[split[0]], second[split[0]]))
        raise InputError(f"pair {pair} = {_show(labels[row])} spans two respondents", where=f"{where}:{row + 2}")
    position = np.empty(len(codes), dtype=np.int64)
    position[first], position[second] = 0, 1
    return codes, position
