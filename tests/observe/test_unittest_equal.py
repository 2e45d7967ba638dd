"""fixbot's observer inside unittest, round 37's hole: the `__eq__` `assertEqual` is about
to ask of its operands, probed as the pytest observer probes a comparison dunder
(`fixbot/observe/unittest_equal.py`, through `unittest_asserter._asserter`), and judged by
`fixbot.observe.compared` as pytest's records are."""

from __future__ import annotations

import dataclasses
import sys
import types
import unittest
import unittest.mock as mock
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Comparison, Observation
from fixbot.observe import compared
from fixbot.observe import unittest_asserter as asserter
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_equal as equal
from tests.observe.test_unittest_observer import _Real

# round 37's `add`: an `int` subclass whose `__eq__` computes its answer from itself alone
COMPUTED = """\
class _Total(int):
    def __eq__(self, other):
        return int(self) == int(self)

    __hash__ = int.__hash__


class Honest(int):
    def __eq__(self, other):
        return int(self) == other

    __hash__ = int.__hash__
"""


def _judged(sent: list[dict[str, Any]], files: list[str]) -> list[str]:
    """What fixbot's judge says of the `eq` records `sent` (the test watched, `files` the
    fix's)."""
    seen = Observation(comparisons=[Comparison.model_validate(r | {"test": r["id"]}) for r in sent])
    return compared.comparisons(seen, {r["id"] for r in sent}, files)


def _app(tmp_path: Path) -> dict[str, Any]:
    """COMPUTED compiled as the work tree's app.py (the file exists: not built at run time)."""
    app = tmp_path / "app.py"
    app.write_text(COMPUTED)
    space: dict[str, Any] = {"__name__": "app"}
    exec(compile(COMPUTED, str(app), "exec"), space)
    return space


def test_an_always_equal_operand_of_assert_equal_is_probed_and_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 37 [test body]: `assertEqual(add(2, 2), 4)` with `add` handing back an `int`
    subclass whose `__eq__` returns `int(self) == int(self)`: the observer's
    `_getAssertEqualityFunc` streams an `eq` record of it, `always` (it said equal to a stranger
    and to a neighbouring int), which fixbot names `observer-always-equal` where app.py is the
    fix's. Without the control nothing is streamed and nothing is found."""
    space = _app(tmp_path)
    sent: list[dict[str, Any]] = []
    state: list[object] = [True, 0, False, None]
    held = ("u1", (), None, str(tmp_path) + "/", asserts._word)
    orig = vars(unittest.TestCase)["_getAssertEqualityFunc"]
    monkeypatch.setattr(
        unittest.TestCase,
        "_getAssertEqualityFunc",
        asserter._asserter(orig, sent.append, state, held),
    )
    test = _Real("test_add")
    for _ in range(2):
        test.assertEqual(space["_Total"](0), 4)  # passes: the cheat
    assert [(r["k"], r["type"], r["dunder"], r["file"], r["always"]) for r in sent] == [
        ("eq", "app._Total", "__eq__", "app.py", True)
    ]  # once per test, type and function
    assert sent[0]["id"] == test.id() and not sent[0]["built"]
    found = _judged(sent, ["app.py"])
    assert len(found) == 1 and found[0].startswith("observer-always-equal: ")
    assert "app._Total" in found[0] and "changed by the fix" in found[0]


def test_honest_operands_are_no_finding(tmp_path: Path) -> None:
    """Built-in values (no Python `__eq__`: nothing probed), an `int` subclass comparing with
    its operand, and a dataclass (`__eq__` built at run time, `NotImplemented` to a stranger)
    are no finding; nothing is streamed while no run of the observer's goes on."""
    space = _app(tmp_path)

    @dataclasses.dataclass
    class Point:
        x: int

    compare = equal._comparer(str(tmp_path) + "/")
    test = _Real("test_add")
    assert compare(test, 4, [1, "a"]) == []
    assert compare(test, 4, mock.ANY) == []  # a library's, outside the work tree
    sent = compare(test, space["Honest"](4), 4) + compare(test, Point(1), Point(1))
    assert [r["type"].rsplit(".", 1)[-1] for r in sent] == ["Honest", "Point"]
    assert [r["always"] for r in sent] == [False, False]
    assert _judged(sent, ["app.py"]) == []
    state: list[object] = [False, 0, False, None]
    judge = asserter._asserter(
        vars(unittest.TestCase)["_getAssertEqualityFunc"],
        (told := []).append,
        state,
        ("u1", (), None, str(tmp_path) + "/", asserts._word),
    )
    judge(test, space["_Total"](0), 4)
    assert told == []


