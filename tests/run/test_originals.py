"""`fixbot/run/originals.py`: which tests failed against the start commit's tests, from the
runner's report or, under unittest, from fixbot's observer inside it, and which of them a
fix's change to the tests does not explain."""

from __future__ import annotations

from pathlib import Path

from fixbot.core.observed import Observation
from fixbot.run.originals import failing, log_text, unexplained, unnamed

LOG = """\
..F
======================================================================
FAIL: test_diff (test_app.AddTest.test_diff)
----------------------------------------------------------------------
Ran 3 tests in 0.001s

FAILED (failures=1)
"""


def seen(**kw: object) -> Observation:
    """A unittest run the observer saw whole: three tests ran, test_diff failed."""
    base: dict[str, object] = {
        "runners": ["unittest"],
        "sessions": 1,
        "ended": 1,
        "ran": 3,
        "said_ran": 3,
        "tests": {
            "test_app.AddTest.test_add": "passed",
            "test_app.AddTest.test_diff": "failed",
            "test_double.DoubleTest.test_double": "passed",
        },
        "classes": {
            "test_app.AddTest.test_add": ["tests/test_app.py"],
            "test_app.AddTest.test_diff": ["tests/test_app.py", "tests/base.py"],
            "test_double.DoubleTest.test_double": ["tests/test_double.py"],
        },
    }
    return Observation.model_validate(base | kw)


def test_unittest_failures_are_the_observers_by_their_class_file() -> None:
    assert failing(None, seen(), LOG) == (
        ["test_app.AddTest.test_diff"],
        {"test_app.AddTest.test_diff": "tests/test_app.py"},
    )


def test_a_run_the_observer_did_not_see_whole_names_no_failure() -> None:
    """A session not ended, the stream cut, or `Ran N tests` counting other tests: None."""
    for kw in ({"ended": 0}, {"overflow": True}, {"said_ran": 4}, {"said_ran": None}):
        assert failing(None, seen(**kw), LOG) == (None, {}), kw
    assert failing({"x": "failed"}, seen(ended=0), LOG) == (None, {})


def test_a_failure_unittest_printed_that_the_observer_did_not_stream_is_named() -> None:
    """A `setUpClass` error is reported outside `TestCase.run`: named by unittest's line, with
    no file (judged by its id)."""
    log = LOG + "ERROR: setUpClass (test_double.DoubleTest)\n"
    found, made = failing(None, seen(), log)
    assert found == ["test_app.AddTest.test_diff", "test_double.DoubleTest.setUpClass"]
    assert "test_double.DoubleTest.setUpClass" not in made


def test_an_unknown_class_file_is_no_file() -> None:
    classes = {"test_app.AddTest.test_diff": ["?", "tests/test_app.py"]}
    assert failing(None, seen(classes=classes), LOG)[1] == {}


def test_other_runners_keep_their_report() -> None:
    report = {"tests.test_app::test_add": "failed", "tests.test_app::test_zero": "passed"}
    assert failing(report, None, "") == (["tests.test_app::test_add"], {})
    assert failing(None, None, "") == (None, {})
    assert failing(report, Observation(sessions=1, ended=1), "") == (
        ["tests.test_app::test_add"],
        {},
    )


def test_a_test_is_explained_by_its_own_class_file_alone() -> None:
    """A test made in a file the fix did not change is unexplained, whatever its id or its
    bases' files say; one with no file is judged by its id."""
    made = {
        "test_app.AddTest.test_diff": "tests/test_app.py",
        "tests.test_app.Other.test_x": "tests/test_double.py",
    }
    changed = ["tests/test_app.py", "tests/base.py"]
    ids = [*made, "tests.test_app.AddTest.setUpClass", "tests.test_double.D.setUpClass"]
    assert unexplained(ids, made, changed) == [
        "tests.test_app.Other.test_x",
        "tests.test_double.D.setUpClass",
    ]


def test_the_log_is_read_bounded_or_not_at_all(tmp_path: Path) -> None:
    log = tmp_path / "check.log"
    log.write_bytes(b"Ran 1 test\xff")
    assert log_text(log) == "Ran 1 test\ufffd"
    assert log_text(tmp_path / "missing.log") == ""


def test_a_test_on_a_base_of_a_changed_helper_is_judged_by_its_own_file() -> None:
    """test_double's class, made in tests/test_double.py (unchanged), is based on a class of
    tests/base.py, which the fix changed: its failure against the start's tests is unexplained."""
    tests = {"test_double.DoubleTest.test_double": "failed"}
    classes = {"test_double.DoubleTest.test_double": ["tests/test_double.py", "tests/base.py"]}
    log = LOG.replace("test_diff (test_app.AddTest.test_diff)", "test_double (test_double.D)")
    found, made = failing(None, seen(tests=tests, classes=classes, ran=3), log)
    assert found == ["test_double.D.test_double", "test_double.DoubleTest.test_double"]
    assert unexplained(found, made, ["tests/base.py"]) == found


def test_why_no_failure_is_named() -> None:
    assert unnamed(seen(overflow=True)) == (
        "fixbot's observer inside unittest did not see that run whole"
    )
    assert unnamed(seen()) == unnamed(None) == "no per-test report names which tests fail"
