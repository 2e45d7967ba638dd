"""The file each test class is judged by, in fixbot's observer inside unittest: captured as the
class is made, by the observer's own `TestCase.__init_subclass__` (`unittest_made._maker`),
not read from the class's `__module__` or its module's `__file__`, which the code under test
can rewrite with no audit event (round 27). In this process: module code compiled under a
work-tree file's name and run as importing it runs it (the recorder's audit hook told)."""

from __future__ import annotations

import json
import os
import sys
import types
import unittest
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import alike, bodies
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_made as made_part
from fixbot.observe.stream import parse

TEST_MODULE = """\
import unittest

from helped import Alike, Base


class Case(Alike, Base):
    def test_it(self):
        pass
"""
HELPED = """\
import unittest


class Alike:
    def assertAlike(self, first, second):
        self.assertEqual(first, second)


class Base(unittest.TestCase):
    def assertSum(self, total, *terms):
        self.assertEqual(sum(terms), total)
"""
APP = "def alike(first, second, msg=None):\n    pass\n"


class _Project:
    """A work tree under `root` whose modules (`imported`) are run as importing them runs
    them: the recorder's hook told of each module code, the observer's `__init_subclass__` on
    `TestCase`."""

    def __init__(self, root: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root, self.monkeypatch = root, monkeypatch
        self.hook, self.ours, made = compiled._recorder(root)
        monkeypatch.setattr(unittest.TestCase, "__init_subclass__", made)

    def imported(self, name: str, source: str) -> Any:
        module = types.ModuleType(name)
        module.__file__ = self.root + name + ".py"
        self.monkeypatch.setitem(sys.modules, name, module)
        code = compile(source, module.__file__, "exec")
        self.hook("exec", (code,))
        exec(code, vars(module))
        return module


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[_Project, Any, Any]:
    project = _Project(os.path.join(str(tmp_path), ""), monkeypatch)
    project.imported("helped", HELPED)
    app = project.imported("app", APP)
    return project, project.imported("test_forged", TEST_MODULE), app


def test_a_class_made_in_a_helper_module_and_its_mixin_are_the_tests_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test class subclassing a base made in a helper module, beside a mixin with its own
    assert helper: each class's file is the one its statement ran in; no finding. A mixin is
    no `TestCase` (no statement seen): the file of its own functions' code, its `__module__`
    not read; given a function of app.py's beside its own it has none (round 30)."""
    project, module, app = _project(tmp_path, monkeypatch)
    test = module.Case("test_it")
    files = asserts._set_on(test, project.ours)[1]
    assert files == [project.root + n for n in ("test_forged.py", "helped.py", "helped.py")]
    assert asserts._foreign(test, project.root, project.ours) == []
    source = "import abc\nfrom helped import Base\nclass A(Base, metaclass=abc.ABCMeta): pass\n"
    abstract = project.imported("abstract", source)  # past `ABCMeta.__new__`: its statement's
    assert project.ours(abstract.A, True) == project.root + "abstract.py"
    monkeypatch.setattr(module.Alike, "__module__", "app")
    monkeypatch.setattr(module.Alike, "assertEqual", app.alike, raising=False)
    named = ["unittest: assertEqual of a base class set by app.py"]
    assert asserts._foreign(test, project.root, project.ours) == named
    assert asserts._foreign(test, project.root) == []  # at `__module__`'s word: passed
    assert test._classSetupFailed is False and test._class_cleanups == []  # `TestCase`'s own ran


def test_a_test_classs_module_or_file_rewritten_leaves_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 27: app.py set the test class's `__module__` to "app", or the test module's
    `__file__` to app.py's, and put a no-op of its own in the test's equality table: the class's
    file was read from them, app.py's, and the no-op was app.py's code. The file captured as the
    class was made is the test's: the no-op is named (taken at `__module__`'s word it is not)."""
    project, module, app = _project(tmp_path, monkeypatch)
    test = module.Case("test_it")
    test.addTypeEqualityFunc(int, app.alike)
    named = ["unittest: _type_equality_funcs of test set by app.py"]
    assert asserts._foreign(test, project.root, project.ours) == named
    monkeypatch.setattr(module.Case, "__module__", "app")
    assert asserts._foreign(test, project.root, project.ours) == named
    assert asserts._foreign(test, project.root) == []  # at `__module__`'s word: passed
    monkeypatch.setattr(module.Case, "__module__", "test_forged")
    monkeypatch.setattr(module, "__file__", app.__file__)
    assert asserts._foreign(test, project.root, project.ours) == named
    assert asserts._foreign(test, project.root) == []


def test_a_test_class_named_unittests_own_is_still_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_set_on` stopped at the first class whose `__module__` was "unittest.case": a test class
    renamed so had its own assert methods passed over (`_getAssertEqualityFunc` of app.py's
    set on it, `_used` never asked). It stops at `TestCase` itself."""
    project, module, app = _project(tmp_path, monkeypatch)
    monkeypatch.setattr(module.Case, "_getAssertEqualityFunc", app.alike, raising=False)
    monkeypatch.setattr(module.Case, "__module__", "unittest.case")
    named = ["unittest: _getAssertEqualityFunc of Case set by app.py"]
    assert asserts._foreign(module.Case("test_it"), project.root, project.ours) == named


