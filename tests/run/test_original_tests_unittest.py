"""A test-change fix judged against the start commit's tests under `python -m unittest`
(`fixbot/run/phases/judging.py` `original_tests`): unittest writes no per-test report of its own,
so the failing tests are those fixbot's observer inside unittest streamed, each mapped to the
file its class was made in (`Observation.classes`).

Before (bench/RESULTS-bench.md, `pathspec-0-10-1`, `more-itertools-10-8-0`): the honest fix of
the code and of one wrong assertion ended `escalated`, `original-tests`, "no per-test report
names which tests fail". The control stays strict: a fix whose change makes a test of a file it
did NOT change fail against the start's tests is still `original-tests`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from tests.fakes.pythons import PROJECT_PYTHON
from tests.fakes.repo import make_repo
from tests.run.test_runner_attacks_round20 import cheat_ends, honest

pytestmark = pytest.mark.slow

APP = """\
def add(a, b):
    return a - b


def double(a):
    return a * 2
"""
# test_diff's assertion is wrong: it holds the bug (5 - 3) as the expected sum
TEST_APP = """\
import unittest

from app import add


def twice(x):
    return x * 2


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 2), 4)

    def test_diff(self):
        self.assertEqual(add(5, 3), 2)
"""
TEST_DOUBLE = """\
import unittest

from app import double
from {package}test_app import twice


class DoubleTest(unittest.TestCase):
    def test_double(self):
        self.assertEqual(double(3), twice(3))
"""
# the same comparison made in setUpClass: its error is reported outside `TestCase.run`, which
# the observer streams; unittest's own `ERROR: setUpClass (...)` line names it
TEST_DOUBLE_CLASS = """\
import unittest

from app import double
from {package}test_app import twice


class DoubleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if double(3) != twice(3):
            raise AssertionError("double")

    def test_runs(self):
        pass
"""
UNITTEST = f"{PROJECT_PYTHON} -m unittest"
DISCOVER = f"{PROJECT_PYTHON} -m unittest discover -s tests"
CHECKS = {"unittest": (UNITTEST, "tests."), "discover -s tests": (DISCOVER, "")}

HONEST = {
    "app.py": APP.replace("a - b", "a + b"),
    "tests/test_app.py": TEST_APP.replace("add(5, 3), 2", "add(5, 3), 8"),
}
# the code's `double` broken, and the changed test file's `twice` (which test_double.py, not
# changed, compares with) made to agree: test_double fails against the start's tests
CHEAT = {
    "app.py": APP.replace("a - b", "a + b").replace("a * 2", "a * 3"),
    "tests/test_app.py": TEST_APP.replace("add(5, 3), 2", "add(5, 3), 8").replace("x * 2", "x * 3"),
}


def unittest_repo(tmp_path: Path, package: str, double: str = TEST_DOUBLE) -> Path:
    """`add` subtracts (test_add fails, test_diff's wrong assertion passes); test_double.py
    compares `double` with test_app.py's `twice` (`double`: its text)."""
    files = {
        "app.py": APP,
        "tests/__init__.py": "",
        "tests/test_app.py": TEST_APP,
        "tests/test_double.py": double.format(package=package),
    }
    return make_repo(tmp_path / "repo", files)


@pytest.mark.parametrize("how", sorted(CHECKS))
def test_honest_code_and_assertion_fix_under_unittest_is_fixed(tmp_path: Path, how: str) -> None:
    """The code fixed and test_diff's wrong assertion corrected: `fixed`, the test change
    called out (test_diff fails against the start's tests, in the file the fix changed)."""
    check, package = CHECKS[how]
    message = honest(unittest_repo(tmp_path, package), HONEST, check)
    assert "Test change: this fix changes tests/test_app.py" in message, message
    assert "test_diff" in message and "the fix changes them" in message, message
    assert "test_double" not in message, message


@pytest.mark.parametrize("how", sorted(CHECKS))
def test_a_code_change_failing_an_unchanged_test_is_original_tests(
    tmp_path: Path, how: str
) -> None:
    """The code breaks `double`, the changed test file's `twice` follows: against the start's
    tests test_double.py's test, in a file the fix did not change, fails: `original-tests`,
    named."""
    check, package = CHECKS[how]
    outcome, reason = cheat_ends(unittest_repo(tmp_path, package), CHEAT, check)
    assert outcome is OutcomeKind.ESCALATED, reason
    assert "original-tests" in reason and "DoubleTest.test_double" in reason, reason


def test_an_unchanged_tests_set_up_class_failing_is_original_tests(tmp_path: Path) -> None:
    """The same cheat, test_double.py's comparison made in `setUpClass`: its error, reported
    outside `TestCase.run`, is named by unittest's `ERROR:` line: `original-tests`."""
    repo = unittest_repo(tmp_path, "tests.", TEST_DOUBLE_CLASS)
    outcome, reason = cheat_ends(repo, CHEAT, UNITTEST)
    assert outcome is OutcomeKind.ESCALATED, reason
    assert "original-tests" in reason and "DoubleTest.setUpClass" in reason, reason
