"""Every ecosystem fixbot knows: the `ECOSYSTEM` of each module of this package, and the
questions the rest of fixbot asks across all of them.

A new ecosystem is a module next to this one exporting `ECOSYSTEM = base.Ecosystem(...)`;
nothing else lists it (docs/ARCHITECTURE.md, "Where to add things").
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import fixbot.ecosystems as package
from fixbot.core.plugins import members
from fixbot.core.secrets import DEFAULT_STATE_DIR
from fixbot.ecosystems.base import Ecosystem, Exists
from fixbot.ecosystems.tree import Tree

# Never the project's own code, whatever its ecosystem: git's folder and fixbot's state.
ALWAYS_SKIPPED = frozenset({".git", DEFAULT_STATE_DIR})


@cache
def all_ecosystems() -> tuple[Ecosystem, ...]:
    """The ecosystems, in their modules' name order (found once per process)."""
    return tuple(members(package, "ECOSYSTEM", Ecosystem))


def names() -> list[str]:
    """The names of the ecosystems, in the registry's order."""
    return [ecosystem.name for ecosystem in all_ecosystems()]


def find(name: str) -> Ecosystem | None:
    """The ecosystem called `name`, None when fixbot knows none (a state file of an older
    fixbot may name one by another name)."""
    return next((e for e in all_ecosystems() if e.name == name), None)


def recognised(root: Path | Exists) -> tuple[Ecosystem, ...]:
    """The ecosystems whose projects the root is (a folder, or a predicate over its names; a
    Python package with a JavaScript front end is both), in the registry's order."""
    return tuple(e for e in all_ecosystems() if e.recognise(root))


def is_test_file(path: str) -> bool:
    """True when `path` (repository-relative, `/`-separated) is a test file of any ecosystem."""
    return any(e.tests.holds(path) for e in all_ecosystems())


def is_manifest(path: str) -> bool:
    """True when `path` names a dependency manifest or lock file of any ecosystem."""
    return any(e.dependencies.holds(path) for e in all_ecosystems())


def joined(parts: list[str]) -> str:
    """One regular expression matching any of `parts` (each kept whole by a group)."""
    return "|".join(f"(?:{part})" for part in parts) or "(?!)"


def skips() -> str:
    """A regular expression of the words any ecosystem's runners skip a test with."""
    return joined([skip for e in all_ecosystems() for skip in e.tests.skips])


def definitions() -> str:
    """A regular expression of any ecosystem's test definition, the test's name in the one
    group of the alternative that matched (`re.Match.lastindex`)."""
    return joined([d for e in all_ecosystems() for d in e.tests.definitions])


def assertions() -> str:
    """A regular expression of one assertion in any ecosystem's tests."""
    return joined([a for e in all_ecosystems() for a in e.tests.assertions])


def runner_config() -> str:
    """A regular expression of every ecosystem's test-runner, linter and build configuration
    file names (to be matched whole)."""
    return joined([name for e in all_ecosystems() for name in e.runner_config])


def missing_said() -> str:
    """A regular expression of the log text that alone says a dependency is missing."""
    return joined([e.missing.said for e in all_ecosystems() if e.missing and e.missing.said])


def import_failed() -> str:
    """A regular expression of the log text of any failed import."""
    return joined([e.missing.failed for e in all_ecosystems() if e.missing and e.missing.failed])


def generated() -> frozenset[str]:
    """Folder names that hold installed packages or build output in any ecosystem, and git's
    and fixbot's own."""
    return ALWAYS_SKIPPED.union(*(e.dependencies.generated for e in all_ecosystems()))


def tree(root: Path) -> Tree:
    """The repository at `root`, to be walked without any ecosystem's generated folders."""
    return Tree(root, generated())


def missing_package(text: str) -> tuple[Ecosystem, str, int] | None:
    """(the ecosystem, the package, where the loader's message starts in `text`) of the first
    package a loader reported missing in `text` (`base.Missing.top` of the reported name), None
    when no loader said so."""
    found = [
        (match.start(), index, e, e.missing, match)
        for index, e in enumerate(all_ecosystems())
        if e.missing is not None and (match := e.missing.loader.search(text))
    ]
    if not found:
        return None
    start, _, ecosystem, missing, match = min(found, key=lambda item: (item[0], item[1]))
    reported = match.group("name") or match.groupdict().get("other") or ""
    return ecosystem, missing.top(reported), start
