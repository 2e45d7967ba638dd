"""Which side of the final diff a changed file is on: the tests (test modules, conftests, the
test runner's, build or CI configuration, the check's own scripts) or the code under test.

The detector (`fixbot.tamper.cheats`) judges a change by it, and verification
(`fixbot.run.integrity`) puts a file of the tests back as the start commit had it. Pure functions
over a file's path and its two texts.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from fixbot.ecosystems import registry
from fixbot.tamper import filters
from fixbot.tamper.facts import CI, RUNNER_CONFIG, package_keys

__all__ = [
    "Change",
    "configures",
    "is_harness",
    "is_test_file",
    "lets_tests_run_on",
    "of_the_tests",
    "supports_tests",
]


@dataclass(frozen=True)
class Change:
    """One file of the final diff: repository-relative `path`, its text at the start (None: added)
    and in the verified tree (None: deleted). Binary files carry "" on both sides."""

    path: str
    old: str | None
    new: str | None


def is_test_file(path: str) -> bool:
    """True for test modules (`test_*.py`, `*_test.py`, `*.test.ts`, ...) and code under tests/
    (`tests/helpers.mjs`, Cargo's `tests/api.rs`): each ecosystem's `Tests`, in
    `fixbot.ecosystems`."""
    return registry.is_test_file(path)


def is_harness(path: str) -> bool:
    """Test modules, conftests and anything else under a tests folder (`tests/__init__.py`)."""
    return is_test_file(path) or PurePosixPath(path).name == "conftest.py"


# a function of a class's own namespace by which the class is test support: unittest's assert
# methods (`assertEqual`, `assert_called`), `fail`/`failUnless`, its fixtures (`setUpClass`, ...)
SUPPORT = re.compile(r"(?:assert|fail)(?:[A-Z_]|$)|setUp|tearDown|asyncSetUp|asyncTearDown")


def supports_tests(text: str) -> bool:
    """Whether the Python source `text` defines a class of test support: one based on a name
    ending in `TestCase` (`unittest.TestCase`, `IsolatedAsyncioTestCase`), or whose own body
    defines a function named as unittest's assert methods and fixtures are (`SUPPORT`:
    `assertAlike`, `fail`, `setUp`, `tearDownClass`) or one that calls such a method of `self`
    (`def check(self, a, b): self.assertEqual(a, b)`). False where `text` does not parse. An
    app module's mixin that does none of these (`class T(AppMixin, TestCase)`; an `assert`
    statement is no test support: app code asserts too) is no test support."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(_supports(node) for node in ast.walk(tree) if isinstance(node, ast.ClassDef))


def _supports(klass: ast.ClassDef) -> bool:
    """Whether `klass` is based on a `*TestCase` name, defines a `SUPPORT` function or one
    calling a `SUPPORT` method of `self`."""
    if any(_base_name(base).endswith("TestCase") for base in klass.bases):
        return True
    defined = [n for n in klass.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if any(SUPPORT.match(function.name) for function in defined):
        return True
    return any(_asks_self(node) for function in defined for node in ast.walk(function))


def _base_name(base: ast.expr) -> str:
    """The last name of a class statement's base (`TestCase` of `unittest.TestCase`), else ""."""
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def _asks_self(node: ast.AST) -> bool:
    """Whether `node` is a call of a `SUPPORT` method of `self` (`self.assertEqual(...)`)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    return (
        isinstance(owner, ast.Name) and owner.id == "self" and bool(SUPPORT.match(node.func.attr))
    )


def _toml_tables(text: str) -> object:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text
    tools = {k: v for k, v in data.get("tool", {}).items() if k != "fixbot"}
    return tools, data.get("build-system"), data.get("project", {}).get("scripts")


def _setup_cfg(text: str) -> list[str]:
    """The sections of setup.cfg other than metadata and options (tool:pytest, flake8, ...)."""
    sections = re.split(r"(?m)^(?=\[)", text)
    skipped = ("[metadata", "[options")
    return [s.strip() for s in sections if s.startswith("[") and not s.startswith(skipped)]


# Files of which only a part controls the check: by lower-cased name, the function reading that
# part (compared before and after the change) and what a change to it means.
_PARTS: dict[str, tuple[Callable[[str], object], str]] = {
    "pyproject.toml": (_toml_tables, "its [tool.*] or [build-system] tables changed"),
    "setup.cfg": (_setup_cfg, "a test or lint section changed"),
    "package.json": (package_keys, "its scripts or test configuration changed"),
}


def configures(change: Change) -> str | None:
    """How the changed file controls the check when it is test-runner, build or CI
    configuration (and the change touches that part of it), else None."""
    pure = PurePosixPath(change.path)
    name = pure.name.lower()
    if name in _PARTS:
        read, what = _PARTS[name]
        if read(change.old or "") != read(change.new or ""):
            return what
    if CI.match(change.path) or RUNNER_CONFIG.search(change.path):
        return "it controls how the check runs"
    if pure.name == "conftest.py" and change.old is None:
        return "a new conftest.py"
    return None


def of_the_tests(change: Change, check_files: frozenset[str] = frozenset()) -> bool:
    """A file that belongs to the tests rather than to the code under test: a test module or
    conftest (anything under a tests folder), the test runner's configuration, or a file the
    check command names. Verification puts these back as the start commit had them."""
    path = change.path
    return is_harness(path) or path in check_files or configures(change) is not None


def lets_tests_run_on(change: Change, modules: frozenset[str] = frozenset()) -> bool:
    """The change only adds warning filters that ignore a dependency's warning
    (`filters.harmless` and `filters.ignores_added`): against the start commit's configuration
    any test that warning stopped fails, which the change explains."""
    old, new = change.old or "", change.new or ""
    return filters.harmless(change.path, old, new, modules) and filters.ignores_added(
        change.path, old, new
    )
