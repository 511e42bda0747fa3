"""Registries: names to registered things (methods, problem kinds, file formats, instance
generators, portfolio strategies), with one way to find the modules that register them.

A :class:`Registry` is filled by modules that call :meth:`Registry.register` when imported. On the
first lookup it imports its ``builtin`` modules (named as strings, so that listing stays cheap and
the registry's own module imports none of them), then the modules installed packages name in its
entry-point ``group``, and then those named in the environment variable ``COSOLVE_PLUGINS``
(comma-separated module names; a plugin module may register into any registry). Registered things
import their heavy dependencies (torch, solvers) inside functions.

The method registry :data:`METHODS` lives here, with :func:`register`; its built-in modules are
named by the layer that holds them (:mod:`cosolve.method_catalog`). ``auto`` is not a method:
:class:`cosolve.solver.Solver` turns it into the problem kind's default method.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Generic, TypeVar

from cosolve.core.lazy_exports import lazy_exports
from cosolve.errors import UsageError

if TYPE_CHECKING:
    from cosolve.core.method import Method

T = TypeVar("T")

#: The method name that stands for each problem kind's default method.
AUTO = "auto"

_plugins_loaded = False


def load_plugins() -> None:
    """Import the modules named in ``COSOLVE_PLUGINS`` (once per process)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for module in filter(None, (m.strip() for m in os.environ.get("COSOLVE_PLUGINS", "").split(","))):
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise UsageError(f"COSOLVE_PLUGINS: cannot import {module!r}: {e}") from None


class Registry(Mapping[str, T], Generic[T]):
    """Names to registered things of one sort (``what``: "method", "problem", ...), read like a
    dict once loaded (iteration in registration order, or sorted by name with ``sort=True``).

    ``builtin``: modules that register the built-in ones (imported on the first lookup);
    ``group``: the entry-point group of installed packages' modules that register more;
    ``name_of``: how a registered thing says its name (default: its ``name`` attribute);
    ``plural``: the word for several in messages (default: ``what`` + "s").
    """

    def __init__(
        self,
        what: str,
        *,
        builtin: tuple[str, ...] = (),
        group: str | None = None,
        name_of: Callable[[T], str] | None = None,
        plural: str | None = None,
        sort: bool = False,
    ) -> None:
        self.what = what
        self.plural = plural or f"{what}s"
        self.builtin = builtin
        self.group = group
        self.sort = sort
        self._name_of = name_of or (lambda item: item.name)  # type: ignore[attr-defined]
        self._items: dict[str, T] = {}
        self._loaded = False

    def register(self, item: T) -> T:
        """Add ``item`` under its name (usable as a class decorator); a second, different thing
        under the same name is refused."""
        name = self._name_of(item)
        if name in self._items and self._items[name] != item:
            raise ValueError(f"{self.what} name {name!r} is registered twice")
        self._items[name] = item
        return item

    def load(self, extra: tuple[str, ...] = ()) -> Registry[T]:
        """Import the built-in modules (and ``extra`` ones), the group's entry points and the
        plugins, once; returns self."""
        for module in extra:
            importlib.import_module(module)
        if not self._loaded:
            self._loaded = True
            for module in self.builtin:
                importlib.import_module(module)
            if self.group is not None:
                for ep in entry_points(group=self.group):
                    importlib.import_module(ep.value)
            load_plugins()
        return self

    def lookup(self, name: str, *, also: tuple[str, ...] = ()) -> T:
        """The thing called ``name``; an unknown name is a :class:`UsageError` listing the valid
        ones (``also``: names valid beside the registered ones, such as ``auto``)."""
        self.load()
        if name not in self._items:
            raise UsageError(f"unknown {self.what} {name!r}; valid {self.plural}: {', '.join([*also, *self])}")
        return self._items[name]

    def __getitem__(self, name: str) -> T:
        self.load()
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(sorted(self._items) if self.sort else list(self._items))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {', '.join(self._items)})"


#: Every method by name (sorted); built-in methods are registered by the modules
#: :data:`cosolve.method_catalog.BUILTIN_METHOD_MODULES` names.
METHODS: Registry[type[Method]] = Registry("method", group="cosolve.methods", sort=True)


def register(cls: type[Method]) -> type[Method]:
    """Class decorator: make the method ``cls`` available under ``cls.name``."""
    return METHODS.register(cls)


# ``methods`` and ``get_method`` moved to cosolve.method_catalog (they load the built-in method
# modules, which this module must not name): the old names forward there, with a warning.
__getattr__, _ = lazy_exports(
    __name__,
    {
        "methods": "cosolve.method_catalog",
        "get_method": "cosolve.method_catalog",
        "BUILTIN_MODULES": "cosolve.method_catalog:BUILTIN_METHOD_MODULES",
    },
    moved=True,
)
