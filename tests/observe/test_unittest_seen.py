"""fixbot's observer inside unittest, utcmp3: each value the code hands back to a test's
own code probed through its own comparison (`fixbot/observe/unittest_seen.py`, the observer's
`TestCase._callTestMethod`), whatever spelling then compares it: `assertTrue(x == 4)`,
`assertFalse(x != 4)`, `assertIn`, `assertAlmostEqual`, `assertNotEqual`, `[x] == [4]`; judged
by `fixbot.observe.compared` as `assertEqual`'s operands are."""

from __future__ import annotations

import io
import sys
import unittest
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Comparison, Observation
from fixbot.observe import compared
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_seen as seen

# the code's: round 39's and round 38's always-equal spellings the text rule missed, one blind
# `__ne__`, and honest classes (reading their operand; a dataclass's, compiled from a string)
APP = """\
import dataclasses


def _same(self, other):
    return int(self) == int(self)


class Named(int):
    __eq__ = _same
    __hash__ = int.__hash__


class Deleted(int):
    def __eq__(self, other):
        del other
        return int(self) == int(self)

    __hash__ = int.__hash__


class Read(int):
    def __eq__(self, other):
        return int(self) == int(self) or other is self

    __hash__ = int.__hash__


class Unequal(int):
    def __ne__(self, other):
        return int(self) != int(self)

    __hash__ = int.__hash__


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self.cents == other.cents

    __hash__ = None


@dataclasses.dataclass(frozen=True)
class Point:
    x: int


def made(kind, value):
    return kind(value)


def listed(kind, value):
    return [kind(value)]
"""
# the test's own code, compiled under test_app.py: each body compares what `made` hands back
TESTS = """\
import sys


class Tests:
    def test_true(self):
        self.assertTrue(made(self.kind, 0) == 4)

    def test_false(self):
        self.assertFalse(made(self.kind, 0) != 4)

    def test_in(self):
        self.assertIn(made(self.kind, 0), (4,))

    def test_almost(self):
        self.assertAlmostEqual(made(self.kind, 0), 4)

    def test_not_equal(self):
        self.assertNotEqual(made(self.kind, 0), 4)

    def test_listed(self):
        self.assertTrue(listed(self.kind, 0) == [4])

    def test_honest(self):
        self.assertTrue(made(self.kind, 4) == made(self.kind, 4))
        self.assertIn(made(self.kind, 4), [made(self.kind, 3), made(self.kind, 4)])

    def test_profile_taken_away(self):
        sys.setprofile(None)
        self.assertTrue(made(self.kind, 0) == 4)
"""


def _compiled(tmp_path: Path) -> tuple[dict[str, Any], type]:
    """APP compiled as the work tree's app.py, TESTS as test_app.py (a `TestCase` class named
    `Case`, its module's globals APP's names): (app's namespace, the test class)."""
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "test_app.py").write_text(TESTS)
    app: dict[str, Any] = {"__name__": "app"}
    exec(compile(APP, str(tmp_path / "app.py"), "exec", dont_inherit=True), app)
    space: dict[str, Any] = {"__name__": "test_app", "made": app["made"], "listed": app["listed"]}
    exec(compile(TESTS, str(tmp_path / "test_app.py"), "exec", dont_inherit=True), space)
    return app, type("Case", (space["Tests"], unittest.TestCase), {"kind": int})


def _run(tmp_path: Path, kind: str, name: str) -> tuple[list[dict[str, Any]], list[str]]:
    """(the records the observer's `_callTestMethod` streamed as `name`'s body ran with
    `made` handing back an instance of APP's `kind`, fixbot's findings from them: app.py the
    fix's). The body passes (each attack's cheat, each honest class's honest answer)."""
    app, case = _compiled(tmp_path)
    test = type(kind, (case,), {"kind": app[kind]})(name)
    sent: list[dict[str, Any]] = []
    held = ("u1", (), None, str(tmp_path) + "/", asserts._word)
    call = seen._seer(vars(unittest.TestCase)["_callTestMethod"], sent.append, [True], held)
    was = sys.getprofile()
    call(test, getattr(test, name))
    assert sys.getprofile() is was  # put back
    eq = [Comparison.model_validate(r | {"test": r["id"]}) for r in sent if r["k"] == "eq"]
    found = compared.comparisons(Observation(comparisons=eq), {test.id()}, ["app.py"])
    return sent, found


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("Named", "test_true"),
        ("Deleted", "test_true"),
        ("Read", "test_true"),
        ("Read", "test_in"),
        ("Read", "test_almost"),
        ("Read", "test_listed"),
        ("Unequal", "test_false"),
        ("Read", "test_not_equal"),
    ],
)
def test_a_value_the_code_hands_the_tests_code_is_probed_whatever_compares_it(
    tmp_path: Path, kind: str, name: str
) -> None:
    """Round 39 [named elsewhere], [operand deleted], round 38 [true, operand read] and the
    other spellings: the value `made` hands back to the test's body is asked through its own
    comparison (`__eq__`, `__ne__`) as it comes back, `always`, `observer-always-equal`.
    `Read` under `assertNotEqual(x, 4)` (int's own `!=`, the test passes): its `__eq__`, which
    says equal to a stranger, is the class's answer to any `==`, named whatever the test asks.
    Fails without `unittest_seen._seer`'s profile."""
    sent, found = _run(tmp_path, kind, name)
    eq = [(r["type"], r["dunder"], r["always"]) for r in sent if r["k"] == "eq"]
    dunder = "__ne__" if kind == "Unequal" else "__eq__"
    assert eq == [(f"app.{kind}", dunder, True)]
    assert len(found) == 1 and found[0].startswith("observer-always-equal: ")
    assert f"app.{kind}" in found[0] and "changed by the fix" in found[0]


