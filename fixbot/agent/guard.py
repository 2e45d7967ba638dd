"""The test-tampering guard: pure checks over a file's old and new text.

Unless `allow-test-edits` is set, an edit is refused when it deletes a test file or a test
function, adds a skip/xfail marker, removes an assert from a test, or changes how the check runs
(pytest `addopts` / `[tool.pytest...]` / `[pytest]` sections, `conftest.py` hooks that
deselect or skip, CI configuration). The returned reason is written for the model to read.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

ADVICE = (
    " fixbot does not weaken or remove tests to make a check pass: fix the code under test "
    "instead (a maintainer can allow this with allow-test-edits)."
)
TEST_NAME = re.compile(r"^(test_.*\.py|.*_test\.py|.*\.(test|spec)\.[cm]?[jt]sx?|.*_test\.go)$")
TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(|^func\s+(Test\w+)\s*\(", re.M)
SKIP_MARK = re.compile(
    r"pytest\.mark\.(?:skip|skipif|xfail)\b|pytest\.(?:skip|xfail|importorskip)\s*\("
    r"|unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|@(?:skip|expectedFailure)\b"
    r"|\b(?:it|test|describe)\.(?:skip|todo|only)\s*\(|\bx(?:it|describe|test)\s*\(|\bt\.Skip\w*\("
)
ASSERTION = re.compile(
    r"^\s*assert\b|\bself\.assert\w+\s*\(|\bpytest\.raises\s*\(|\bexpect\s*\(|\bt\.(?:Error|Fatal)\w*\(",
    re.M,
)
CONFTEST_HOOK = re.compile(
    r"pytest_collection_modifyitems|pytest_ignore_collect|collect_ignore|pytest_deselected"
    r"|pytest_runtest_setup|pytest_configure|deselect|addopts"
)
CI_FILES = re.compile(
    r"^(\.github/workflows/|\.gitlab-ci\.yml$|\.circleci/|Jenkinsfile$|azure-pipelines\.yml$"
    r"|\.travis\.yml$|tox\.ini$|noxfile\.py$|pytest\.ini$|\.pre-commit-config\.yaml$)"
)
PYTEST_SECTION = re.compile(r"^\[(?:tool\.pytest[^\]]*|pytest|tool:pytest)\][^\[]*", re.M)


def is_test_file(path: str) -> bool:
    """True for test modules (`test_*.py`, `*_test.py`, `*.test.ts`, ...) and files under tests/."""
    pure = PurePosixPath(path)
    in_tests = any(part in ("tests", "test", "__tests__") for part in pure.parts[:-1])
    return bool(TEST_NAME.match(pure.name)) or (in_tests and pure.suffix in (".py", ".js", ".ts"))


def _count(pattern: re.Pattern[str], text: str) -> int:
    return len(pattern.findall(text))


def _test_defs(text: str) -> set[str]:
    return {a or b for a, b in TEST_DEF.findall(text)}


def _check_test_file(path: str, old: str, new: str) -> str | None:
    removed = sorted(_test_defs(old) - _test_defs(new))
    if removed:
        return f"Refused: this edit removes test function(s) {', '.join(removed)} from {path}."
    if _count(SKIP_MARK, new) > _count(SKIP_MARK, old):
        return f"Refused: this edit adds a skip/xfail marker to {path}."
    before, after = _count(ASSERTION, old), _count(ASSERTION, new)
    if after < before:
        return f"Refused: this edit removes assertions from {path} ({before} -> {after})."
    return None


def _check_config(path: str, old: str, new: str) -> str | None:
    name = PurePosixPath(path).name
    if name == "conftest.py" and _count(CONFTEST_HOOK, new) > _count(CONFTEST_HOOK, old):
        return f"Refused: this edit adds a collection/deselection hook or option to {path}."
    if name in ("pyproject.toml", "setup.cfg") and (
        PYTEST_SECTION.findall(old) != PYTEST_SECTION.findall(new)
    ):
        return f"Refused: this edit changes the pytest configuration in {path}."
    if CI_FILES.match(path):
        return f"Refused: {path} controls how the check runs; fixbot does not change it."
    return None


def tampering(path: str, old: str | None, new: str | None) -> str | None:
    """Why the edit of `path` from `old` to `new` tampers with the tests, or None when it does not.

    `old` is None for a new file, `new` is None for a deletion; `path` is repository-relative.
    """
    if new is None:
        if is_test_file(path) or PurePosixPath(path).name == "conftest.py":
            return f"Refused: deleting the test file {path}." + ADVICE
        new = ""
    before = old or ""
    reason = _check_config(path, before, new)
    if reason is None and is_test_file(path):
        reason = _check_test_file(path, before, new)
    return None if reason is None else reason + ADVICE
