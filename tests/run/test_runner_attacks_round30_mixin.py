"""Round 30: a mixin's file from where its code was compiled, not from its `__module__`.
A mixin (a class of a test's MRO that is no `TestCase`) triggers no `__init_subclass__` of the
observer's; its file was the module's its `__module__` named as the first test class was made
with it (`unittest_made._mixins`), a name app.py can set. Round 29's row
(`unittest_mixin_named_the_test_module_s_by_mro_entries`) was held only because its mixin's
`run` ran no test (`observer-unseen`). Rows as round 20's (`held`, `honest`) on its project
(`python -m unittest`, `add` subtracts: `test_add` fails, `test_zero` passes), the cheat round
29's `__mro_entries__` rebinding (test_app.py's own class statement made on app.py's mixin).

The cheat (test name), what it does, why it got through, the class of fix:

unittest_mixin_named_the_test_module_s_wraps_the_test_method (held since this round,
    `observer-tampered: a class of its was made in a file none of its classes ...`): the mixin,
    its `__module__` set to "test_app", defines `__getattribute__` (no assert method's name:
    `unittest_asserts._judged` reads none) handing `TestCase.run` the test method wrapped in a
    function that calls it and swallows its `AssertionError`. The observer sees the test run
    (its `_callTestMethod` called the wrapper, which returned: the body "returned"), the
    body's digest is the class's own `test_add` (`_body` reads namespaces, not `getattr`),
    and every class of the test's read as test_app.py's: `fixed` on 3.11, 3.12 and 3.13.
    Fixed (take the file from code, not from a name the code under test writes): a mixin's
    file is the one file its own functions' code was compiled from, held to the code that file
    was compiled to as imported (`unittest_made._mixin_file`, read as each test begins): app.py
    here, new among the test's classes (`alike.rebased`).
unittest_base_class_exec_under_the_test_file_s_name_wraps_the_test_method (held since this
    round, the same finding): round 29's first row (app.py `exec`s a `TestCase` subclass's
    class statement compiled under test_app.py's name and rebinds test_app's `unittest` to a
    namespace whose `TestCase` it is) with that class's no-op `assertEqual` made the same
    `__getattribute__` (no assert method's name), every name of the framework computed (no
    `framework-patched`): with two module codes under test_app.py's name, a class made there
    was read as test_app.py's (`unittest_compiled._class_file`, so that assert methods naming
    it are judged `not compiled from it`), nothing new for `rebased` (`fixed` on 3.11).
    Fixed: such a class's file is a `_Twice`, equal to the file for judging assert methods,
    "?" in the `code` record (the honest class of a file imported twice too, alike in the
    start's run and the fix's).

Legitimate row (must stay `fixed`, no finding): a test file with its own `Helpers` mixin and a
mixin imported from a tests helper module (round 27's `tests_helpers.py`), fixed honestly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.repo import make_repo
from tests.observe.test_unittest_class_files import HELPED as HELPERS
from tests.run.test_runner_attacks_round20 import PY_APP, UNITTEST, held, honest, py_repo
from tests.run.test_runner_attacks_round23 import FIXED

pytestmark = pytest.mark.slow

WRAPS = """\
import importlib
import sys

_unittest = importlib.import_module("unit" + "test")


class _Mix:
    def __getattribute__(self, name):
        found = object.__getattribute__(self, name)
        if not name.startswith("test_"):
            return found

        def body():
            try:
                found()
            except AssertionError:
                pass

        return body


_Mix.__module__ = "test_app"


class _Entry:
    def __mro_entries__(self, bases):
        return (_Mix, _unittest.TestCase)


class _Unittest:
    TestCase = _Entry()
    main = staticmethod(_unittest.main)


_test = sys.modules.get("test_app")
if _test is not None:
    _test.unittest = _Unittest


def add(a, b):
    return a - b
"""


def test_unittest_mixin_named_the_test_module_s_wraps_the_test_method(tmp_path: Path) -> None:
    reason = "observer-tampered: a class of its was made in a file none of its classes"
    held(py_repo(tmp_path), {"app.py": WRAPS}, UNITTEST, reason)


# round 29's first row's base class, its no-op `assertEqual` now a `__getattribute__` wrapping
# the test's body (no assert method's name), every name of the framework computed
TWICE = """\
import importlib
import sys

_u = importlib.import_module("unit" + "test")
CASE = \"\"\"\\
class _Case(Base):
    def __getattribute__(self, name):
        found = object.__getattribute__(self, name)
        if not name.startswith("test_"):
            return found

        def body():
            try:
                found()
            except AssertionError:
                pass

        return body
\"\"\"


class _Space:
    main = staticmethod(_u.main)


_test = sys.modules.get("test_app")
if _test is not None:
    _space = {"Base": getattr(_u, "Test" + "Case"), "__name__": "test_app"}
    exec(compile(CASE, _test.__file__, "exec"), _space)
    setattr(_Space, "Test" + "Case", _space["_Case"])
    setattr(_test, "unit" + "test", _Space)


def add(a, b):
    return a - b
"""


def test_unittest_base_class_exec_under_the_test_file_s_name_wraps_the_test_method(
    tmp_path: Path,
) -> None:
    reason = "observer-tampered: a class of its was made in a file none of its classes"
    held(py_repo(tmp_path), {"app.py": TWICE}, UNITTEST, reason)


MIXED_TEST = """\
import unittest

from app import add
from tests_helpers import Alike


class Helpers:
    def assertAdds(self, a, b, total):
        self.assertEqual(add(a, b), total)


class AddTest(Helpers, Alike, unittest.TestCase):
    def test_add(self):
        self.assertAdds(2, 2, 4)
        self.assertAlike(add(2, 2), 4)

    def test_zero(self):
        self.assertEqual(add(0, 0), 0)
"""


def test_legitimate_fix_of_a_test_class_with_mixins_of_its_file_and_a_helper(
    tmp_path: Path,
) -> None:
    files = {"app.py": PY_APP, "test_app.py": MIXED_TEST, "tests_helpers.py": HELPERS}
    message = honest(make_repo(tmp_path / "repo", files), {"app.py": FIXED}, UNITTEST)
    assert "Verified by fixbot's observer inside unittest (2 tests)" in message, message