def test_honest_classes_of_the_code_are_no_finding(tmp_path: Path) -> None:
    """A class whose `__eq__` reads its operand and a dataclass (`__eq__` built from a string),
    under `assertTrue(a == b)` and `assertIn`: probed, no finding; built-in values not asked."""
    for kind in ("Money", "Point"):
        sent, found = _run(tmp_path, kind, "test_honest")
        assert [(r["type"], r["always"]) for r in sent] == [(f"app.{kind}", False)]
        assert found == []


def test_the_profile_function_taken_away_during_the_body_is_put_back_after_it(
    tmp_path: Path,
) -> None:
    """The code under test (here the body) takes the observer's profile function away before the
    comparison: nothing probed after it (the act is an audit event, `sys.setprofile`, streamed
    by the audit hook with its file: `reach.py`), and the profile function that stood before the
    body stands after it."""
    sent, _ = _run(tmp_path, "Read", "test_profile_taken_away")
    assert sent == []


def test_a_profile_function_standing_as_the_body_begins_is_left_alone(tmp_path: Path) -> None:
    """A profiler's function standing as the body begins is left in place, the body unprobed."""
    app, case = _compiled(tmp_path)
    test = type("Read", (case,), {"kind": app["Read"]})("test_true")
    sent: list[dict[str, Any]] = []
    held = ("u1", (), None, str(tmp_path) + "/", asserts._word)
    call = seen._seer(vars(unittest.TestCase)["_callTestMethod"], sent.append, [True], held)
    events: list[str] = []

    def profiler(frame: Any, event: str, arg: Any) -> None:
        events.append(event)

    was = sys.getprofile()
    sys.setprofile(profiler)
    try:
        call(test, test.test_true)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(was)
    assert events and sent == []


def test_only_the_tests_that_failed_at_the_start_are_profiled(tmp_path: Path) -> None:
    """The settings' `watch` (the ids of the tests that failed at the start, whose records
    fixbot judges): a test it names is probed, one it does not runs unprofiled (no cost)."""
    app, case = _compiled(tmp_path)
    test = type("Read", (case,), {"kind": app["Read"]})("test_true")
    held = ("u1", (), None, str(tmp_path) + "/", asserts._word)
    orig = vars(unittest.TestCase)["_callTestMethod"]
    for watch, probed in (([], False), (["other.Test.test_x", 3], False), ([test.id()], True)):
        sent: list[dict[str, Any]] = []
        seen._seer(orig, sent.append, [True], held, watch)(test, test.test_true)
        assert bool(sent) is probed and all(r["always"] for r in sent)


def test_a_failures_traceback_keeps_the_tests_frames(tmp_path: Path) -> None:
    """The observer's `_callTestMethod` frame is unittest's own (`__unittest`): the traceback
    unittest prints for a failure still shows the test's frames. Without it unittest cut the
    traceback to the observer's frame alone (`_count_relevant_tb_levels` stops at the next frame
    of unittest's), and the log fixbot reads lost the test's and the code's lines."""
    held = ("u1", (), None, str(tmp_path) + "/", asserts._word)
    call = seen._seer(vars(unittest.TestCase)["_callTestMethod"], [].append, [True], held)

    class Case(unittest.TestCase):
        def test_fails(self) -> None:
            self.assertEqual(1, 2)

    Case._callTestMethod = call  # type: ignore[method-assign]
    stream = io.StringIO()
    unittest.TextTestRunner(stream=stream).run(Case("test_fails"))
    assert "in test_fails" in stream.getvalue(), stream.getvalue()
