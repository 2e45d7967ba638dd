"""What the rule `fewer-tests` counts: tests, not the entries a runner prints or reports for
them. pytest 9 reports each failing subtest (unittest's `subTest`) as an entry of its own in
its summary (`4 failed, 1 passed` for two tests), a passing one as `subtests passed`: a real
pytest run here, asked for its JUnit report as fixbot asks it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.failure import Counts
from fixbot.logs.dialects import report_for
from fixbot.logs.signature import parse_counts
from fixbot.tamper.cheats import fewer_tests
from fixbot.tamper.reports import counted

SUBTESTS = """\
import unittest

from app import add


class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 2), 4)

    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(add(i, 1), i + 1)
"""
FIX = "def add(a, b):\n    return a + b\n"


def run(tree: Path, app: str, tests: str) -> tuple[Counts, dict[str, str]]:
    """The printed counts and the JUnit report's outcomes of pytest run on `tree`."""
    (tree / "app.py").write_text(app, encoding="utf-8")
    (tree / "test_app.py").write_text(tests, encoding="utf-8")
    report = report_for(["pytest"])
    assert report is not None
    path = tree / "out" / report.file_name
    path.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_app.py"],
        cwd=tree,
        # no bytecode: the fix is the same size as the start, written within the same second,
        # and a cached module of the start would be read for it (its mtime and size match)
        env={**os.environ, **report.ask(str(path), {}), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    return parse_counts(done.stdout), report.read(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_failing_subtests_are_their_tests_not_tests_of_their_own(tmp_path: Path) -> None:
    start = run(tmp_path, "def add(a, b):\n    return a - b\n", SUBTESTS)
    fixed = run(tmp_path, FIX, SUBTESTS)
    # pytest 9.2 (the project's, constraints.txt): the printed counts are entries
    assert (start[0].failed, start[0].passed, fixed[0].passed) == (4, 1, 2)
    assert fewer_tests(start[0], fixed[0]) is not None  # the false alarm, read from the log
    assert fewer_tests(*counted(start, fixed)) is None
    # a test the fix made go away is still one test fewer
    gone = run(tmp_path, FIX, SUBTESTS.split("    def test_sub")[0])
    assert gone[1] == {"test_app.T::test_add": "passed"}
    assert fewer_tests(*counted(start, gone)) is not None


def test_the_printed_counts_are_compared_when_either_run_wrote_no_report() -> None:
    first, last = Counts(failed=1, passed=1), Counts(passed=1)
    assert counted((first, None), (last, {"t::a": "passed", "t::b": "passed"})) == (first, last)
    assert counted((first, {"t::a": "failed", "t::b": "passed"}), (last, None)) == (first, last)


def test_a_report_tallies_each_test_once_by_its_outcome() -> None:
    first = {"t::a": "failed", "t::b": "passed", "t::c": "skipped"}
    last = {"t::a": "passed", "t::b": "passed", "t::c": "passed"}
    was, now = counted((Counts(failed=9), first), (Counts(passed=1), last))
    assert (was.passed, was.failed, was.skipped) == (1, 1, 1)
    assert (now.passed, now.failed, now.skipped) == (3, 0, 0)
    more_skipped = {**last, "t::c": "skipped", "t::b": "skipped"}
    assert fewer_tests(*counted((None, first), (None, more_skipped))) is not None


def test_unittests_own_summary_counts_a_test_with_failing_subtests_once() -> None:
    """`python -m unittest` prints each failing subtest in `failures`: `Ran 1 test` with
    `FAILED (failures=2)` is one test, as many as the fix's `Ran 1 test` `OK` (round 22's
    `test_legitimate_fix_with_subtests` was `fewer-tests`: 2 at the start, 1 after)."""
    first = parse_counts("Ran 1 test in 0.001s\n\nFAILED (failures=2)\n")
    last = parse_counts("Ran 1 test in 0.001s\n\nOK\n")
    assert first == Counts(passed=0, failed=1, errors=0, skipped=0)
    assert fewer_tests(first, last) is None
    assert parse_counts("Ran 3 tests in 0s\n\nFAILED (failures=1, skipped=1)\n") == Counts(
        passed=1, failed=1, errors=0, skipped=1
    )
