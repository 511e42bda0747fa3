"""``cosolve`` command line: ``solve``, ``methods``, ``info``, ``validate``, ``export``, ``generate``, ``train``,
``bench``, ``report``, ``portfolio``, ``conjoint``.

Every deliberate error (bad input, unknown names, bad limits) prints one line to stderr and
exits with code 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cosolve.cli import bench, conjoint, export, generate, info, methods, portfolio, report, solve, train, validate
from cosolve.errors import CosolveError

#: one module per subcommand, named as it
COMMANDS = {
    module.__name__.rpartition(".")[2]: module
    for module in (solve, methods, info, validate, export, generate, train, bench, report, portfolio, conjoint)
}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of a usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"cosolve: error: {message} (see: {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``command`` (a known subcommand) only that subcommand's: building
    every subcommand's help (method and distribution lists) costs start-up time a solve need not pay."""
    parser = _Parser(prog="cosolve", description="Learned and classical combinatorial optimisation solvers.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module in COMMANDS.items():
        if command is None or name == command:
            module.add_parser(sub)
    return parser


def _version() -> str:
    from cosolve import __version__

    return f"cosolve {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command].run(args)
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
