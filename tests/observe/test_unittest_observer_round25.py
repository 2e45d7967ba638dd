"""fixbot's observer inside unittest, rounds 25 and 27's holes: what the test's end alone did
not see (the equality function judged as it is picked, a test's class or bases written, an
assert method that takes itself away as it is called; split from `test_unittest_observer.py`,
whose helpers it imports)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

from fixbot.observe import channel
from fixbot.observe import unittest_asserter as asserter
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_compiled as compiled
from fixbot.observe import unittest_machinery as machinery
from fixbot.observe import unittest_watch as watch_part
from tests.fakes.pythons import PROJECT_PYTHON, version_of
from tests.observe.test_unittest_observer import _Real, pythons

# --- round 25's holes: what the test's end alone did not see ------------------------------------


def test_the_function_assert_equal_picks_is_judged_as_it_is_picked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 25: a function of app.py's in the test's equality table that deletes its own
    entry as `assertEqual` calls it is gone by the test's end (`_foreign` finds nothing). The
    observer's `TestCase._getAssertEqualityFunc` (`unittest_asserter._asserter`) judges what
    it returns as it returns it (`unittest_asserter._used`), each name streamed once, while a
    run goes on; unittest's `_baseAssertEqual` and a method its table names, or the test's
    own, are no finding."""
    root = os.path.join(os.path.dirname(__file__), "")
    sent: list[dict[str, object]] = []
    state: list[object] = [True, 0, False, None]
    held = ("u1", (), None, root, asserts._word)
    orig = vars(unittest.TestCase)["_getAssertEqualityFunc"]
    judge = asserter._asserter(orig, sent.append, state, held)
    monkeypatch.setattr(unittest.TestCase, "_getAssertEqualityFunc", judge)
    test = _Real("test_add")
    test.assertEqual(2, 2)  # `_baseAssertEqual`
    test.addTypeEqualityFunc(list, test.assertListEqual)
    test.assertEqual([1], [1])
    assert sent == []
    source = "def alike(first, second, msg=None):\n    del test._type_equality_funcs[int]\n"
    space: dict[str, object] = {"test": test}
    exec(compile(source, "/tmp/app.py", "exec"), space)
    for _ in range(2):
        test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
        test.assertEqual(0, 4)  # passes: the function asserted nothing and took itself out
    assert asserts._foreign(test, root) == []  # the end sees nothing
    named = ["unittest: _type_equality_funcs of test, as used, set by /tmp/app.py"]
    assert sent == [{"k": "machinery", "changed": named}]  # once
    state[0] = False  # no run of the observer's: nothing streamed
    test.addTypeEqualityFunc(int, space["alike"])  # type: ignore[arg-type]
    test.assertEqual(0, 4)
    assert len(sent) == 1
    assert "_getAssertEqualityFunc" in [c.co_name for c in machinery.CALLERS]
    assert ("unittest.case", "TestCase._getAssertEqualityFunc") in machinery.MACHINERY


class _Swapped(_Real):
    pass


def test_a_tests_class_or_bases_written_is_named() -> None:
    """Round 25: app.py set the running test's `__class__` to a subclass of its own whose
    `_getAssertEqualityFunc` set it back (and, left swapped, every class of the test's MRO was
    trusted). The recorder's audit hook (`unittest_compiled._recorder`, `_retyped`) keeps each
    write of a test's `__class__` or a test class's `__bases__`, and `_foreign` names it at the
    test's end, once; writes to other objects are not kept."""
    root = os.path.join(os.path.dirname(__file__), "")
    hook, ours, _ = compiled._recorder(root)
    test = _Real("test_add")
    assert asserts._foreign(test, root, ours) == []
    hook("object.__setattr__", (test, "__class__", _Swapped))
    hook("object.__setattr__", (_Swapped, "__bases__", (_Real,)))
    hook("object.__setattr__", (object(), "__class__", _Swapped))  # no test: not kept
    hook("object.__setattr__", (_Swapped, "__name__", "S"))  # no write of its class
    assert asserts._foreign(test, root, ours) == ["unittest: __class__ of test set"]
    assert asserts._foreign(test, root, ours) == []  # each write named once
    test.__class__ = _Swapped
    assert asserts._foreign(test, root, ours) == ["unittest: __bases__ of _Swapped set"]
    test.__class__ = _Real


RETYPED = """\
import importlib, importlib.util, sys, unittest

sys.path.insert(0, sys.argv[1])  # the observer's parts, each copied there as x_<part>.py
compiled = importlib.import_module("x_unittest_compiled")
spec = importlib.util.spec_from_file_location("asserts", sys.argv[2])
asserts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(asserts)

hook, ours, made = compiled._recorder("/nowhere/")
sys.addaudithook(hook)


class A(unittest.TestCase):
    def test_it(self):
        pass


class B(A):
    pass


test = A("test_it")
test.__class__ = B
test.__class__ = A
print(asserts._foreign(test, "/nowhere/", ours))
"""


