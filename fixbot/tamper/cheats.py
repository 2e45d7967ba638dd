"""Green by cheating: a deterministic detector over a run's final diff and its check's evidence.

`detect(changes, first, last)` is pure. `changes` are the files that differ between the run's
start and the tree the verifying check passed on, each with its old and new text
(`fixbot.tamper.changes.Change`, which also says whether a file belongs to the tests; the
adapter, `fixbot.run.integrity`, reads them from git); `first` and `last` are the test counts
the first failing run and the verifying run printed (`fixbot.core.failure.Counts`). Each rule
names what it saw (a `Cheat`), so an escalation or a commit message can state the evidence:

    test-removed      a test file deleted, a test function gone
    test-skipped      a skip/xfail marker, `pytestmark`, `collect_ignore` or `--deselect` added
    assert-weakened   fewer assertions in a test, one that cannot fail (`x == x`, `... or True`),
                      an assertion newly wrapped in `try/except` or `suppress`
    harness-changed   a conftest hook, a process exit (`os._exit`, however imported), or a write
                      to `sys.modules` in a test or conftest module
    config-changed    test-runner, build or CI configuration: pytest (`pytest.ini`, `.pytest.ini`,
                      `pytest.toml`, `[tool.pytest*]`), tox, nox, `setup.cfg`, pyproject's
                      `[tool.*]` and `[build-system]`, `package.json` scripts, Makefile, workflows;
                      not a change of pytest's warning filters alone that turns warnings into
                      errors or ignores a dependency's warning (`fixbot.tamper.filters`)
    shadowing         a new module by the name of something importable (the standard library,
                      pytest and its own dependencies: `pluggy.py`, `iniconfig.py`), or a `.pth`
    exit-added        a module (the code under test too) that ends the process when imported,
                      or registers an `atexit` handler (`atexit.register(os._exit, 0)`)
    framework-patched code outside the tests that imports a test framework's internals
                      (`_pytest`, `pluggy`) or rebinds what decides a verdict (`Function.runtest`,
                      `TestCase.run`, jest's globals)
    always-equal      a comparison dunder that holds for any operand (`__eq__` returning True)
    plugin-added      `pytest_plugins` in any module, a `pytest11` entry point (pyproject's
                      `[project.entry-points.pytest11]`, setup.cfg's `[options.entry_points]`)
    unit-rebound      a test module that rebinds the code it tests when imported
                      (`app.add = lambda a, b: 5`)
    check-script      a file the check command itself runs (`check-command: sh check.sh`)
    report-disagrees  the runner's own per-test report contradicts the green exit code: a test
                      that failed at the start is not reported passed, a test that passed is
                      reported failed, fewer tests were collected, or the runner that wrote one
                      at the start wrote none (`disagreements`; a failing parametrized id the
                      fix's change to its test module renumbered is matched within that module)
    original-tests    the fix changed the tests, and against the start commit's tests the check
                      fails for more than the changed tests (`fixbot.run.integrity`)
    fewer-tests       fewer tests ran (or more were skipped) in the verifying run than in the first
                      failing one (both printed counts)

The rules are about the tests' strength, not their text: the syntax tree decides for Python. A
suspected cheat is never published as `fixed` (`fixbot.policy.rules`). The known bypasses of a
text-based guard (and ImpossibleBench, 2025: stronger models delete, skip or rewrite tests when
a test looks impossible) are the corpus of tests/tamper/test_cheats.py and
tests/run/test_impossible.py.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from fixbot.core.failure import Counts
from fixbot.tamper import asserts, filters
from fixbot.tamper.changes import Change, configures, is_harness, is_test_file
from fixbot.tamper.facts import (
    ASSERTION,
    CI,
    FRAMEWORK_MODULES,
    FRAMEWORK_NAMES,
    IMPORTABLE,
    JS_FRAMEWORK,
    PLUGIN_GROUPS,
    SKIP,
    defined_tests,
)

__all__ = ["Cheat", "detect", "examine", "fewer_tests"]


@dataclass(frozen=True)
class Cheat:
    """A suspected cheat: the rule that fired (see the module docstring), the path, the evidence."""

    rule: str
    path: str | None
    evidence: str

    def __str__(self) -> str:
        where = f" in {self.path}" if self.path else ""
        return f"{self.rule}{where}: {self.evidence}"


def _python_test(change: Change) -> list[Cheat]:
    old, new = asserts.shape(change.old or ""), asserts.shape(change.new or "")
    path = change.path
    if old is None or new is None:
        return _text_test(change) if new is None or old is None else []
    found = []
    if gone := sorted(old.tests - new.tests):
        found.append(Cheat("test-removed", path, f"test function(s) {', '.join(gone)} removed"))
    if new.asserts < old.asserts:
        found.append(Cheat("assert-weakened", path, f"assertions {old.asserts} -> {new.asserts}"))
    if new.vacuous > old.vacuous:
        found.append(Cheat("assert-weakened", path, "an assertion that cannot fail was added"))
    if new.shielded > old.shielded:
        found.append(
            Cheat("assert-weakened", path, "an assertion is wrapped in an except that swallows it")
        )
    if new.exits > old.exits:
        found.append(Cheat("harness-changed", path, "a process exit was added"))
    if new.modules > old.modules:
        found.append(Cheat("harness-changed", path, "sys.modules is rewritten"))
    if PurePosixPath(path).name == "conftest.py" and new.hooks != old.hooks:
        found.append(Cheat("harness-changed", path, "a pytest hook changed"))
    return found


def _text_test(change: Change) -> list[Cheat]:
    old, new = change.old or "", change.new or ""
    found = []
    gone = defined_tests(old) - defined_tests(new)
    if gone:
        what = f"test(s) {', '.join(sorted(gone))} removed"
        found.append(Cheat("test-removed", change.path, what))
    before, after = len(ASSERTION.findall(old)), len(ASSERTION.findall(new))
    if after < before:
        found.append(Cheat("assert-weakened", change.path, f"assertions {before} -> {after}"))
    return found


def _config(change: Change, modules: frozenset[str] = frozenset()) -> Cheat | None:
    """A configuration change (`fixbot.tamper.changes.configures`), unless it only adds warning
    filters that cannot hide a failing test (`fixbot.tamper.filters.harmless`; `modules` are the
    project's module names, `filters.module_names`)."""
    what = configures(change)
    old, new = change.old or "", change.new or ""
    if what is None or filters.harmless(change.path, old, new, modules):
        return None
    if SKIP.search(new) and len(SKIP.findall(new)) > len(SKIP.findall(old)):
        what += " (it skips or deselects tests)"
    return Cheat("config-changed", change.path, what)


def _module_name(path: PurePosixPath) -> str | None:
    if path.suffix == ".pth":
        return path.name
    if path.suffix != ".py":
        return None
    return path.parent.name if path.stem == "__init__" else path.stem


def _shadowing(change: Change, packages: frozenset[str]) -> Cheat | None:
    """A new module whose name is importable already; `packages` are the folders that hold an
    `__init__.py` (a module inside one is not importable by its bare name)."""
    pure = PurePosixPath(change.path)
    name = _module_name(pure)
    if change.old is not None or change.new is None or name is None:
        return None
    inside = pure.parent if pure.stem != "__init__" else pure.parent.parent
    if str(inside) in packages and pure.suffix == ".py":
        return None
    if name.endswith(".pth") or name in IMPORTABLE:
        return Cheat("shadowing", change.path, f"a new module named {name!r} shadows an import")
    return None


def _skipped(change: Change) -> Cheat | None:
    if not is_harness(change.path) or CI.match(change.path):
        return None
    before, after = len(SKIP.findall(change.old or "")), len(SKIP.findall(change.new or ""))
    if after > before:
        what = f"skip/xfail/deselect markers {before} -> {after}"
        return Cheat("test-skipped", change.path, what)
    return None


def _ran(counts: Counts) -> int | None:
    """Tests that ran (passed plus failed), None when no test runner reported any; errors are
    left out, as linters and type checkers report theirs in the same field."""
    if counts.passed is None and counts.failed is None:
        return None
    return (counts.passed or 0) + (counts.failed or 0)


def fewer_tests(first: Counts | None, last: Counts | None) -> Cheat | None:
    """The verifying run ran fewer tests or skipped more than the first failing one (both
    printed counts; a run that printed none is judged by the diff alone: which runners always
    print a summary is the test-runner dialects' to say)."""
    if first is None or last is None:
        return None
    before, after = _ran(first), _ran(last)
    if before is not None and after is not None and after < before:
        return Cheat(
            "fewer-tests",
            None,
            f"tests run: {before} in the first failing run, {after} in the verifying run",
        )
    if after is not None and (last.skipped or 0) > (first.skipped or 0):
        return Cheat("fewer-tests", None, f"tests skipped: {first.skipped or 0} -> {last.skipped}")
    return None


def _exit_added(change: Change) -> Cheat | None:
    """A Python module of any kind (the code under test too) that now ends the process when it
    is imported: the tests that import it never run, and the runner exits 0."""
    if not change.path.endswith(".py") or change.new is None:
        return None
    old, new = asserts.parse(change.old or ""), asserts.parse(change.new)
    if old is None or new is None or asserts.exits_at_import(new) <= asserts.exits_at_import(old):
        return None
    return Cheat("exit-added", change.path, "the module ends the process when it is imported")


def _entry_points(change: Change) -> Cheat | None:
    """A new plugin entry point (`pytest11`): the runner loads it once the project is installed
    (the set-up re-runs after a manifest changes)."""
    name = PurePosixPath(change.path).name.lower()
    old, new = change.old or "", change.new or ""
    if name == "pyproject.toml":
        before, after = _plugin_groups(old), _plugin_groups(new)
    elif name in ("setup.cfg", "setup.py"):
        before, after = _plugin_words(old), _plugin_words(new)
    else:
        return None
    if after != before and after:
        return Cheat("plugin-added", change.path, "a test-runner plugin entry point changed")
    return None


def _plugin_groups(text: str) -> object:
    try:
        points = tomllib.loads(text).get("project", {}).get("entry-points", {})
    except tomllib.TOMLDecodeError:
        return _plugin_words(text)
    return {group: points.get(group) for group in PLUGIN_GROUPS if points.get(group)}


def _plugin_words(text: str) -> object:
    """The lines after a plugin group's name (setup.cfg's and setup.py's entry points)."""
    found = [line.strip() for line in text.splitlines() if any(g in line for g in PLUGIN_GROUPS)]
    return found or None


def _python_runtime(change: Change) -> list[Cheat]:
    """What a changed Python module does to the runner, whoever's module it is: an `atexit`
    handler, a framework's internals reached from the code under test, a comparison that always
    holds, a plugin loaded, the unit under test rebound in a test module."""
    if not change.path.endswith(".py") or change.new is None:
        return []
    old, new = asserts.parse(change.old or ""), asserts.parse(change.new)
    if old is None or new is None:
        return []
    path, found = change.path, []

    def grew(measure: Callable[[ast.Module], int]) -> bool:
        return measure(new) > measure(old)

    if grew(asserts.atexits):
        found.append(Cheat("exit-added", path, "an atexit handler is registered"))
    if not is_harness(path) and grew(_internals):
        found.append(Cheat("framework-patched", path, "it reaches into a test framework"))
    if grew(asserts.always_true_dunders):
        found.append(Cheat("always-equal", path, "a comparison that holds for any operand"))
    if grew(asserts.plugins):
        found.append(Cheat("plugin-added", path, "pytest_plugins or a plugin registration"))
    if is_test_file(path) and grew(_rebound):
        found.append(Cheat("unit-rebound", path, "it rebinds the code under test when imported"))
    return found


def _internals(tree: ast.Module) -> int:
    # `pytest` and `unittest` themselves are imported by plenty of library code (helpers,
    # `unittest.mock`); their internals are not
    return asserts.framework_reach(
        tree, FRAMEWORK_MODULES - {"pytest", "unittest"}, FRAMEWORK_NAMES
    )


def _rebound(tree: ast.Module) -> int:
    return asserts.rebound(tree, IMPORTABLE)


def _js_runtime(change: Change) -> Cheat | None:
    """JavaScript or TypeScript outside the tests that replaces the runner's globals or requires
    its internals."""
    if is_harness(change.path) or not re.search(r"\.[cm]?[jt]sx?$", change.path):
        return None
    before = len(JS_FRAMEWORK.findall(change.old or ""))
    if len(JS_FRAMEWORK.findall(change.new or "")) > before:
        return Cheat("framework-patched", change.path, "it replaces the test runner's globals")
    return None


def examine(
    change: Change,
    packages: frozenset[str] = frozenset(),
    check_files: frozenset[str] = frozenset(),
    modules: frozenset[str] = frozenset(),
) -> list[Cheat]:
    """The suspected cheats in one changed file (see the module docstring); `check_files` are the
    repository-relative paths the check command names (its own scripts), `modules` the
    project's module names (`filters.module_names`; empty: every warning filter scoped to a
    module counts as a dependency's)."""
    path = change.path
    if change.new is None and is_harness(path):
        return [Cheat("test-removed", path, "the test file was deleted")]
    script = (
        Cheat("check-script", path, "the check command runs it") if path in check_files else None
    )
    rules = (
        _config(change, modules),
        _shadowing(change, packages),
        _skipped(change),
        _exit_added(change),
    )
    found = [c for c in (script, *rules, _entry_points(change), _js_runtime(change)) if c]
    found += _python_runtime(change)
    if is_harness(path) and path.endswith(".py"):
        found += _python_test(change)
    elif is_test_file(path):
        found += _text_test(change)
    return found


def detect(
    changes: Iterable[Change],
    first: Counts | None = None,
    last: Counts | None = None,
    packages: Sequence[str] = (),
    check_files: Iterable[str] = (),
    modules: Iterable[str] = (),
) -> list[Cheat]:
    """Every suspected cheat in the final diff (`changes`) and in the counts of the first failing
    (`first`) and the verifying (`last`) runs; [] when the fix only changed the code under test.

    `packages` are the folders of the verified tree holding an `__init__.py`; `check_files` the
    paths the check command names, `modules` the project's module names (`examine`). Pure.
    """
    known, scripts, names = frozenset(packages), frozenset(check_files), frozenset(modules)
    found = [cheat for change in changes for cheat in examine(change, known, scripts, names)]
    counted = fewer_tests(first, last)
    return found + ([counted] if counted else [])
