"""Errors that cosolve reports to users as one line (exit code 2 on the CLI)."""

from __future__ import annotations


class CosolveError(Exception):
    """Base class of every error cosolve raises on purpose."""


class InputError(CosolveError, ValueError):
    """Bad input: a missing or malformed file, a wrong shape, an impossible instance.

    ``where`` names the place (``path`` or ``path:line``) and prefixes the message.
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class UnknownFormatError(InputError):
    """A file whose format cosolve cannot tell from its name or content (the message says how to
    name one; a caller with no such option, as training on a folder, may say something else)."""


class UsageError(CosolveError, ValueError):
    """A request that cannot be served: unknown method/option, unsupported problem, bad limit."""