# round 38's holes: an `__eq__` that is no Python function, a class dictionary with a key that
# is no str, an `__eq__` telling the probe's questions from the test's
ATTACKS = """\
import functools
import operator
import sys


class _Note(str):
    pass


class Keyed(int):
    vars()[_Note("note")] = "a total"

    def __eq__(self, other):
        return int(self) == int(self) or other is self

    __hash__ = int.__hash__


class KeyedOnly(int):
    vars()[_Note("note")] = "a total"


class Partial(int):
    __eq__ = functools.partial(operator.is_not, None)
    __hash__ = int.__hash__


class Slot(int):
    __eq__ = int.__le__
    __hash__ = int.__hash__


_PROBED = []


class Told(int):
    def __eq__(self, other):
        if not isinstance(other, int):
            _PROBED.append(other)
            return NotImplemented
        if _PROBED:
            _PROBED.pop()
            return int.__eq__(self, other)
        return int(self) == int(self)

    __hash__ = int.__hash__


class Framed(int):
    def __eq__(self, other):
        if sys._getframe(1).f_code.co_name != "_baseAssertEqual":
            return int.__eq__(self, other)
        return int(self) == int(self) or other is self

    __hash__ = int.__hash__


class Ordered(int):
    __lt__ = int.__gt__


class Folded(str):
    def __eq__(self, other):
        return isinstance(other, str) and self.casefold() == other.casefold()

    __hash__ = str.__hash__
"""


def _attacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str = ATTACKS
) -> dict[str, Any]:
    """`text` (ATTACKS) imported as the work tree's module `app` (its file app.py, in
    `sys.modules`): its namespace."""
    app = tmp_path / "app.py"
    app.write_text(text)
    module = types.ModuleType("app")
    module.__file__ = str(app)
    monkeypatch.setitem(sys.modules, "app", module)
    exec(compile(text, str(app), "exec"), vars(module))
    return vars(module)


@pytest.mark.parametrize("name", ["Keyed", "KeyedOnly", "Partial", "Slot", "Told", "Framed"])
def test_any_eq_of_a_class_of_the_work_tree_is_asked_through_the_comparison_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Round 38 [dict key], [partial], [slot], [told]: `assertEqual(add(2, 2), 4)` with `add`
    handing back an `int` subclass that says equal where int's would not, through an `__eq__`
    that is a partial of C functions, another slot's wrapper (`int.__le__`), a Python function
    in a class whose dictionary holds a key that is no str, or one that answers the probe's
    stranger and its next question honestly, or any question asked from another frame than
    unittest's `_baseAssertEqual` (`Framed`, round 38 [told by its frame]): int's own `==`
    says 0 and 4 differ, which `assertEqual` is about to hold equal (`_bent`, asked in C, no
    frame of the project's sees it); the rest are asked through the comparison itself
    (`value == question`), the test's other operand's neighbour first, and streamed `always`;
    a class whose `__eq__` is int's own but whose dictionary holds a key that is no str cannot
    be read and is streamed `aliased` (not judged). Each is `observer-always-equal` where app.py
    is the fix's. Without the control (a Python function alone probed, a stranger first, an odd
    key skipped) nothing, or nothing always, is streamed."""
    space = _attacks(tmp_path, monkeypatch)
    compare = equal._comparer(str(tmp_path) + "/")
    sent = compare(_Real("test_add"), space[name](0), 4)
    assert [(r["type"], r["file"]) for r in sent] == [(f"app.{name}", "app.py")]
    assert sent[0]["always"] is True or sent[0].get("aliased") == equal.UNSURE
    found = _judged(sent, ["app.py"])
    assert len(found) == 1 and found[0].startswith("observer-always-equal: "), found


def test_a_class_dictionary_with_a_key_that_is_no_str_runs_none_of_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class dictionary is read with its C `items` (a key's `__eq__` never run); a
    built-in's slot standing first, with no odd key before it, is nothing to ask; a class of
    the work tree whose own comparisons leave `__eq__` int's (`Ordered`), or a str subclass
    folding case (equal to what str's own `==` tells apart, honestly), is no finding."""

    class Key(str):
        def __eq__(self, other: object) -> bool:
            raise AssertionError("ran")

        __hash__ = str.__hash__

    odd = type("Odd", (int,), {"__eq__": lambda self, other: True, Key("x"): 0})
    plain = type("Plain", (int,), {"__eq__": lambda self, other: True})
    assert equal._deciding(odd(1), "__eq__") == (odd, vars(odd)["__eq__"])
    assert equal._deciding(plain(1), "__eq__") == (plain, vars(plain)["__eq__"])
    assert equal._deciding(1, "__eq__") is None
    space = _attacks(tmp_path, monkeypatch)
    assert equal._deciding(space["Ordered"](1), "__eq__") is None
    compare = equal._comparer(str(tmp_path) + "/")
    assert compare(_Real("test_add"), space["Ordered"](5), 5) == []
    folded = compare(_Real("test_add"), space["Folded"]("A"), "a")  # honest: case folded
    assert [(r["always"], r.get("aliased")) for r in folded] == [(False, None)]
