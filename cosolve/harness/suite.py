"""Benchmark suites: a TOML file naming instance sets, methods, budgets, seeds and threads.

    name = "quick"
    budgets = [1, 10]            # seconds of wall clock per job
    seeds = [0]
    threads = 1                  # per job
    memory_limit = 4.0           # optional: GiB of resident memory per job; a job above it is killed, recorded as failed

    [[instances]]
    name = "orlib"
    paths = ["../instances/setcover/scp41.txt", "../instances/setcover/scpa*.txt"]  # files, folders, globs
    reference = "../instances/setcover/optima.csv"   # optional: best-known values
    problem = "setcover"                               # optional (needed for graph files)

    [[instances]]
    name = "er100"
    generator = "erdos_renyi"            # a registered generator (cosolve.problems.registry.generators)
    params = { n = 100, p = 0.05 }
    problem = "mis"                      # needed for generators that make several kinds
    seeds = [1, 2, 3]                    # one instance per generator seed

    [[methods]]
    name = "greedy"
    label = "greedy-raw"                 # optional: the name in reports (default: name)
    options = { improve = false }        # optional: method options

Relative paths in the suite (instance ``paths``, ``reference``) are relative to the suite file;
paths in method ``options`` (e.g. a ``checkpoint``) are relative to the current directory, as on
the command line, and are checked before any job runs. A set of files whose format may hold
several problem kinds (graph files) needs ``problem``.
"""

from __future__ import annotations

import csv
import glob
import hashlib
import itertools
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosolve.errors import CosolveError, InputError
from cosolve.io.detect import choose_kind, detect_format, holders, instance_files
from cosolve.io.files import instance_name

#: The longest budget a suite may give a job, in seconds (a week): a longer one is a typo, and the
#: job scheduler's clock arithmetic overflows near 1e12.
MAX_BUDGET = 7 * 24 * 3600.0

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class Instance:
    """One instance of a set: where its file is, its problem kind and best-known value."""

    set: str
    name: str
    path: str
    problem: str | None
    reference: float | None


@dataclass(frozen=True)
class MethodSpec:
    """A method of a suite: ``label`` names it in reports; ``sets`` (None: all) are the instance
    sets it runs on, so that one label may take other options on other sets (a checkpoint
    trained for each set's family)."""

    name: str
    label: str
    options: dict[str, Any] = field(default_factory=dict)
    sets: tuple[str, ...] | None = None

    def runs_on(self, instance_set: str) -> bool:
        return self.sets is None or instance_set in self.sets

    @property
    def options_json(self) -> str:
        return json.dumps(self.options, sort_keys=True)


@dataclass(frozen=True)
class Job:
    """One run: an instance, a method, a budget (s), a seed and a thread count."""

    instance: Instance
    method: MethodSpec
    budget: float
    seed: int
    threads: int
    memory_limit: float | None = None  # GiB; a resource cap, not part of the job's identity (key)

    @property
    def key(self) -> str:
        """Stable identity of the job in the store (what ``--resume`` skips)."""
        opts = hashlib.sha1(self.method.options_json.encode()).hexdigest()[:8]
        return (
            f"{self.instance.set}/{self.instance.name}|{self.method.label}|{self.method.name}:{opts}"
            f"|{self.budget:g}s|seed{self.seed}|t{self.threads}"
        )


@dataclass
class Suite:
    name: str
    path: Path
    budgets: list[float]
    seeds: list[int]
    threads: int
    instance_sets: list[dict[str, Any]]
    methods: list[MethodSpec]
    description: str = ""
    memory_limit: float | None = None

    def jobs(self, instances: list[Instance]) -> list[Job]:
        """Every (instance, method, budget, seed) combination, instance-major."""
        return [
            Job(inst, method, budget, seed, self.threads, self.memory_limit)
            for budget in self.budgets
            for inst in instances
            for method in self.methods
            if method.runs_on(inst.set)
            for seed in self.seeds
        ]


