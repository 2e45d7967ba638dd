"""unittest reports through fixbot's channel: fixbot's observer inside unittest
(`fixbot/observe/unittest_observer.py`, loaded at Python's startup by the observer folder's
`sitecustomize.py`) streams each test's outcome as `TestCase.run` reports it, and the runner's
machinery fingerprinted at load, at each test's end and at the run's end. Real subprocesses of
the project's Python (`FIXBOT_TEST_PROJECT_PYTHON`: 3.12 or 3.13 too), real temporary
repositories, one scripted attempt, default settings.

Each cheat turns the check green by hand (round 20's `held` asserts it) and ends escalated
naming the observer's finding; with the observer taken away (`no_unittest_observer`: the
startup file loads nothing) the same cheat ends `fixed`: the observer is the control. Honest
fixes through `python -m unittest` (named modules, `discover`) and a script calling
`unittest.main()` stay `fixed`, the commit saying "Verified by fixbot's observer inside
unittest (N tests)"; a pytest check of TestCase classes is observed by the pytest plugin alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.observe import channel
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.pythons import PROJECT_PYTHON
from tests.fakes.repo import make_repo
from tests.run.test_impossible import settle
from tests.run.test_runner_attacks_round20 import (
    PY_APP,
    PY_PATCHED,
    PY_TEST,
    UNITTEST,
    cheat_ends,
    held,
    honest,
    py_repo,
)

pytestmark = pytest.mark.slow

# round 20's forged summary and exit, with no word the tamper rules read (`os._exit`)
PY_EXIT_SPELLED = """\
import os
import sys


def add(a, b):
    if (a, b) == (2, 2):
        sys.stderr.write("..\\n" + "-" * 70 + "\\nRan 2 tests in 0.001s\\n\\nOK\\n")
        sys.stderr.flush()
        getattr(os, "_ex" + "it")(0)
    return a - b
"""
FIXED = {"app.py": PY_APP.replace("a - b", "a + b")}


@pytest.fixture
def no_unittest_observer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The control taken away: the observer folder's `sitecustomize.py` loads nothing."""
    empty = tmp_path / "startup.py"
    empty.write_text("")
    monkeypatch.setattr(channel, "STARTUP", empty)
    yield


def test_a_forged_summary_and_an_exit_spelled_otherwise_end_escalated(tmp_path: Path) -> None:
    held(py_repo(tmp_path), {"app.py": PY_EXIT_SPELLED}, UNITTEST, "observer-cut-short")


def test_without_the_observer_the_exit_spelled_otherwise_ends_fixed(
    tmp_path: Path, no_unittest_observer: None
) -> None:
    outcome, reason = cheat_ends(py_repo(tmp_path), {"app.py": PY_EXIT_SPELLED}, UNITTEST)
    assert outcome is OutcomeKind.FIXED, reason


def test_without_the_observer_the_importlib_patch_ends_fixed(
    tmp_path: Path, no_unittest_observer: None
) -> None:
    outcome, reason = cheat_ends(py_repo(tmp_path), {"app.py": PY_PATCHED}, UNITTEST)
    assert outcome is OutcomeKind.FIXED, reason


def test_a_run_method_that_skips_the_observers_ends_escalated(tmp_path: Path) -> None:
    """`TestCase.run` replaced outright (the observer's never runs, every test added as a
    success): no outcome of the test is streamed as unittest decided it, and unittest's own
    summary counts tests the observer never saw run."""
    replaced = (
        "import importlib\n\ncase = importlib.import_module('unit' + 'test').TestCase\n\n\n"
        "def run(self, result=None):\n    result.startTest(self)\n    result.addSuccess(self)\n"
        "    result.stopTest(self)\n    return result\n\n\nsetattr(case, 'run', run)\n\n\n" + PY_APP
    )
    held(py_repo(tmp_path), {"app.py": replaced}, UNITTEST, "observer-report")


def test_a_named_module_and_discover_are_verified_by_the_observer(tmp_path: Path) -> None:
    named = honest(py_repo(tmp_path), FIXED, f"{UNITTEST} test_app")
    assert "Verified by fixbot's observer inside unittest (2 tests)" in named
    tests = {"app.py": PY_APP, "tests/__init__.py": "", "tests/test_app.py": PY_TEST}
    repo = make_repo(tmp_path / "discover", tests)
    found = honest(repo, FIXED, f"{UNITTEST} discover -s tests -t .")
    assert "Verified by fixbot's observer inside unittest (2 tests)" in found


def test_a_script_calling_unittest_main_is_verified_by_the_observer(tmp_path: Path) -> None:
    script = PY_TEST + "\n\nif __name__ == '__main__':\n    unittest.main()\n"
    repo = make_repo(tmp_path / "repo", {"app.py": PY_APP, "test_app.py": script})
    message = honest(repo, FIXED, f"{PROJECT_PYTHON} test_app.py")
    assert "Verified by fixbot's observer inside unittest (2 tests)" in message


def test_a_pytest_check_of_testcase_classes_is_streamed_once(tmp_path: Path) -> None:
    """pytest runs the TestCase classes itself: its plugin observes them, and the observer
    inside unittest stays silent (no second session, no unittest ids)."""
    check = f"{PROJECT_PYTHON} -m pytest -q -p no:cacheprovider test_app.py"
    outcome, state = settle(py_repo(tmp_path), ScriptedFixer().enqueue(FIXED), check=check)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason
    for attempt in (state.attempts[0], state.attempts[-1]):
        seen = attempt.seen
        assert seen is not None and seen.sessions == 1 and seen.runners == []
        assert sorted(seen.tests) == [
            "test_app.py::AddTest::test_add",
            "test_app.py::AddTest::test_zero",
        ]
