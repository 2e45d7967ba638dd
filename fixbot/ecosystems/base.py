"""The one interface every ecosystem module fills in: `Ecosystem` and its four parts.

An ecosystem is data plus a few pure functions; reading the repository is limited to the files
an ecosystem names (`recognise`, the default commands) and the bounded `tree.Tree` the registry
hands to `Missing.holds`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.tree import Tree


def whole(name: str) -> str:
    """The reported name as it is (the package a loader names is the one to install)."""
    return name


def first_part(name: str) -> str:
    """The first `/`-separated part of a reported name (`rspec/core` -> `rspec`)."""
    return name.split("/")[0]


def never(name: str, tree: Tree) -> bool:
    """The repository holds no package of this name (a loader that names only dependencies)."""
    return False


@dataclass(frozen=True)
class Tests:
    """Which files are its tests, how a test and an assertion are written, and the words its
    runners skip a test with.

    `names`: a regular expression a test module's file name matches whole (`test_x.py`);
    `sources`: the suffixes of its source files, which are tests too inside one of `folders`
    (`tests/helpers.py`, Cargo's integration tests `tests/api.rs`); `skips`: regular
    expressions of a skipped, ignored or deselected test (counted in a diff by
    `fixbot.tamper.facts.SKIP`); `definitions`: regular expressions of a test's definition,
    its name in the one group (a test gone from a diff is named by them); `assertions`: regular
    expressions of one assertion (counted before and after a change to a test file).
    """

    names: str
    sources: tuple[str, ...]
    folders: frozenset[str] = frozenset({"tests", "test"})
    skips: tuple[str, ...] = ()
    definitions: tuple[str, ...] = ()
    assertions: tuple[str, ...] = ()

    def holds(self, path: str) -> bool:
        """True when `path` (repository-relative, `/`-separated) is one of its test files."""
        pure = PurePosixPath(path)
        if re.fullmatch(self.names, pure.name):
            return True
        in_tests = any(part.lower() in self.folders for part in pure.parts[:-1])
        return in_tests and pure.suffix.lower() in self.sources


@dataclass(frozen=True)
class Dependencies:
    """Where the project declares its dependencies and where they end up.

    `manifests` and `locks`: file names (any folder) whose change makes the set-up due again;
    `pattern`: a regular expression further manifests' paths match whole
    (`requirements-dev.txt`, `requirements/test.in`); `declared_in`:
    repository-relative files where a project keeps its test dependencies, most specific
    first; `generated`: folder names of installed packages and build output, never the
    project's own code; `installed`: the repository-relative folder its installed packages'
    sources are read from (`node_modules`), None when its tool must be asked.
    """

    manifests: tuple[str, ...]
    locks: tuple[str, ...] = ()
    pattern: str | None = None
    declared_in: tuple[str, ...] = ()
    generated: frozenset[str] = frozenset()
    installed: str | None = None

    def holds(self, path: str) -> bool:
        """True when `path` names one of its manifests or lock files."""
        pure = PurePosixPath(path)
        if pure.name in self.manifests or pure.name in self.locks:
            return True
        return self.pattern is not None and re.fullmatch(self.pattern, path) is not None


@dataclass(frozen=True)
class Missing:
    """How a missing package shows in a log, and what the user is told to do about it.

    `loader`: the loader's message, the package in group `name` (a second spelling in group
    `other`); `said`: text that alone says a dependency is missing (None: the loader's words
    cannot tell a missing package from a typo, as Python's `No module named`); `failed`: text
    of any failed import; `top`: the package from the reported name; `holds(name, tree)`:
    the repository holds `name` itself (then the failure is the code's); `fetches_declared`:
    the build tool fetches what the manifest declares (a declared name is then the code's
    problem); `advice(missing, where)`: the sentence telling the user how the set-up gets it,
    `where` naming the set-up setting.
    """

    loader: re.Pattern[str]
    advice: Callable[[MissingDependency, str], str]
    said: str | None = None
    failed: str | None = None
    top: Callable[[str], str] = whole
    holds: Callable[[str, Tree], bool] = never
    fetches_declared: bool = False


# Whether a root-relative path exists: a folder on disk (`Path`), or a predicate over its
# names (a reader that follows no link, a tree in git).
Exists = Callable[[str], bool]
Choices = tuple[tuple[str, str], ...]


def exists_in(where: Path | Exists) -> Exists:
    """`where` as a predicate over root-relative names (a `Path`: the file exists under it)."""
    if isinstance(where, Path):
        return lambda name: (where / name).exists()
    return where


def first(choices: Choices, where: Path | Exists) -> tuple[str, str] | None:
    """The first (file, command) of `choices` whose file exists at `where` ("": always)."""
    exists = exists_in(where)
    return next(((f, command) for f, command in choices if not f or exists(f)), None)


@dataclass(frozen=True)
class Commands:
    """The default set-up and check: (file at the root, command) pairs, the first whose file
    exists wins ("" for always; see `first`)."""

    setup: Choices = ()
    check: Choices = ()


@dataclass(frozen=True)
class Ecosystem:
    """Every fact fixbot uses about one language ecosystem.

    `markers`: the root files that make a folder one of its projects;
    `dialects`: the names of its runners' output dialects (`fixbot.logs.dialects.BY_NAME`);
    `coverage`: how its per-test coverage is taken for localization (None: not at all);
    `runner_config`: regular expressions of the names of its test-runner, linter, build and
    package manager configuration files (`pytest.ini`, `.npmrc`), or of a path's last parts
    where the name alone says nothing (`\\.cargo/config\\.toml`), which a fix may not change
    (`fixbot.tamper.facts`).
    """

    name: str
    markers: tuple[str, ...]
    tests: Tests
    dependencies: Dependencies
    commands: Commands
    missing: Missing | None = None
    dialects: tuple[str, ...] = ()
    coverage: str | None = None
    runner_config: tuple[str, ...] = ()

    def recognise(self, root: Path | Exists) -> bool:
        """True when the root (a folder, or a predicate over its names) has one of `markers`:
        a project of this ecosystem."""
        exists = exists_in(root)
        return any(exists(marker) for marker in self.markers)

    def default_setup(self, root: Path | Exists) -> str | None:
        """The set-up command a project at `root` most likely wants, None when none is due
        (`first` of `commands.setup`, which also names the file that chose it)."""
        chosen = first(self.commands.setup, root)
        return chosen[1] if chosen else None

    def default_check(self, root: Path | Exists) -> str | None:
        """The check command that runs a project's tests at `root`, None when it has none."""
        chosen = first(self.commands.check, root)
        return chosen[1] if chosen else None