def _is_number(value: Any) -> bool:
    """A finite TOML integer or float (not a boolean or a string)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _require(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise InputError(f"missing key {key!r}", where=where)
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InputError(f"key {key!r} has the wrong type ({type(value).__name__})", where=where)
    return value


def load_suite(path: str | os.PathLike) -> Suite:
    """Parse and check a suite file (errors name the file and the offending entry)."""
    path = Path(path)
    where = str(path)
    if not path.is_file():
        raise InputError("no such suite file", where=where)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", where=where) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", where=where) from None
    unknown = set(data) - {"name", "description", "budgets", "seeds", "threads", "memory_limit", "instances", "methods"}
    if unknown:
        raise InputError(f"unknown key {sorted(unknown)[0]!r}", where=where)
    budgets = _require(data, "budgets", list, where)
    bad = [b for b in budgets if not _is_number(b) or not 0 < b <= MAX_BUDGET]
    if not budgets or bad:
        got = f", got {bad[0]!r}" if bad else ""
        raise InputError(f"budgets must be a non-empty list of positive seconds, at most {MAX_BUDGET:g}{got}", where=where)
    budgets = [float(b) for b in budgets]
    seeds = data.get("seeds", [0])
    if not seeds or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in seeds):
        raise InputError("seeds must be a non-empty list of non-negative integers", where=where)
    threads = data.get("threads", 1)
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InputError("threads must be a positive integer", where=where)
    memory = data.get("memory_limit")
    if memory is not None and (not isinstance(memory, int | float) or isinstance(memory, bool) or not memory > 0):
        raise InputError(f"memory_limit must be a positive number of GiB, got {memory!r}", where=where)
    sets = _require(data, "instances", list, where)
    if not sets:
        raise InputError("no [[instances]] set", where=where)
    names = [_require(s, "name", str, f"{where}: [[instances]] #{k + 1}") for k, s in enumerate(sets)]
    if len(set(names)) != len(names):
        raise InputError("two [[instances]] sets share a name", where=where)
    methods = []
    for k, m in enumerate(_require(data, "methods", list, where)):
        at = f"{where}: [[methods]] #{k + 1}"
        name = _require(m, "name", str, at)
        options = m.get("options", {})
        if not isinstance(options, dict):
            raise InputError("options must be a table", where=at)
        unknown = set(m) - {"name", "label", "options", "sets"}
        if unknown:
            raise InputError(f"unknown key {sorted(unknown)[0]!r}", where=at)
        only = m.get("sets")
        if only is not None:
            if not isinstance(only, list) or not only or any(s not in names for s in only):
                valid = ", ".join(names)
                raise InputError(f"sets must be a non-empty list of the suite's [[instances]] names ({valid})", where=at)
            only = tuple(only)
        methods.append(MethodSpec(name, m.get("label", name), options, only))
    if not methods:
        raise InputError("no [[methods]]", where=where)
    for a, b in itertools.combinations(methods, 2):
        if a.label == b.label and (a.sets is None or b.sets is None or set(a.sets) & set(b.sets)):
            raise InputError(
                f"two methods labelled {a.label!r} run on the same instance set; give them distinct 'label's or disjoint 'sets'",
                where=where,
            )
    return Suite(
        data.get("name", path.stem), path, budgets, seeds, threads, sets, methods, data.get("description", ""),
        None if memory is None else float(memory),
    )  # fmt: skip


def read_references(path: Path, *, where: str | None = None) -> dict[str, float]:
    """Best-known values from a CSV with an ``instance`` (or ``name``) column and an ``optimum``
    (or ``value``) column; rows with a ``problem`` column are keyed ``instance:problem``; rows
    with an empty value are skipped. ``where`` (the suite entry that names the file) prefixes
    the error of a missing file; a file without those columns or with a value that is not a
    finite number is an :class:`InputError` naming ``path`` (and ``path:line``)."""
    if not path.is_file():
        raise InputError(f"no such reference file {str(path)!r}", where=where)
    out: dict[str, float] = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        if not {"instance", "name"} & set(columns) or not {"optimum", "value"} & set(columns):
            found = ", ".join(columns) or "none"
            raise InputError(
                f"a reference file needs an 'instance' (or 'name') column and an 'optimum' (or 'value') column; found: {found}",
                where=str(path),
            )
        for row in reader:
            name = row.get("instance") or row.get("name")
            value = row.get("optimum") or row.get("value")
            if not name or value in (None, ""):
                continue
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise InputError(f"value {value!r} of {name} is not a finite number", where=f"{path}:{reader.line_num}")
            key = f"{name}:{row['problem']}" if row.get("problem") else name
            out[key] = number
    return out


def resolve_instances(suite: Suite, workdir: Path) -> list[Instance]:
    """The instances of every set: files matched by ``paths``, or generated into
    ``workdir/instances/SET/`` (written once; the same seed gives the same file)."""
    base = suite.path.parent
    out: list[Instance] = []
    for spec in suite.instance_sets:
        at = f"{suite.path}: [[instances]] {spec['name']!r}"
        problem = spec.get("problem")
        if problem is None and "generator" in spec:
            kinds = _generator(spec["generator"], at).kinds
            problem = kinds[0] if len(kinds) == 1 else None  # the kind the generator makes, where it is fixed
        reference = spec.get("reference")
        refs = read_references((base / reference).resolve(), where=at) if reference else {}
        if "generator" in spec:
            files = _generate(spec, problem, workdir / "instances" / spec["name"], at)
        elif "paths" in spec:
            files = _match(base, spec["paths"], at)
        else:
            raise InputError("needs 'paths' or 'generator'", where=at)
        found: list[Instance] = []
        for file in files:
            name = instance_name(file)
            kind = problem if problem is not None else _file_kind(file, at)
            ref = refs.get(f"{name}:{kind}", refs.get(name))
            found.append(Instance(spec["name"], name, str(file), kind, ref))
        _check_names(found, at)
        if refs and all(i.reference is None for i in found):
            named = ", ".join(sorted(refs)[:3])
            raise InputError(
                f"reference {reference!r} names none of the set's instances (it has {named}, ...; the set has "
                f"{', '.join(i.name for i in found[:3])}, ...: file names without their extension)",
                where=at,
            )
        out.extend(found)
    return out


def _check_names(instances: list[Instance], at: str) -> None:
    """InputError for two files of one set with the same instance name (their results would share a key)."""
    seen: dict[str, str] = {}
    for i in instances:
        if i.name in seen:
            raise InputError(
                f"{seen[i.name]} and {i.path} are both instance {i.name!r}; an instance name (the file name without its "
                "extension) must be unique within a set: rename one, or put them in separate [[instances]] sets",
                where=at,
            )
        seen[i.name] = i.path


def _file_kind(path: Path, at: str) -> str | None:
    """The problem kind ``path`` will be read as, from its format alone (None where only reading
    the whole file tells: an MPS set cover or MIP); a file whose format holds several kinds
    (graph files) is an :class:`InputError` asking for the set's ``problem``."""
    fmt = detect_format(path)
    ambiguous = choose_kind(fmt)
    if ambiguous:
        raise InputError(
            f'{path.name} may hold any of {", ".join(ambiguous)}; add problem = "{ambiguous[0]}" (or another)', where=at
        )
    kinds = holders(fmt.name)
    return kinds[0] if len(kinds) == 1 else None


