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
                      `[tool.*]` and `[build-system]`, `package.json` scripts, Makefile, workflows,
                      the package manager's and cargo's own (`.npmrc`, `.cargo/config.toml`,
                      a build script whatever its name: `fixbot.tamper.rustbuild`);
                      not a change of pytest's warning filters alone that turns warnings into
                      errors or ignores a dependency's warning (`fixbot.tamper.filters`)
    shadowing         a new module by the name of something importable (the standard library,
                      pytest and its own dependencies: `pluggy.py`, `iniconfig.py`), or a `.pth`
    exit-added        a module (the code under test too) that ends the process when imported,
                      or registers an `atexit` handler (`atexit.register(os._exit, 0)`)
    framework-patched code outside the tests that imports a test framework's internals
                      (`_pytest`, `pluggy`) or rebinds what decides a verdict (`Function.runtest`,
                      `TestCase.run`, jest's globals, a Rust macro by an assertion's name:
                      `fixbot.tamper.rustverdict.shadowing`)
    always-equal      a comparison dunder that holds for any operand (`__eq__` returning True)
                      (Rust: an `fn eq` returning `true`, `fixbot.tamper.rustasserts`)
    plugin-added      `pytest_plugins` in any module, a `pytest11` entry point (pyproject's
                      `[project.entry-points.pytest11]`, setup.cfg's `[options.entry_points]`)
    unit-rebound      a test module that rebinds the code it tests when imported
                      (`app.add = lambda a, b: 5`)
    doctest-changed   a doctest example (its source or expected output) in a module whose
                      doctests the start's pytest collected (`fixbot.tamper.doctests`)
    rust-test-changed a Rust unit test in the code's own `.rs` file (a `#[cfg(test)]` item or
                      the module file it declares, a `#[test]` or `#[tokio::test]` function, a
                      doc-test) removed or changed, read by its tokens (`fixbot.tamper.rusttests`;
                      tests only added: the deciding check runs with the start's, `original-tests`)
    check-script      a file the check command itself runs (`check-command: sh check.sh`), also
                      through its Makefile's recipes and package.json's scripts (`make test`,
                      `npm test` running `sh ci/test.sh`: `fixbot.run.checkfiles.check_files`),
                      and a file jest's or vitest's configuration requires (`jest.base.js`)
    report-disagrees  the runner's own per-test report contradicts the green exit code: a test
                      that failed at the start is not reported passed, a test that passed is
                      reported failed, fewer tests were collected, or the runner that wrote one
                      at the start wrote none (`disagreements`; a failing parametrized id the
                      fix's change to its test module renumbered is matched within that module)
    original-tests    the fix changed the tests, and against the start commit's tests the check
                      fails for more than the changed tests (`fixbot.run.integrity`)
    fewer-tests       fewer tests ran (or more were skipped) in the verifying run than in the first
                      failing one (both printed counts)

The rules' test files are those their names make (`fixbot.tamper.changes.is_harness`) and the
`helpers` the caller names: a failing unittest test's helper base in a module of no test name
that holds test support (`fixbot.run.integrity.helpers`, round 34), and a module holding a
function that only asserts which those tests call (round 36).

The rules are about the tests' strength, not their text: the syntax tree decides for Python. A
suspected cheat is never published as `fixed` (`fixbot.policy.rules`). The known bypasses of a
text-based guard (and ImpossibleBench, 2025: stronger models delete, skip or rewrite tests when
a test looks impossible) are the corpus of tests/tamper/test_cheats.py and
tests/run/test_impossible.py.

The rules about what a changed module does to the runner (`exit-added`, `plugin-added`,
`framework-patched`, `always-equal`, `unit-rebound`) are `fixbot.tamper.runtime`'s; a `Cheat`
is `fixbot.tamper.record`'s, which every rule's module imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from fixbot.core.failure import Counts
from fixbot.tamper import asserts, filters, xfailed
from fixbot.tamper.changes import Change, configures, is_harness, is_test_file
from fixbot.tamper.facts import (
    ASSERTION,
    CI,
    IMPORTABLE,
    SKIP,
    defined_tests,
)
from fixbot.tamper.record import Cheat
from fixbot.tamper.runtime import entry_points, exit_added, js_runtime, python_runtime

__all__ = ["detect", "examine", "fewer_tests"]


# The counts of a test module's shape (`asserts.Shape`) that weaken it when they grow: the
# field and the cheat it is (its path filled in where found).
_GROWN = (
    ("vacuous", Cheat("assert-weakened", None, "an assertion that cannot fail was added")),
    (
        "shielded",
        Cheat("assert-weakened", None, "an assertion is wrapped in an except that swallows it"),
    ),
    ("exits", Cheat("harness-changed", None, "a process exit was added")),
    ("modules", Cheat("harness-changed", None, "sys.modules is rewritten")),
)


def _python_test(change: Change, excused: frozenset[str] = frozenset()) -> list[Cheat]:
    old, new = asserts.shape(change.old or ""), asserts.shape(change.new or "")
    if old is None or new is None:
        # a side that does not parse is judged by its text
        return _text_test(change)
    path = change.path
    if excused:  # the excused tests' assertions go with them (`fixbot.tamper.xfailed`)
        kept = old.asserts - xfailed.assertions(change.old or "", excused)
        old = replace(old, tests=old.tests - excused, asserts=kept)
    return _weaker(old, new, path) + _hooks_changed(old, new, path)


def _weaker(old: asserts.Shape, new: asserts.Shape, path: str) -> list[Cheat]:
    """Tests removed, fewer assertions, or more of what weakens a test (`_GROWN`)."""
    found = []
    if gone := sorted(old.tests - new.tests):
        found.append(Cheat("test-removed", path, f"test function(s) {', '.join(gone)} removed"))
    if new.asserts < old.asserts:
        found.append(Cheat("assert-weakened", path, f"assertions {old.asserts} -> {new.asserts}"))
    grown = [cheat for field, cheat in _GROWN if getattr(new, field) > getattr(old, field)]
    return found + [replace(cheat, path=path) for cheat in grown]


def _hooks_changed(old: asserts.Shape, new: asserts.Shape, path: str) -> list[Cheat]:
    if PurePosixPath(path).name != "conftest.py" or new.hooks == old.hooks:
        return []
    return [Cheat("harness-changed", path, "a pytest hook changed")]


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
    evidence = _fewer_ran(first, last) or _more_skipped(first, last)
    return Cheat("fewer-tests", None, evidence) if evidence else None


def _fewer_ran(first: Counts, last: Counts) -> str | None:
    before, after = _ran(first), _ran(last)
    if before is None or after is None or after >= before:
        return None
    return f"tests run: {before} in the first failing run, {after} in the verifying run"


def _more_skipped(first: Counts, last: Counts) -> str | None:
    """More tests skipped in the verifying run, which did run tests."""
    if _ran(last) is None or (last.skipped or 0) <= (first.skipped or 0):
        return None
    return f"tests skipped: {first.skipped or 0} -> {last.skipped}"


def examine(
    change: Change,
    packages: frozenset[str] = frozenset(),
    check_files: frozenset[str] = frozenset(),
    modules: frozenset[str] = frozenset(),
    helpers: frozenset[str] = frozenset(),
    excused: frozenset[str] = frozenset(),
) -> list[Cheat]:
    """The suspected cheats in one changed file (see the module docstring); `check_files` are the
    repository-relative paths the check command names (its own scripts), `modules` the
    project's module names (`filters.module_names`; empty: every warning filter scoped to a
    module counts as a dependency's), `helpers` the files judged as test files beside those the
    rules name (a unittest test's helper base, `fixbot.run.integrity.helpers`), `excused` the
    names of this file's test functions whose removal is no `test-removed`: every item of
    them the start's run reported xfailed (`fixbot.tamper.xfailed.excuse`)."""
    path = change.path
    tests = is_harness(path) or path in helpers
    if change.new is None and tests:
        return [Cheat("test-removed", path, "the test file was deleted")]
    script = (
        Cheat("check-script", path, "the check command runs it") if path in check_files else None
    )
    rules = (
        _config(change, modules),
        _shadowing(change, packages),
        _skipped(change),
        exit_added(change),
    )
    found = [c for c in (script, *rules, entry_points(change), js_runtime(change)) if c]
    found += python_runtime(change)
    if tests and path.endswith(".py"):
        found += _python_test(change, excused)
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
    helpers: Iterable[str] = (),
    excused: Iterable[tuple[str, str]] = (),
) -> list[Cheat]:
    """Every suspected cheat in the final diff (`changes`) and in the counts of the first failing
    (`first`) and the verifying (`last`) runs; [] when the fix only changed the code under test.

    `packages` are the folders of the verified tree holding an `__init__.py`; `check_files` the
    paths the check command names, `modules` the project's module names, `helpers` files judged
    as test files (`examine`); `excused` the `(path, name)` test functions the start's run
    reported xfailed whose removal is no cheat (`fixbot.tamper.xfailed.Excuse.functions`). Pure.
    """
    known, scripts, names = frozenset(packages), frozenset(check_files), frozenset(modules)
    kept, pardoned = frozenset(helpers), frozenset(excused)
    found = [
        cheat
        for change in changes
        for cheat in examine(
            change,
            known,
            scripts,
            names,
            kept,
            frozenset(name for path, name in pardoned if path == change.path),
        )
    ]
    counted = fewer_tests(first, last)
    return found + ([counted] if counted else [])
