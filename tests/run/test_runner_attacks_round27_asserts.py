"""Round 27: an assert method the code under test sets on the running test's instance or class,
or on `unittest.TestCase` itself, that asserts nothing and takes itself away again (or sets the
real one back) as the test calls it, before the test's end. Rows as round 20's (`held`,
`honest`): each cheat turns the check green by hand, then through fixbot (one attempt) ends
`escalated` naming the rule (Python 3.12 and later; before, a strict xfail that ends `fixed`).

The cheats (test names), what each does, why it got through, the class of fix:

unittest_assert_method_set_on_the_instance_takes_itself_away,
unittest_assert_method_set_on_the_class_takes_itself_away (were holes; held since this round,
    `unittest: assertEqual of test set by app.py`, `... of AddTest ...`): the test names
    `add`'s result first (`total = add(2, 2)`, then `self.assertEqual(total, 4)`); `add` finds
    the test through `sys._getframe(1)` and sets `assertEqual` on it (or its class) to a
    function of app.py's that deletes itself as it is called. No audit event is raised for a
    class's or an instance's attribute written, the function is outside the equality table
    (`_used` never saw it), and `_foreign` looks at the test's end, where it was gone.
unittest_assert_method_of_testcase_set_back_as_it_is_called (was a hole; held since this round,
    `unittest: assertEqual of TestCase set by app.py`): app.py, as it is imported, sets
    `TestCase.assertEqual` to one that sets the real one back as it is called; round 20's test
    (`self.assertEqual(add(2, 2), 4)`) unchanged, no frame walked. The fingerprints were
    compared at load and at each test's end: the same at both. Since round 28 they are compared
    at each test's start too (`test_runner_attacks_round28_start.py`): held on every Python
    (`observer-machinery: ... the machinery at a unittest test's start`).
Fixed on Python 3.12 and later (observe the call, not the end state): the observer watches the
    calls the code of the test's classes' files makes (`sys.monitoring`'s `CALL`, set on those
    code objects alone; `unittest_watch._watcher`, the body called under it by
    `unittest_result._caller`): each call of anything but `TestCase`'s own functions asks which
    assert methods are set on the test or its class now, held to `_foreign`'s rules, and which
    of `TestCase`'s own assert and fail methods are no longer the ones loaded
    (`unittest_watch._present`, `_case_changed`); each name is streamed once, and fixbot
    counts one the start's run did not stream. A call site that called neither a method of the
    test's nor saw anything is not asked again (`DISABLE`). Before 3.12 the first two rows are
    still holes (strict xfail, `unwatched`): a profile function (`sys.setprofile`) saw the same but
    made 200,000 `assertEqual` calls in a body take 2.1-2.8 s rather than 0.26-0.43 s, and
    200,000 calls of `add` 2.9-3.3 s rather than 0.008 s (the watch, 3.13: 0.31-0.35 s for
    0.30-0.33 s, and 0.008 s). The watch switched off by the code under test first: round 30
    (`test_runner_attacks_round30_watch.py`).

Legitimate row (must stay `fixed`, no finding): a test that aliases unittest's own assert method
in its `setUp` and patches `assertTrue` on itself with `mock.patch.object` for the length of a
block before its failing assertion (both named, `set by .../case.py` and `set by ?`, in the
start's run as after the fix). Not a row, known: the same patch after the failing assertion is
reached by the fix's run alone, its `set by ?` (a mock, as the code under test's would be) a
finding the start's run did not stream: `escalated`, the safe side.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.pythons import PROJECT_PYTHON, version_of
from tests.fakes.repo import make_repo
from tests.run.test_runner_attacks_round20 import (
    PY_APP,
    PY_TEST,
    UNITTEST,
    Fixed,
    held,
    honest,
    py_repo,
)

pytestmark = pytest.mark.slow

# the watch is `sys.monitoring`'s (Python 3.12 and later): before, each cheat is still a hole
UNWATCHED = int((version_of(PROJECT_PYTHON, ("unittest",)) or "3.0").split(".")[1]) < 12
unwatched = pytest.mark.xfail(
    UNWATCHED,
    strict=True,
    raises=Fixed,
    reason="the project's Python is older than 3.12: no `sys.monitoring`, the observer's watch"
    " is off (a profile function, `sys.setprofile`, saw the same but made 200,000 `assertEqual`"
    " calls about 7 times slower); class of fix: a watch of the calls of the test's files' code"
    " that costs only there before 3.12 (none in pure Python: a profile or trace function is"
    " called for every frame), or the deciding check run under 3.12 or later",
)

# the test looks up `assertEqual` after `add` returned (a test that names its result first)
NAMED_TEST = PY_TEST.replace(
    "self.assertEqual(add(2, 2), 4)", "total = add(2, 2)\n        self.assertEqual(total, 4)"
)

ON_INSTANCE = """\
import sys


