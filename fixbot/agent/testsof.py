"""The passing tests named after the functions a fix most likely changes: the tests that pin
what those functions return today, which a fix changing that must update too.

A fix that changes what a function returns (a range rewritten with a trailing space, a message
worded otherwise) breaks the test written for that function, which passes at the start: its
expected values encode the old behaviour, and the upstream change updates them with the fix
(a `test-change` case of the bench: Masterminds/semver's `rewriteRange` and its
`TestRewriteRange`). The failing output never names such a test, so neither the snippets nor
the spectrum show it. Here it is found by the naming conventions of Go (`TestName` for
`name` or `Name`, in a `_test.go` file of the function's own package folder, with an optional
`_suffix`) and of Python (`test_name`, leading underscores dropped, in a test file anywhere in
the repository: `fixbot.agent.locate.TEST_FILE`), the failing tests themselves left out (the
snippets show them). Pure reading of the files; nothing is imported or run.

`same_case` adds the rows of the failing test's own case in the other tests of its file: a
failing `test_style[MARKDOWN]` names a case of a parametrized test, and the tests beside it
parametrized with the same case (`pytest.param(..., id="MARKDOWN")`) pin what that case prints
today, so a fix changing it updates their rows too (the bench's
`prettytable-3-10-0-markdown-narrow-centred`: `test_style_align`'s Markdown table).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from fixbot.agent import gocov, locate
from fixbot.core.repofiles import resolved

TESTS_OF = 6  # tests shown at most, in the order of the functions they are named after
TEST_LINES = 20  # the first lines of each (a table-driven test's first rows)
MAX_PY_FILES = 2000  # Python test files searched at most (by path, hidden folders left out)
WORD = re.compile(r"\w+")


def spans(repo: Path, shown: Sequence[locate.Span], failing: Sequence[str]) -> list[locate.Span]:
    """The tests named after the functions of `shown` (best first; repository-relative spans),
    in that order, at most `TESTS_OF`, each cut to `TEST_LINES`; none of the `failing` tests
    (their ids' words: `TestX`, `tests/test_a.py::test_x`) and none named after a test. Each
    test file is read once."""
    skip = {w for test in failing for w in WORD.findall(test)}
    tests = _Tests(repo)
    found: list[locate.Span] = []
    for span in shown:
        for test in tests.named_after(span):
            if test.name not in skip and test not in found:
                found.append(test)
        if len(found) >= TESTS_OF:
            break
    return [replace(t, limit=TEST_LINES) for t in found[:TESTS_OF]]


CASE = re.compile(r"^(?P<path>[^:\[]+\.py)::(?:[^\[]*::)?(?P<test>\w+)\[(?P<case>.+)\]$")


def same_case(repo: Path, failing: Sequence[str]) -> list[locate.Span]:
    """The rows of each failing parametrized Python test's case (`path::Class::test_x[ID]`,
    `path` repository-relative) in the other tests of the same file: each `pytest.param(...,
    id="ID")` of another test function's decorators (a stacked case, `[ID-2]`, matches each of
    its parts), in file order, at most `TESTS_OF`, each cut to `TEST_LINES`; [] for a test id
    of another shape or a file that is not Python we can parse."""
    found: list[locate.Span] = []
    for test in failing:
        match = CASE.match(test)
        if match is not None:
            ids = {match["case"], *match["case"].split("-")}
            rows = _rows(repo, match["path"], match["test"], ids)
            found += [row for row in rows if row not in found]
    return found[:TESTS_OF]


def _rows(repo: Path, rel: str, failing: str, ids: set[str]) -> list[locate.Span]:
    """The `pytest.param` calls with an id in `ids` of the test functions of `rel` other than
    `failing`, each a span named `test_name[ID]`."""
    rows = []
    for node in sorted(_functions(repo, rel), key=lambda n: n.lineno):
        if node.name == failing or not node.name.startswith("test"):
            continue
        for call in _params(node):
            case = _param_id(call)
            if case and case in ids:
                end = call.end_lineno or call.lineno
                name = f"{node.name}[{case}]"
                rows.append(locate.Span(rel, call.lineno, end, name, 0.0, limit=TEST_LINES))
    return rows


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The `pytest.param(...)` calls (or a bare `param(...)`) of `node`'s decorators."""
    calls = (c for d in node.decorator_list for c in ast.walk(d) if isinstance(c, ast.Call))
    return [c for c in calls if _called(c) == "param"]


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _param_id(call: ast.Call) -> str:
    """The `id=` of a `pytest.param` call when it is a string literal, else ''."""
    for keyword in call.keywords:
        if keyword.arg == "id" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return ""


class _Tests:
    """The test functions of a repository, read on first need: a Go package folder's
    `_test.go` files, every Python test file."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.go: dict[str, list[locate.Span]] = {}
        self.python: list[locate.Span] | None = None

    def named_after(self, span: locate.Span) -> list[locate.Span]:
        """The tests named after the function of `span` (none for a test file's)."""
        if span.path.endswith("_test.go") or locate.TEST_FILE.search(span.path):
            return []
        wanted = _test_name(span)
        if not wanted:
            return []
        if span.path.endswith(".go"):
            return [t for t in self._go(str(PurePosixPath(span.path).parent)) if _is(t, wanted)]
        return [t for t in self._python() if _is(t, wanted)]

    def _go(self, folder: str) -> list[locate.Span]:
        if folder not in self.go:
            try:
                files = sorted(p.name for p in (self.repo / folder).iterdir())
            except OSError:
                files = []
            rels = [(PurePosixPath(folder) / n).as_posix() for n in files if n.endswith("_test.go")]
            self.go[folder] = [
                locate.Span(rel, start, end, name, 0.0)
                for rel in rels
                for start, end, name in gocov.functions(self.repo, rel)
            ]
        return self.go[folder]

    def _python(self) -> list[locate.Span]:
        if self.python is None:
            self.python = [
                locate.Span(rel, node.lineno, node.end_lineno or node.lineno, node.name, 0.0)
                for rel in _python_test_files(self.repo)
                for node in _functions(self.repo, rel)
                if node.name.startswith("test_")
            ]
        return self.python


def _test_name(span: locate.Span) -> str:
    """The name of the test of `span`'s function by its language's convention: `TestName` in
    Go, `test_name` in Python (a method's own name, its leading underscores dropped; none for
    a dunder); empty in another language."""
    if span.path.endswith(".go"):
        return "Test" + span.name[:1].upper() + span.name[1:] if span.name else ""
    name = span.name.split(".")[-1]
    if span.path.endswith(".py") and name.lstrip("_") and not name.endswith("__"):
        return f"test_{name.lstrip('_')}"
    return ""


def _is(test: locate.Span, wanted: str) -> bool:
    return test.name == wanted or test.name.startswith(wanted + "_")


def _functions(repo: Path, rel: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = locate._parse(repo, rel)  # None: not Python we can read, no test in it
    return locate._functions(tree) if tree is not None else []


def _python_test_files(repo: Path) -> list[str]:
    """The repository's Python test files (`locate.TEST_FILE`), at most `MAX_PY_FILES` by
    path, hidden folders left out."""
    root = resolved(repo)
    if root is None:
        return []
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_folder = Path(folder).relative_to(root).as_posix()
        for name in sorted(files):
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            if name.endswith(".py") and locate.TEST_FILE.search(rel):
                found.append(rel)
        if len(found) >= MAX_PY_FILES:
            break
    return found[:MAX_PY_FILES]
