"""Registries that are a folder: every module of a package that exports a member is one.

pre-commit keeps one module per language behind one interface; fixbot's events, comment
commands and edit protocols do the same, and this finds them, so that adding one is writing its
module (README.md, "Extending fixbot"), with no list to edit beside it.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import TypeVar

T = TypeVar("T")


def members(package: ModuleType, attribute: str, kind: type[T]) -> list[T]:
    """The `kind` instances named `attribute` in the modules of `package`, in module name order.

    A module may export one instance or a tuple of them under `attribute`; modules without it
    (the registry, the base, helpers) and values of another type are skipped. Every module of
    the package's `__path__` is imported. Raises whatever importing a module raises (an
    `ImportError` or `SyntaxError` names the module to fix).
    """
    found: list[T] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        value = getattr(module, attribute, None)
        values = value if isinstance(value, tuple) else (value,)
        found.extend(item for item in values if isinstance(item, kind))
    return found
