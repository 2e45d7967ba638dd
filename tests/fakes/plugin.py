"""A new module dropped into one of fixbot's registry folders, the README's way ("Extending
fixbot"), without writing into the package: the test's folder joins the package's `__path__`,
and the module and the registries' caches are forgotten afterwards."""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.fakes.paths import ROOT

EXTENDING = ROOT / "tests" / "data" / "extending"
AddModule = Callable[[ModuleType, Path, Callable[[], object]], None]


@pytest.fixture
def add_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AddModule]:
    """`add_module(package, source, registry_function)`: the module file `source` (under
    tests/data/extending) as a module of `package`, the registry found anew."""
    added: list[str] = []
    caches: list[Callable[[], object]] = []

    def add(package: ModuleType, source: Path, registry: Callable[[], object]) -> None:
        folder = tmp_path / package.__name__
        folder.mkdir(exist_ok=True)
        shutil.copy(source, folder / source.name)
        monkeypatch.setattr(package, "__path__", [*package.__path__, str(folder)])
        importlib.invalidate_caches()
        added.append(f"{package.__name__}.{source.stem}")
        clear = registry.cache_clear
        caches.append(clear)
        clear()

    yield add
    for name in added:
        sys.modules.pop(name, None)
    for clear in caches:
        clear()
