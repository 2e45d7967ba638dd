"""The test-tampering guard: pure checks over a file's old and new text.

Unless `allow-test-edits` is set, an edit is refused when it
- deletes a test file or a test function, adds a skip/xfail marker, removes an assert from a
  test, or adds an assertion that cannot fail (`assert x == x`, `assert True`);
- touches how the check runs: CI configuration (`.github/**`, `.gitlab-ci.yml`, ...), the
  test runners' and linters' configuration (`pytest.ini`, `tox.ini`, `noxfile.py`,
  `jest.config.*`, `vitest.config.*`, `ruff.toml`, `mypy.ini`, `.eslintrc*`, `Makefile`, ...),
  their sections in `pyproject.toml` / `setup.cfg` and the `scripts` of `package.json` (but
  not a change of pytest's `filterwarnings` alone that makes warnings errors or ignores a
  dependency's warning: `fixbot.tamper.filters`);
- changes a `conftest.py` hook (`pytest_*` functions: `pytest_sessionfinish` setting
  `session.exitstatus = 0`) or adds exit-status, collection or plugin tricks to it;
- creates or edits a module that shadows a test runner or runs at interpreter start
  (`pytest.py`, `unittest.py`, `pytest/`, `sitecustomize.py`, `*.pth`);
- changes or removes a Rust test in the code's own file (`#[cfg(test)] mod tests`, `#[test]`
  functions, doc-tests: `fixbot.tamper.rusttests`) or shadows an assertion's macro.
This protection is always on, whatever `protected-paths` says. File names are compared
case-insensitively. The returned reason is written for the model to read. The words these
checks are made of (which files are tests or configuration, the markers that skip) are the
tampering rules' one table, `fixbot.tamper.facts`, which the final-diff detector reads too.

It is the early word to the model, not the last one: every rule of the detector over the final
diff (`fixbot.tamper.cheats`: `import os as o; o._exit(0)`, `.pytest.ini`, `pluggy.py`, `x == 3 or
True`, a swallowing `except`, `sys.modules` rewritten) refuses the edit here too, and that detector
judges the whole diff and the check's counts again before a green fix may be `fixed`.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable
from pathlib import PurePosixPath

from fixbot.tamper import asserts, filters, rusttests, xfailed
from fixbot.tamper.changes import Change, is_test_file
from fixbot.tamper.cheats import examine
from fixbot.tamper.facts import (
    ALWAYS_TRUE,
    ASSERTION,
    CI,
    CONFTEST_TRICK,
    INI_SECTION,
    PYPROJECT_SECTION,
    PYPROJECT_TOOLS,
    RUNNER_CONFIG,
    SELF_COMPARE,
    SHADOW_NAMES,
    SHADOW_PACKAGES,
    SKIP,
    TOOL_MODULES,
    defined_tests,
    package_keys,
)
from fixbot.tamper.record import Cheat

ADVICE = (
    " fixbot does not weaken or remove tests to make a check pass: fix the code under test "
    "instead (a maintainer can allow this with allow-test-edits)."
)


def _count(pattern: re.Pattern[str], text: str) -> int:
    return len(pattern.findall(text))


def _test_defs(text: str) -> set[str]:
    return defined_tests(text)


def _excused(path: str, old: str, new: str, start: dict[str, str] | None) -> frozenset[str]:
    """The test functions of the test file `path` this edit removes whose every item the start's
    run reported xfailed (`start`, its runner's per-test report: `fixbot.tamper.xfailed.whole`)."""
    if start is None or not is_test_file(path):
        return frozenset()
    gone = _test_defs(old) - _test_defs(new)
    return frozenset(name for name in gone if xfailed.whole(path, name, start))


def _check_test_file(
    path: str, old: str, new: str, excused: frozenset[str] = frozenset()
) -> str | None:
    removed = sorted(_test_defs(old) - _test_defs(new) - excused)
    if removed:
        return f"Refused: this edit removes test function(s) {', '.join(removed)} from {path}."
    if _count(SKIP, new) > _count(SKIP, old):
        return f"Refused: this edit adds a skip/xfail marker to {path}."
    gone = sum(_count(ASSERTION, text) for text in xfailed.sources(old, excused))
    before = _count(ASSERTION, old) - gone
    after = _count(ASSERTION, new)
    if after < before:
        return f"Refused: this edit removes assertions from {path} ({before} -> {after})."
    return None


def _vacuous_count(text: str) -> int:
    """How many assertions in `text` cannot fail (Python by its syntax tree, else by pattern)."""
    try:
        return sum(asserts.vacuous(node) for node in ast.walk(ast.parse(text)))
    except (SyntaxError, ValueError):
        return _count(SELF_COMPARE, text) + _count(ALWAYS_TRUE, text)


def _vacuous(path: str, old: str, new: str) -> str | None:
    if _vacuous_count(new) > _vacuous_count(old):
        return (
            f"Refused: this edit adds an assertion that cannot fail to {path} "
            "(a value compared with itself, or a constant)."
        )
    return None


def _hooks(text: str) -> dict[str, str] | None:
    """The `pytest_*` functions of a conftest, as AST dumps; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return {
        node.name: ast.dump(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("pytest_")
    }


def _check_conftest(path: str, old: str, new: str) -> str | None:
    if _hooks(old) != _hooks(new) or _count(CONFTEST_TRICK, new) > _count(CONFTEST_TRICK, old):
        return (
            f"Refused: this edit changes a pytest hook, the exit status, collection or plugins "
            f"in {path}; only fixtures may change there."
        )
    return None


def _toml_tools(text: str) -> object:
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return PYPROJECT_SECTION.findall(text)
    return {name: tool.get(name) for name in PYPROJECT_TOOLS}


# Files of which only a part configures the tests: by lower-cased name, the function reading
# that part (compared before and after the edit) and the refusal when it changed.
_CONFIG_PARTS: dict[str, tuple[Callable[[str], object], str]] = {
    "pyproject.toml": (
        _toml_tools,
        "Refused: this edit changes the test or lint configuration in {path}.",
    ),
    "setup.cfg": (
        INI_SECTION.findall,
        "Refused: this edit changes the test or lint configuration in {path}.",
    ),
    "package.json": (
        package_keys,
        "Refused: this edit changes the scripts or test configuration in {path}.",
    ),
}


def _check_config(
    path: str, old: str, new: str, modules: frozenset[str] = frozenset()
) -> str | None:
    pure = PurePosixPath(path)
    name = pure.name.lower()
    if name == "conftest.py":
        return _check_conftest(path, old, new)
    if filters.harmless(path, old, new, modules):
        # warnings made errors, or one dependency's warning ignored: no test is hidden
        return None
    if name in _CONFIG_PARTS:
        read, refusal = _CONFIG_PARTS[name]
        if read(old) != read(new):
            return refusal.format(path=path)
    if CI.match(path) or RUNNER_CONFIG.search(path):
        return f"Refused: {path} controls how the check runs; fixbot does not change it."
    if _shadows(pure):
        return (
            f"Refused: {path} would shadow a test runner or run at interpreter start-up; "
            "give the module another name."
        )
    return None


def _shadows(pure: PurePosixPath) -> bool:
    """A module named like a test runner's or a start-up hook, or inside such a package."""
    lowered = {part.lower() for part in pure.parts[:-1]}
    return bool(SHADOW_NAMES.match(pure.name.lower()) or lowered & SHADOW_PACKAGES)


def tampering(
    path: str,
    old: str | None,
    new: str | None,
    check_files: frozenset[str] = frozenset(),
    modules: frozenset[str] = frozenset(),
    start: dict[str, str] | None = None,
) -> str | None:
    """Why the edit of `path` from `old` to `new` tampers with the tests, or None when it does not.

    `old` is None for a new file, `new` is None for a deletion; `path` is repository-relative;
    `check_files` are the paths the check command names (its own scripts); `modules` the
    project's module names (`fixbot.tamper.filters.module_names`; empty: a warning filter scoped
    to any module counts as a dependency's, and the final-diff detector judges it again);
    `start` the start's run's per-test report (`{id: outcome}`, None: none), by which a test
    function every item of which it reported xfailed may be removed (`fixbot.tamper.xfailed`;
    the final rules judge the removal again against the verifying run's report).
    """
    if new is None:
        if is_test_file(path) or PurePosixPath(path).name.lower() == "conftest.py":
            return f"Refused: deleting the test file {path}." + ADVICE
        new = ""
    before = old or ""
    reason = _check_config(path, before, new, modules) or _vacuous(path, before, new)
    excused = _excused(path, before, new, start)
    if reason is None and is_test_file(path):
        reason = _check_test_file(path, before, new, excused)
    if reason is None:
        reason = _sure_cheat(Change(path, old, new), check_files, modules, excused)
    return None if reason is None else reason + ADVICE


def _sure_cheat(
    change: Change,
    check_files: frozenset[str],
    modules: frozenset[str],
    excused: frozenset[str] = frozenset(),
) -> str | None:
    """The refusal for the first cheat the final-diff rules find in `change` alone (`_sure`),
    a Rust test in the code's own file changed or an assertion's macro shadowed among them
    (`fixbot.tamper.rusttests.detect`; a test module declared by another file is judged on
    the final diff alone, where the start's parents are read)."""
    found = examine(change, check_files=check_files, modules=modules, excused=excused)
    found = [c for c in found if _sure(c)]
    found += rusttests.detect([change])
    return f"Refused: {found[0]}." if found else None


def _sure(cheat: Cheat) -> bool:
    """A finding certain from one file alone: shadowing only of a test tool's module (whether a
    new `types.py` is importable by its bare name depends on the folders around it)."""
    pure = PurePosixPath(cheat.path or "")
    name = pure.parent.name if pure.stem == "__init__" else pure.stem
    return cheat.rule != "shadowing" or name in TOOL_MODULES or pure.suffix == ".pth"
