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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from fixbot.ecosystems import registry
from fixbot.tamper import filters
from fixbot.tamper.facts import CI, RUNNER_CONFIG, package_keys

__all__ = [
    "Change",
    "asserting",
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
# methods (`assertEqual`, `assert_called`), `fail` and its old aliases (`failIf`, `failUnless*`:
# those of `unittest.TestCase`, Python 3.8 to 3.11; not any `fail*` name: pyparsing's
# `failAction` is a parse action), its fixtures (`setUpClass`, ...)
SUPPORT = re.compile(
    r"assert(?:[A-Z_]|$)|fail(?:If|Unless|$)|setUp|tearDown|asyncSetUp|asyncTearDown"
)


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


def defines_support(text: str, name: str) -> bool:
    """Whether the Python source `text` binds `name` at module level to a class of test support
    by its own definition: based on a `*TestCase` name or defining a `SUPPORT` function itself
    (`assertSum`, `setUp`); a class that only calls such a method of `self` is none here
    (pyparsing 3.0.0's `ParserElement`, the code under test, calls `self.failAction(...)`, a
    parse action: read as test support, its file core.py was the tests' when the tests import
    it through the package, a false alarm of the bench's held-out oracle). False where `text`
    does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    found = (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    return any(_own_support(klass) for klass in found)


def _own_support(klass: ast.ClassDef) -> bool:
    """Whether `klass` is based on a `*TestCase` name or defines a `SUPPORT` function itself."""
    if any(_base_name(base).endswith("TestCase") for base in klass.bases):
        return True
    functions = (n for n in klass.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return any(SUPPORT.match(function.name) for function in functions)


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


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def asserting(text: str) -> frozenset[str]:
    """The names of the module-level functions of the Python source `text` whose body only
    asserts (round 36, #39: `def assert_alike(a, b): if a != b: raise AssertionError(...)`):
    statements that are `assert`, `raise AssertionError`/`raise AssertionError(...)` or a call
    of a `fail`-named function as a statement (`fail(...)`, `pytest.fail(...)`), possibly
    under an `if` or its `else` (any condition), beside a docstring, `pass` or a bare
    `return`, and at least one of them: no value returned, no assignment, no other call. A
    function that asserts and also computes (`total = ...`, `return total`) is none: the
    code's. Empty where `text` does not parse."""
    tree = _parsed(text)
    if tree is None:
        return frozenset()
    functions = (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return frozenset(f.name for f in functions if _assertions(f.body) > 0)


def assertions_only(text: str) -> bool:
    """Whether the Python source `text` is a module of assertions alone: each module-level
    function only asserts (`asserting`, at least one) or only formats their messages
    (`_formatters`: `def message(a, b): return ...`, named nowhere in the module but in what an
    assertion raises or reports), beside imports, a docstring and plain assignments
    (constants), and no class or other statement. A module that also holds the code's
    functions (app.py with `validate(x)`, which only asserts, beside `add`) is not one: pinned
    whole, an honest fix of its other code would be undone for the deciding check."""
    tree = _parsed(text)
    if tree is None:
        return False
    named = asserting(text)
    allowed = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.Expr)
    formatters = _formatters(tree, named)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name not in named | formatters:
                return False
        elif not isinstance(node, allowed) or (
            isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant)
        ):
            return False
    return bool(named)


def _formatters(tree: ast.Module, named: frozenset[str]) -> frozenset[str]:
    """The module-level functions of `tree` named (loaded) only inside the message of an
    assertion of a function of `named`: the arguments of its `raise AssertionError(...)` or
    `fail(...)`, an `assert`'s message (round 37: `raise AssertionError(message(a, b))`). A
    function whose answer decides an assertion (`if not ok(x): raise AssertionError`) is none:
    it may be the code under test. A name loaded anywhere else, or nowhere, is none."""
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    asserting_nodes = (node for f in functions if f.name in named for node in ast.walk(f))
    messages = _loads_in(part for node in asserting_nodes for part in _message_parts(node))
    loads = _loads(tree)
    return frozenset(f.name for f in functions if messages.get(f.name, -1) == loads.get(f.name))


def _message_parts(node: ast.AST) -> list[ast.expr]:
    """The expressions of `node` that only make an assertion's message: an `assert`'s message,
    the arguments of a raised `AssertionError(...)` or of a `fail(...)` call."""
    if isinstance(node, ast.Assert):
        return [node.msg] if node.msg is not None else []
    called = node.exc if isinstance(node, ast.Raise) else None
    called = node.value if isinstance(node, ast.Expr) else called
    if not isinstance(called, ast.Call):
        return []
    if _base_name(called.func) not in ("AssertionError", "fail"):
        return []
    return [*called.args, *(keyword.value for keyword in called.keywords)]


def _loads(tree: ast.AST) -> dict[str, int]:
    """How many times each name is loaded (`ast.Name`, `Load`) in `tree`."""
    return _loads_in([tree])


def _loads_in(trees: Iterable[ast.AST]) -> dict[str, int]:
    """How many times each name is loaded in `trees`, together."""
    counts: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _assertions(body: list[ast.stmt]) -> int:
    """How many assertions `body` holds, where it holds nothing else (`asserting`), else -1."""
    total = 0
    for statement in body:
        counted = _assertion(statement)
        if counted < 0:
            return -1
        total += counted
    return total


def _assertion(statement: ast.stmt) -> int:
    """1 for an assertion statement, 0 for a neutral one, the count of an `if` of assertions
    alone, -1 for anything else (`_assertions`)."""
    if isinstance(statement, ast.Assert):
        return 1
    if isinstance(statement, ast.If):
        inside, other = _assertions(statement.body), _assertions(statement.orelse)
        return -1 if min(inside, other) < 0 else inside + other
    if isinstance(statement, ast.Raise):
        return _raised(statement.exc)
    if isinstance(statement, ast.Expr):
        return _stated(statement.value)
    bare = isinstance(statement, ast.Return) and statement.value is None
    return 0 if bare or isinstance(statement, ast.Pass) else -1


def _raised(exc: ast.expr | None) -> int:
    """1 for `raise AssertionError` or `raise AssertionError(...)`, else -1 (a bare `raise`)."""
    raised = exc.func if isinstance(exc, ast.Call) else exc
    return 1 if raised is not None and _base_name(raised) == "AssertionError" else -1


def _stated(value: ast.expr) -> int:
    """1 for a `fail(...)` call made a statement, 0 for a constant (a docstring), else -1."""
    if isinstance(value, ast.Call):
        return 1 if _base_name(value.func) == "fail" else -1
    return 0 if isinstance(value, ast.Constant) else -1


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