def _match(base: Path, patterns: list[str], at: str) -> list[Path]:
    files: list[Path] = []
    for pattern in patterns:
        full = base / pattern
        found = instance_files(full) if full.is_dir() else sorted(Path(p) for p in glob.glob(str(full)))
        if not found:
            raise InputError(f"no instance file matches {pattern!r}", where=at)
        files.extend(p.resolve() for p in found)
    return files


def _generator(name: str, at: str):  # -> cosolve.generators.registry.Generator
    from cosolve.generators.registry import get_generator

    try:
        return get_generator(name)
    except CosolveError as e:
        raise InputError(str(e), where=at) from None


def _generate(spec: dict[str, Any], problem: str | None, folder: Path, at: str) -> list[Path]:
    from cosolve.io.formats import ALL_FORMATS
    from cosolve.problems.registry import get_kind

    generator = _generator(spec["generator"], at)
    params = dict(spec.get("params", {}))
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    if "count" in spec:  # seeds first_seed .. first_seed + count - 1
        seeds = range(int(spec.get("first_seed", 0)), int(spec.get("first_seed", 0)) + int(spec["count"]))
    else:
        seeds = spec.get("seeds", [0])
    for seed in seeds:
        try:
            inst = generator.make(problem=problem, **params, seed=seed)
        except TypeError as e:
            raise InputError(f"bad params for {generator.name}: {e}", where=at) from None
        except CosolveError as e:
            raise InputError(str(e), where=at) from None
        fmt = ALL_FORMATS[get_kind(inst.kind).formats[0]]
        path = folder / f"{inst.name or f'{generator.name}_s{seed}'}{fmt.suffix}"
        if not path.exists():
            fmt.write(inst, path)
        files.append(path)
    return files