@pytest.mark.slow
def test_the_interpreter_audits_a_tests_class_written(tmp_path: Path) -> None:
    """CPython raises `object.__setattr__` as an object's `__class__` is written (3.8 on): the
    class swapped and swapped back, as round 25's app.py did, is named (the project's
    Python)."""
    parts = tmp_path / "parts"  # every part, as the observer's folder holds them (`channel`)
    parts.mkdir()
    for part in (*channel.PARTS, *channel.UNITTEST_PARTS):
        shutil.copy(part, parts / f"x_{part.name}")
    words = [str(parts), str(parts / "x_unittest_asserts.py")]
    done = subprocess.run(
        [PROJECT_PYTHON, "-c", RETYPED, *words], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.stdout.strip() == "['unittest: __class__ of test set']", done.stderr


# --- round 27's holes: an assert method that takes itself away as it is called ------------------

# run by each Python 3.12 or later found (`sys.monitoring`): the code under test's `add` sets an
# `assertEqual` that asserts nothing on the running test, its class or `TestCase`, which takes
# itself away (or sets the real one back) as the test calls it; then a test that aliases and
# mocks its own assert methods; each line printed: the test's end's names and those streamed
TAKEN_AWAY = '''\
import importlib.util, json, os, sys, unittest
import unittest.mock as mock

def part(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(sys.argv[1], name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

sys.path.insert(0, sys.argv[1])  # the watch imports `unittest_asserts` beside it by name
asserts, result, watched = part("unittest_asserts"), part("unittest_result"), part("unittest_watch")
APP = """
import sys

def add(a, b, where):
    test = sys._getframe(1).f_locals["self"]
    owner = {"test": test, "class": type(test), "case": CASE}[where]
    real = vars(owner).get("assertEqual")

    def alike(*args):
        if real is None:
            delattr(owner, "assertEqual")
        else:
            setattr(owner, "assertEqual", real)

    setattr(owner, "assertEqual", alike)
    return a - b
"""
space = {"CASE": unittest.TestCase}
exec(compile(APP, "/tmp/app.py", "exec"), space)

class Named(unittest.TestCase):
    where = "test"

    def test_add(self):
        total = space["add"](2, 2, self.where)
        self.assertEqual(total, 4)

class Patched(unittest.TestCase):
    def setUp(self):
        self.assertSame = self.assertEqual

    def test_add(self):
        self.assertSame(2 + 2, 4)
        with mock.patch.object(self, "assertTrue") as checked:
            self.assertTrue(False)
        checked.assert_called_once_with(False)

sent, state = [], [True, 0, False, None]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
watch = watched._watcher(sent.append, state, ("u1", (), None, root, asserts._word))
orig = vars(unittest.TestCase)["_callTestMethod"]
on = watch if sys.argv[2] == "on" else ()
for where in ("test", "class", "case", "test"):
    test = Named("test_add")
    test.where = where
    result._caller(orig, [[test, 0, 0, 0]], *on)(test, test.test_add)
    print(json.dumps([asserts._foreign(test, root), sent]))
    sent.clear()
own = Patched("test_add")
own.setUp()
result._caller(orig, [[own, 0, 0, 0]], *on)(own, own.test_add)
print(json.dumps([asserts._foreign(own, root), sent]))
'''


@pytest.mark.slow  # a process under each Python 3.12 or later found (none: skipped)
def test_an_assert_method_that_takes_itself_away_is_seen_as_it_is_called(tmp_path: Path) -> None:
    """Round 27: `add` sets an `assertEqual` that asserts nothing on the running test, its class
    or `TestCase`, which takes itself away as the test calls it: gone by the test's end (no
    `_foreign` name, the fingerprints the same). On Python 3.12 and later the observer watches
    the calls of the test's files' code (`unittest_watch._watcher`, `sys.monitoring`; the body
    called under it, `unittest_result._caller`) and asks `_present` as one calls anything but
    `TestCase`'s own: each name streamed once. A test's own alias of unittest's method and a
    mock it patches in are named, as in the start's run. Before 3.12: no watch."""
    if sys.version_info < (3, 12):  # in this process: no tool id taken
        assert watch_part._watcher(print, [True], ()) == (None, None, None)
    versions = {p: version_of(p, ("unittest",)) or "3.0" for p in pythons()}
    newer = [p for p, v in versions.items() if int(v.split(".")[1]) > 11]
    if not newer:
        pytest.skip("no Python 3.12 or later found (sys.monitoring)")
    script = tmp_path / "taken.py"
    script.write_text(TAKEN_AWAY)
    folder = os.path.dirname(asserts.__file__)
    names = [f"unittest: assertEqual of {w} set by /tmp/app.py" for w in ("test", "Named")]
    names.append("unittest: assertEqual of TestCase set by /tmp/app.py")
    expected = [[[], [{"k": "machinery", "changed": [n]}]] for n in names] + [[[], []]]
    for python in newer:
        lines = [
            json.loads(line)
            for how in ("off", "on")
            for line in subprocess.run(
                [python, str(script), folder, how], capture_output=True, text=True, check=True
            ).stdout.splitlines()
        ]
        assert lines[:4] == [[[], []]] * 4, lines  # unwatched: unseen
        assert lines[5:9] == expected, lines  # watched: each name once (the last: said)
        end, sent = lines[-1]
        named = [n for record in sent for n in record["changed"]]
        assert named[0] == end[0] and named[0].startswith("unittest: assertSame of test set by ")
        assert named[1:] == ["unittest: assertTrue of test set by ?"], named
    assert "called" in [c.co_name for c in machinery.CALLERS]
