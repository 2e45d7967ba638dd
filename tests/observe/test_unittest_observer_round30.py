"""fixbot's observer inside unittest, round 30's hole: a mixin (a class of a test's MRO
that is no `TestCase`) judged by the file of its own functions' code, read as asked
(`unittest_made._mixin_file`), not by the module its `__module__` names, which app.py set to
the test module's before the test's class statement ran. In this process, on the round-27
helpers' project (`test_unittest_class_files._Project`: module code run as importing it runs
it, the recorder's hook told)."""

from __future__ import annotations

import functools
import os
import unittest
from pathlib import Path

import pytest

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_made as made_part
from tests.observe.test_unittest_class_files import HELPED, _Project

# app.py's mixin named the test module's (round 30's row: its `__getattribute__` hands the test
# body back wrapped, the failure swallowed), and a test module made with it
NAMED = """\
class Mix:
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


Mix.__module__ = "test_app"


def alike(first, second, msg=None):
    pass
"""
TEST_APP = """\
import unittest

from app import Mix
from helped import Alike


class Helpers:
    retries = 3

    def assertSorted(self, items):
        self.assertEqual(list(items), sorted(items))

    @staticmethod
    def numbers():
        return [1, 2]

    @property
    def first(self):
        return self.numbers()[0]


class Data:
    maxDiff = None


class Case(Helpers, Alike, Data, unittest.TestCase):
    def test_it(self):
        self.assertSorted(self.numbers())


class Mixed(Mix, unittest.TestCase):
    def test_it(self):
        pass
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[_Project, object, object]:
    project = _Project(os.path.join(str(tmp_path), ""), monkeypatch)
    project.imported("helped", HELPED)
    app = project.imported("app", NAMED)
    return project, project.imported("test_app", TEST_APP), app


def test_a_mixin_named_the_test_module_s_is_the_file_of_its_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 30: app.py's mixin, its `__module__` "test_app", was read as test_app.py's (the
    module its `__module__` named as the test class was made): every class of the test's was
    test_app.py's, `alike.rebased` found nothing new. Its file is its functions' code's:
    app.py, new among the test's classes' files."""
    project, module, app = _project(tmp_path, monkeypatch)
    test = module.Mixed("test_it")
    assert project.ours(app.Mix, True) == project.root + "app.py"
    assert asserts._class_files(test, project.root, project.ours) == ["test_app.py", "app.py"]


def test_an_honest_mixin_in_the_test_file_or_a_helper_module_is_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No false alarm: a `Helpers` mixin in the test file (a method, a static method, a
    property, data) is the test file's, a mixin in a helper module the helper's; one with no
    function of its own has no file ("?"), the same in the start's run and the fix's."""
    project, module, _ = _project(tmp_path, monkeypatch)
    test = module.Case("test_it")
    assert project.ours(module.Helpers, True) == project.root + "test_app.py"
    assert project.ours(module.Alike, True) == project.root + "helped.py"
    assert project.ours(module.Data, True) is None
    # one per class: Case and Helpers the test file's, Alike the helper's, Data none
    assert asserts._class_files(test, project.root, project.ours) == [
        "test_app.py",
        "test_app.py",
        "helped.py",
        "?",
    ]
    assert asserts._foreign(test, project.root, project.ours) == []


def test_a_mixin_given_code_of_another_file_or_not_its_file_s_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as asked, not as the first test class was made with it: a function of app.py's
    set on the test file's mixin later (a plain class attribute, no audit event), one compiled
    under the test file's name but not from it, a callable or descriptor whose code is not read
    (a `functools.partial`): the mixin has no file ("?"), new among the test's classes."""
    project, module, app = _project(tmp_path, monkeypatch)
    helpers = module.Helpers
    monkeypatch.setattr(helpers, "__getattribute__", app.alike, raising=False)
    assert project.ours(helpers, True) is None
    monkeypatch.delattr(helpers, "__getattribute__")
    assert project.ours(helpers, True) == project.root + "test_app.py"
    space: dict[str, object] = {}
    exec(compile("def run(self):\n    pass\n", project.root + "test_app.py", "exec"), space)
    monkeypatch.setattr(helpers, "run", space["run"], raising=False)
    assert project.ours(helpers, True) is None  # named test_app.py, not compiled from it
    monkeypatch.setattr(helpers, "run", functools.partial(app.alike), raising=False)
    assert project.ours(helpers, True) is None
    monkeypatch.setattr(helpers, "run", classmethod(functools.partial(app.alike)), raising=False)
    assert project.ours(helpers, True) is None
    monkeypatch.delattr(helpers, "run")
    assert asserts._class_files(module.Case("test_it"), project.root, project.ours)[0:3] == [
        "test_app.py",
        "test_app.py",
        "helped.py",
    ]


def test_what_a_namespace_value_runs() -> None:
    """`_own_functions`: a function, a class or static method's, a property's parts; data runs
    nothing; anything else that runs code as it is used (a partial, a class, an object of a
    `__get__` or `__call__` of its own) is unknown (None)."""

    def helper() -> None:
        pass

    class Hooked:
        def __get__(self, owner: object, kind: object = None) -> None:
            pass

    own = made_part._own_functions
    assert own(helper) == [helper]
    assert own(classmethod(helper)) == own(staticmethod(helper)) == [helper]
    assert own(property(helper, helper)) == [helper, helper]
    for data in (None, 3, "text", (1,), {"a": 1}, vars(Hooked)["__dict__"]):
        assert own(data) == [], data
    for running in (functools.partial(helper), Hooked, Hooked(), staticmethod(len), len):
        assert own(running) is None, running


def test_a_class_of_a_file_two_module_codes_ran_under_is_unknown_in_the_code_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 30: app.py ran a class statement (a `TestCase` subclass whose `__getattribute__`
    wraps the test's body) compiled under test_app.py's name as module code: with two module
    codes under its name the class was test_app.py's, nothing new among the test's classes.
    Its file is a `_Twice`: equal to test_app.py for judging assert methods (`not compiled
    from it`, as before), "?" in the `code` record, for the honest class of that file too."""
    project, module, app = _project(tmp_path, monkeypatch)
    source = """\
class Forged(Base):
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)
"""
    forged = compile(source, project.root + "test_app.py", "exec")
    project.hook("exec", (forged,))
    space = {"Base": unittest.TestCase, "__name__": "test_app"}
    exec(forged, space)
    kind = space["Forged"]
    assert project.ours(kind, True) == project.root + "test_app.py"
    assert type(project.ours(kind, True)) is not str
    assert asserts._class_files(kind(), project.root, project.ours) == ["?"]
    test = module.Case("test_it")
    assert asserts._class_files(test, project.root, project.ours) == ["?", "?", "helped.py", "?"]
    monkeypatch.setattr(module.Case, "assertEqual", app.alike, raising=False)
    named = ["unittest: assertEqual of Case set by app.py"]
    # the test file's own helper, as before: no function is a file's two module codes ran under
    named += ["unittest: assertSorted of a base class set by test_app.py, not compiled from it"]
    assert asserts._foreign(test, project.root, project.ours) == named
