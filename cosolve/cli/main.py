"""``cosolve`` command line: ``solve``, ``methods``, ``info``, ``validate``, ``export``, ``generate``, ``train``,
``bench``, ``report``, ``portfolio``, ``conjoint``.

Every deliberate error (bad input, unknown names, bad limits) prints one line to stderr and
exits with code 2; no traceback.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from cosolve.errors import CosolveError

#: one module per subcommand, named as it (``cosolve.cli.NAME``), imported only when used
COMMANDS = ("solve", "methods", "info", "validate", "export", "generate", "train", "bench", "report", "portfolio", "conjoint")


def command(name: str) -> ModuleType:
    """The module of subcommand ``name``: its ``add_parser(sub)`` and ``run(args)``."""
    return importlib.import_module(f"cosolve.cli.{name}")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"cosolve: error: {message} (see: {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """With ``only`` (a known subcommand) that subcommand's parser alone, else every subcommand by
    its one-line ``SUMMARY`` (what ``cosolve --help`` lists): building a subcommand's whole parser can
    import what its help lists (methods, distributions), which neither a solve nor ``cosolve
    --help`` need pay for."""
    parser = _Parser(prog="cosolve", description="Learned and classical combinatorial optimisation solvers.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        if name == only:
            command(name).add_parser(sub)
        elif only is None:
            sub.add_parser(name, help=command(name).SUMMARY)
    return parser


def _version() -> str:
    from cosolve import __version__

    return f"cosolve {__version__}"


#: commands whose process exits without the interpreter's final garbage collection (see main)
QUICK_EXIT = frozenset({"solve"})


def main(argv: Sequence[str] | None = None) -> int:
    whole_process = argv is None  # the console script or python -m cosolve, not a call from Python
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if whole_process and args.command in QUICK_EXIT:
        # the collection of numba's and llvmlite's objects at interpreter exit took 0.3 s of a
        # one-second solve; a solve has closed every file it wrote, so the process skips it
        # (exit handlers still run and the standard streams are still flushed)
        atexit.register(gc.freeze)
    try:
        return command(args.command).run(args)
    except CosolveError as exc:
        print(f"cosolve: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cosolve: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