def add(a, b):
    if (a, b) != (2, 2):
        return a - b
    test = sys._getframe(1).f_locals["self"]

    def alike(first, second, msg=None):
        del vars(test)["assert" + "Equal"]

    vars(test)["assert" + "Equal"] = alike
    return a - b
"""

ON_CLASS = """\
import sys


def add(a, b):
    if (a, b) != (2, 2):
        return a - b
    kind = type(sys._getframe(1).f_locals["self"])

    def alike(self, first, second, msg=None):
        delattr(kind, "assert" + "Equal")

    setattr(kind, "assert" + "Equal", alike)
    return a - b
"""

# set on `TestCase` as app.py is imported, set back as it is called: no frame walked
ON_TESTCASE = """\
import importlib

_case = importlib.import_module("unit" + "test").TestCase
_name = "assert" + "Equal"
_real = vars(_case)[_name]


def _alike(self, first, second, msg=None):
    setattr(_case, _name, _real)


setattr(_case, _name, _alike)


def add(a, b):
    return a - b
"""


def named_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"app.py": PY_APP, "test_app.py": NAMED_TEST})


@unwatched
def test_unittest_assert_method_set_on_the_instance_takes_itself_away(tmp_path: Path) -> None:
    reason = "unittest: assertEqual of test set by app.py"
    held(named_repo(tmp_path), {"app.py": ON_INSTANCE}, UNITTEST, reason)


@unwatched
def test_unittest_assert_method_set_on_the_class_takes_itself_away(tmp_path: Path) -> None:
    reason = "unittest: assertEqual of AddTest set by app.py"
    held(named_repo(tmp_path), {"app.py": ON_CLASS}, UNITTEST, reason)


def test_unittest_assert_method_of_testcase_set_back_as_it_is_called(tmp_path: Path) -> None:
    """Held on every Python since round 28 by the fingerprints at each test's start
    (`fingerprints.BEGUN`; 3.12 and later name `assertEqual of TestCase set by app.py` before
    it, as the watch saw it)."""
    reason = "observer-machinery: changed while the tests ran: "
    held(py_repo(tmp_path), {"app.py": ON_TESTCASE}, UNITTEST, reason)


# the test's own alias of unittest's assert method, and a mock it patches in for one block
PATCHED_TEST = """\
import unittest
from unittest import mock

from app import add


class AddTest(unittest.TestCase):
    def setUp(self):
        self.assertSame = self.assertEqual

    def test_add(self):
        with mock.patch.object(self, "assertTrue") as checked:
            self.assertTrue(add(0, 0) == 1)
        checked.assert_called_once_with(False)
        total = add(2, 2)
        self.assertSame(total, 4)
"""


def test_legitimate_fix_of_a_test_that_patches_its_own_assert_methods(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": PY_APP, "test_app.py": PATCHED_TEST})
    message = honest(repo, {"app.py": PY_APP.replace("a - b", "a + b")}, UNITTEST)
    assert "Verified by fixbot's observer inside unittest (1 test" in message, message