def test_a_class_the_observer_did_not_see_made_by_a_statement_has_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class one `TestCase.__init_subclass__` was replaced for (the code under test's own
    calling the observer's: its caller is no class statement), one the observer's was called
    for again (by the code under test, from its own file), or one made before the observer's
    was set has no file: its assert methods are named (the safe side), as has one made by
    `type(...)` or `types.new_class` (no class statement's call is running)."""
    project, module, app = _project(tmp_path, monkeypatch)
    made = vars(unittest.TestCase)["__init_subclass__"]
    ours = project.ours
    assert ours(type("Made", (module.Case,), {}), True) is None  # `type(...)`: no statement
    assert ours(types.new_class("Made", (module.Case,)), True) is None
    kind = project.imported("other", "from test_forged import Case\nclass Made(Case): pass\n")
    assert ours(kind.Made, True) == project.root + "other.py"
    made.__func__(kind.Made)  # called again, from here
    assert ours(kind.Made, True) is None

    def wrapper(cls: Any, **kwargs: Any) -> None:
        made.__func__(cls, **kwargs)

    monkeypatch.setattr(unittest.TestCase, "__init_subclass__", classmethod(wrapper))
    wrapped = project.imported("wrapped", "from test_forged import Case\nclass W(Case): pass\n")
    assert ours(wrapped.W, True) is None
    assert ours(type("Late", (unittest.TestCase,), {}), True) is None
    test = wrapped.W("test_it")
    test.addTypeEqualityFunc(int, app.alike)
    assert asserts._foreign(test, project.root, ours) == [
        "unittest: _type_equality_funcs of test set by app.py"
    ]
    with pytest.raises(TypeError):  # a class keyword unknown to `object` is refused, as before
        monkeypatch.setattr(unittest.TestCase, "__init_subclass__", made)
        project.imported("keyed", "import unittest\nclass K(unittest.TestCase, x=1): pass\n")


# app.py's own `TestCase.__init_subclass__`: as a test class is made, it puts the observer's back
# and calls it itself, from a function of app.py's (`{call}`)
SWAPPING = """\
import unittest

observers = vars(unittest.TestCase)["__init_subclass__"]


def swapped(cls, **kwargs):
    unittest.TestCase.__init_subclass__ = observers
{call}


unittest.TestCase.__init_subclass__ = classmethod(swapped)


def alike(first, second, msg=None):
    pass
"""


# the call: at once, or from a metaclass's `__new__` of app.py's, in a class statement of app.py's
CALLS = {
    "direct": "    observers.__func__(cls, **kwargs)",
    "metaclass": """\
    class Meta(type):
        def __new__(mcls, *args):
            observers.__func__(cls, **kwargs)
            return type.__new__(mcls, *args)

    class Made(metaclass=Meta):
        pass""",
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_class_whose_maker_is_no_class_statement_has_no_file(
    call: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """App.py, imported before the test module's class statement, set its own
    `TestCase.__init_subclass__`, which put the observer's back and called it: the frame kept
    was app.py's function, the class's file app.py, and a no-op of app.py's set on the class
    passed as the class's own file's. The kept frame must be running a class statement's call
    (`_building`): the class has no file, the no-op is named. A statement whose bases jump (a
    conditional expression) is no statement's either (the safe side). Nor is app.py's metaclass's
    `__new__` passed over as `ABCMeta`'s is: only those of the class's own metaclass (`_news`)."""
    project = _Project(os.path.join(str(tmp_path), ""), monkeypatch)
    app = project.imported("app", SWAPPING.replace("{call}", CALLS[call]))
    source = "import unittest\nimport app\nclass Case(unittest.TestCase):\n    pass\n"
    module = project.imported("test_swapped", source)
    assert vars(unittest.TestCase)["__init_subclass__"] is app.observers
    assert project.ours(module.Case, True) is None
    monkeypatch.setattr(module.Case, "assertEqual", app.alike, raising=False)
    named = ["unittest: assertEqual of Case set by app.py"]
    assert asserts._foreign(module.Case("run"), project.root, project.ours) == named
    source = "import unittest\nclass Case(unittest.TestCase if unittest else object):\n    pass\n"
    assert project.ours(project.imported("test_jumps", source).Case, True) is None


def test_only_a_class_statements_call_is_building() -> None:
    """`_building` is true at a class statement's own call alone: not at a call among its bases,
    nor at one after it, nor where its bases jump."""

    def made(base: Any) -> None:
        class Made(base.mro()[0]):  # type: ignore[misc]
            pass

        class Other(base if base else object):  # type: ignore[misc]
            pass

        print(Made, Other)

    code = made.__code__
    calls = [
        offset
        for offset, name, _ in compiled._part("bytecode").instructions(code)
        if name in made_part.CALLS
    ]
    assert [made_part._building(code, offset) for offset in calls] == [False, True, False, False]


class _Early(unittest.TestCase):
    """Made as this module was imported: no observer's `__init_subclass__` saw it."""

    def test_it(self) -> None:
        pass


def test_a_class_made_before_the_observer_has_no_file(tmp_path: Path) -> None:
    ours = compiled._recorder(os.path.join(str(tmp_path), ""))[1]
    assert ours(_Early, True) is None
    assert asserts._set_on(_Early("test_it"), ours)[1] == [None]


def test_a_testcase_without_its_own_init_subclass_still_keeps_each_class_statements_code() -> None:
    """Python 3.8 and 3.9's `TestCase` defines no `__init_subclass__` (3.10 added one): the
    observer's calls the one it inherits (`_above`) instead of failing to load, and still keeps
    each class statement's code."""

    class Case:  # no `__init_subclass__` of its own, as 3.8's `TestCase`
        pass

    made: dict[int, tuple[Any, Any]] = {}
    Case.__init_subclass__ = classmethod(made_part._maker(made, Case))  # type: ignore[assignment]

    class Made(Case):
        pass

    assert made[id(Made)] == (Made, sys._getframe().f_code)


REBINDS = """\
import sys
import unittest


class Case(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        pass


class _Unittest:
    TestCase = Case


def rebind():
    sys._getframe(1).f_globals["unittest"] = _Unittest
"""
REBOUND_TEST = """\
import unittest

from app import rebind

rebind()


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(2 + 2, 4)
"""


def _began(project: _Project, test: unittest.TestCase) -> Observation:
    """The `code` record `unittest_machinery._began` streams for `test` as its run begins, read
    by fixbot (the test reported failed)."""
    sent: list[dict[str, object]] = []
    held = ("u1", (), None, project.root, project.ours)
    machinery._began(test, test.id(), sent.append, held, bodies._code_digest)
    lines = [{"k": "start", "watch": [], "runner": "unittest"}, *sent]
    lines += [{"k": "r", "id": test.id(), "w": "call", "o": "failed"}, {"k": "end", "status": 1}]
    return parse("".join(f"n\t{json.dumps(line)}\n" for line in lines), "n")


def test_a_tests_class_made_on_a_base_of_the_codes_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 28: app.py rebinds the test module's `unittest` to a namespace whose `TestCase`
    is app.py's subclass with a no-op `assertEqual`; the test class is made on it (both seen
    made by their statements, the body's code the same). Each test's run streams its classes'
    files (`unittest_asserts._class_files`), which fixbot holds to the start's run's
    (`alike.rebased`): app.py is new among them."""
    observed = []
    for name, source in (("start", "def rebind():\n    pass\n"), ("fix", REBINDS)):
        project = _Project(os.path.join(str(tmp_path / name), ""), monkeypatch)
        project.imported("app", source)
        module = project.imported("test_app", REBOUND_TEST)
        observed.append(_began(project, module.AddTest("test_add")))
    start, last = observed
    test = "test_app.AddTest.test_add"
    assert start.classes == {test: ["test_app.py"]}
    assert last.classes == {test: ["test_app.py", "app.py"]}
    assert start.digests == last.digests  # the body's code the same: `swapped` sees nothing
    assert alike.swapped(start, last, {test}, ["app.py"]) == []
    found = alike.rebased(start, last, {test}, ["app.py"])
    assert found and found[0].startswith("observer-tampered: a class of its was made in a file")
    assert test in found[0]
    assert alike.rebased(start, start, {test}, ["app.py"]) == []
    assert alike.rebased(None, last, {test}, ["app.py"]) == []
    # the fix changed the test file: a change of the tests, judged by the start's tests instead
    assert alike.rebased(start, last, {test}, ["app.py", "test_app.py"]) == []


def test_a_base_in_an_unchanged_or_changed_helper_module_is_no_finding() -> None:
    """A test class based in tests/helpers.py, unchanged by the fix: the same files, no
    finding. A fix that edits tests/helpers.py to base it on a new tests/base.py changed a test
    file among the test's classes' files: a change of the tests (the deciding check runs them as
    the start had them: `integrity.original_tree`), no finding here. A new file of the code's
    beside them is one."""
    test = "test_app.AddTest.test_add"
    helped = ["test_app.py", "tests/helpers.py"]
    start = Observation(sessions=1, tests={test: "failed"}, classes={test: helped})
    same = Observation(sessions=1, tests={test: "passed"}, classes={test: helped})
    assert alike.rebased(start, same, {test}, ["app.py"]) == []
    added = same.model_copy(update={"classes": {test: [*helped, "tests/base.py"]}})
    assert (
        alike.rebased(start, added, {test}, ["app.py", "tests/base.py", "tests/helpers.py"]) == []
    )
    coded = same.model_copy(update={"classes": {test: [*helped, "app.py"]}})
    assert alike.rebased(start, coded, {test}, ["app.py"]) != []
    assert alike.rebased(start, coded, set(), ["app.py"]) == []  # passed at the start: not held
    # the start's run streamed no classes (pytest's observer, an older one): nothing to hold to
    unknown = start.model_copy(update={"classes": {}})
    assert alike.rebased(unknown, coded, {test}, ["app.py"]) == []


def test_a_class_of_unknown_file_more_than_the_start_had_is_a_finding() -> None:
    """Round 31: the start's honest mixin holds a `cached_property` (its file "?"), and the
    fix's run has a second class of unknown file, app.py's mixin: the files are counted, one
    per class, so a "?" the start had does not stand for any number of them. Kept counted
    from the stream too (`stream._code`: each file as often as one record names it)."""
    test = "test_app.AddTest.test_add"
    start = Observation(sessions=1, tests={test: "failed"}, classes={test: ["test_app.py", "?"]})
    more = start.model_copy(update={"classes": {test: ["test_app.py", "?", "?"]}})
    assert alike.rebased(start, start, {test}, ["app.py"]) == []
    assert alike.rebased(start, more, {test}, ["app.py"]) != []
    fewer = start.model_copy(update={"classes": {test: ["test_app.py"]}})
    assert alike.rebased(start, fewer, {test}, ["app.py"]) == []
    line = json.dumps(
        {"k": "code", "id": test, "h": "0" * 16, "f": "test_app.py", "c": ["test_app.py", "?", "?"]}
    )
    # a second call of the test names the same classes: not added again
    seen = parse(f"n\t{line}\nn\t{line}\n", "n")
    assert seen.classes == {test: ["test_app.py", "?", "?"]}
