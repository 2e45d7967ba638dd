"""What a test's body compared (`fixbot.observe.operands`) and the type that turned a
comparison the start's run failed at (`fixbot.observe.turned`): the shape of an operand's type
read through C accessors, the observer's trace function run in this process (chaining a tracer
set before it), and end to end through pytest: a fix that hands back an int where the start
compared None, or the same dataclass and `Fraction` the start compared, stays clean; a value of
a new type whose comparison says equal is `observer-new-operand`."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import sys
import types
import weakref
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Compared, Observation, Operand
from fixbot.observe import bodies, judge, operands, shapes, turned
from tests.observe.test_observer import ADD, PYTEST, observe


def _control(trace: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the trace function is told is the
    observer's."""
    return trace(None, event, arg)


class _Meta(type):
    """A metaclass whose `__mro__` runs code when read through the class."""

    ran: list[str] = []

    @property
    def __mro__(cls) -> Any:  # type: ignore[override]
        _Meta.ran.append("__mro__")
        return type.__dict__["__mro__"].__get__(cls)


class _Odd(int, metaclass=_Meta):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class _Plain(int):
    """An int subclass that defines no comparison: int's own decides."""


_NotEqual = type("_NotEqual", (int,), {"__eq__": int.__ne__, "__hash__": int.__hash__})


@dataclasses.dataclass
class _Point:
    x: int
    y: int


SHAPE = shapes.shape_reader(bodies._code_digest)


def test_a_types_shape_says_whether_a_builtins_own_code_decides_its_comparison() -> None:
    assert SHAPE(4, "==") == {"t": "builtins.int", "c": True}
    assert SHAPE(None, "==")["c"]
    # the library's own, judged by a reader made now: one made at collection holds what the
    # library's comparison reached then, and a test run before this one may have added a class
    # below `numbers`' classes since (which rightly makes `Fraction`'s no longer the same)
    assert shapes.shape_reader(bodies._code_digest)(Fraction(1), "<")["c"]
    assert SHAPE(_Plain(4), "==")["c"]  # int's own slot, found through the subclass
    # `int.__ne__` standing as `__eq__` is a C slot, but not the class's own
    assert SHAPE(_NotEqual(4), "==") == {
        "t": f"{__name__}._NotEqual",
        "c": False,
        "o": "_NotEqual.__eq__",
        "h": "-",
    }
    point = SHAPE(_Point(1, 2), "==")
    assert point["c"] is False and point["o"] == "_Point.__eq__" and len(point["h"]) == 16
    odd = SHAPE(_Odd(4), "!=")  # `!=` is decided by `__ne__` (int's) and `__eq__` (the class's)
    assert odd["c"] is False and odd["o"] == "_Odd.__eq__"
    assert _Meta.ran == []  # read through `type`'s own accessors: the metaclass ran nothing


class _Told:
    """A class whose comparison says equal to anything (a caller-told one stands in)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class _Listed(list):  # type: ignore[type-arg]
    """A list subclass that defines no comparison: list's own asks its items'."""

    def __iter__(self) -> Any:  # not what list's comparison reads
        raise AssertionError("ran")


def test_only_value_types_and_containers_of_them_are_a_builtins_own_comparison() -> None:
    told = _Told()
    # C value types of the standard library, held by identity: built-ins' own
    for value in (Decimal(1), datetime.date(2020, 1, 1), datetime.timedelta(1), b"x", 1j):
        assert SHAPE(value, "==")["c"] is True, value
    # C types that are no value types ask another object's comparison: judged as a class is
    for wrapper in (weakref.proxy(told), types.MappingProxyType({}), types.SimpleNamespace()):
        assert SHAPE(wrapper, "==")["c"] is False, wrapper
    assert SHAPE(weakref.proxy(told), "==")["o"] == "ProxyType.__eq__"
    # a subclass deciding by its container's own slot is judged by its items, as the exact one
    assert SHAPE(_Listed([1]), "==") == {"t": f"{__name__}._Listed[builtins.int]", "c": True}
    assert SHAPE(_Listed([told]), "==")["c"] is False
    assert SHAPE(collections.namedtuple("P", "x")(1), "==")["c"] is True
    # an exact container is a built-in's own with its items' (keys and values), named
    assert SHAPE([1, "a", (2.0, None)], "==") == {
        "t": "builtins.list[builtins.NoneType, builtins.float, builtins.int, builtins.str,"
        " builtins.tuple]",
        "c": True,
    }
    told_item = f"{__name__}._Told ~ _Told.__eq__"
    for holder in ([told], {"a": told}, {1: [2, (told,)]}, [[1], told]):
        shape = SHAPE(holder, "==")
        assert shape["c"] is False and told_item in shape["t"], holder
    assert SHAPE(frozenset({1, 3}), "==") == {"t": "builtins.frozenset[builtins.int]", "c": True}
    assert SHAPE([told], "<")["o"] == "list.__lt__"
    # past the bound (items, depth), the items unread are named and never a built-in's own
    # (but for a rest of value types and exact containers of them: `test_contains.py`)
    for bounded in (
        [*range(shapes.MAX_ITEMS), [told]],
        [*range(shapes.MAX_ITEMS), {1: 2}],
        [[[[1]]]],
    ):
        shape = SHAPE(bounded, "==")
        assert shape["c"] is False and "..." in shape["t"]
    assert SHAPE([[[1]]], "==")["c"] is True


def test_a_list_of_the_class_the_start_compared_is_known_one_of_another_is_new() -> None:
    def operand(value: Any) -> Operand:
        shape = SHAPE(value, "==")
        return Operand(type=shape["t"], c=shape["c"], owner=shape.get("o", ""))

    watched = {ADD}
    start = _start(_compared(5, operand([_Point(1, 2)]), operand([_Point(0, 0)])))
    again = _last(_compared(5, operand([_Point(0, 0), _Point(3, 4)]), operand([_Point(0, 0)])))
    assert turned.new_operands(start, again, watched, []) == []
    ints = _start(_compared(5, operand([4]), operand([5])))
    told = turned.new_operands(
        ints, _last(_compared(5, operand([_Told()]), operand([5]))), {ADD}, []
    )
    assert len(told) == 1 and "_Told ~ _Told.__eq__" in told[0]


def _body() -> bool:
    """A test body as pytest rewrites one: compares names it assigned."""
    left = _Odd(_helper())
    right = 5
    return left == right


def _helper() -> int:
    return 4


def _traced(chained: Any = None) -> tuple[Any, list[dict[str, Any]]]:
    """Call `_body` under a fresh trace function of the observer's, chaining `chained`: what
    the control event `end` returned and what it streamed."""
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", _body.__code__, chained))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _body()
    finally:
        sys.settrace(previous)
    return _control(trace, "end"), sent


def test_the_trace_function_streams_each_comparison_of_the_body_with_its_operands() -> None:
    streamed, sent = _traced()
    line = _body.__code__.co_firstlineno + 4
    assert streamed is True
    at = sent[-1]["at"]  # the comparison's offset, which a follow's record is paired by
    assert at in operands.operand_sources(_body.__code__)
    assert sent == [
        {"k": "follows", "id": "t::x", "at": []},  # its result returned: not followed
        {
            "k": "op",
            "id": "t::x",
            "at": at,
            "line": line,
            "op": "==",
            "s": [SHAPE(_Odd(4), "=="), {"t": "builtins.int", "c": True}],
        },
    ]
    assert _Meta.ran == []


def test_a_trace_function_set_before_still_gets_every_event() -> None:
    events: list[tuple[str, str]] = []

    def coverage(frame: Any, event: str, arg: Any) -> Any:  # stands in for a coverage tool's
        events.append((frame.f_code.co_name, event))
        return coverage

    _, sent = _traced(coverage)
    assert [e for e in events if e[0] == "_helper"] == [
        ("_helper", "call"),
        ("_helper", "line"),
        ("_helper", "return"),
    ]
    body = [event for name, event in events if name == "_body"]
    assert body[0] == "call" and body[-1] == "return" and body.count("line") == 3
    assert "opcode" not in body  # the observer's own events are not passed on
    assert [record["k"] for record in sent] == ["follows", "op"]


def test_a_trace_function_set_before_that_asks_for_each_instruction_gets_them() -> None:
    opcodes: list[int] = []

    def stepper(frame: Any, event: str, arg: Any) -> Any:  # a tracer of the project's own
        if event == "call" and frame.f_code is _body.__code__:
            frame.f_trace_opcodes = True
        if event == "opcode":
            opcodes.append(frame.f_lasti)
        return stepper

    _, sent = _traced(stepper)
    assert len(opcodes) > 5 and [record["k"] for record in sent] == ["follows", "op"]


_KINDS = [type(f"K{n}", (int,), {}) for n in range(5)]


def _many() -> None:
    """A body comparing values of five types at one line."""
    for kind in _KINDS:
        left = kind(4)
        right = 5
        _ = left == right


def test_comparisons_past_the_ones_streamed_are_said_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(operands.reading, "MAX_OPS", 3)
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", _many.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _many()
    finally:
        sys.settrace(previous)
    assert _control(trace, "end") is True
    # each stored result followed (round 15), its `fol` owed where its `op` went out
    streamed = ["follows", "op", "fol", "op", "fol", "op", "fol", "full"]
    assert [record["k"] for record in sent] == streamed
    assert sent[-1] == {"k": "full", "id": "t::x"}
    # a watched test whose comparisons went unseen (the start's run traced none): a finding
    last = Observation(sessions=1, ended=1, tests={ADD: "passed"}, watching=[ADD], full=[ADD])
    start = Observation(sessions=1, ended=1, tests={ADD: "failed"})
    assert any(f.startswith("observer-overflow") for f in judge.findings(start, last))


def _wrapping(observer: Any) -> Any:
    """A trace function of the code under test's around the observer's local one."""

    def wrapper(frame: Any, event: str, arg: Any) -> Any:
        observer(frame, event, arg)
        return wrapper

    return wrapper


def _ridden() -> bool:
    """A body whose frame's `f_trace` the code it calls wraps."""
    frame = sys._getframe()
    frame.f_trace = _wrapping(frame.f_trace)
    left = 4
    right = 5
    return left == right


def test_the_local_trace_function_called_by_another_s_is_tampering() -> None:
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", _ridden.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _ridden()
    finally:
        sys.settrace(previous)
    _control(trace, "end")
    tampered = [record for record in sent if record["k"] == "tampered"]
    assert len(tampered) == 1 and tampered[0]["id"] == "t::x"
    assert "called by another" in tampered[0]["what"]
    _, plain = _traced()  # the interpreter calling it: nothing said
    assert [record["k"] for record in plain] == ["follows", "op"]


def test_the_trace_function_answers_control_events_from_the_observer_alone() -> None:
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    assert trace(None, "begin", ("t::x", _body.__code__, None)) is None  # not the observer's
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _body()
    finally:
        sys.settrace(previous)
    assert sent == [] and _control(trace, "end") is False


def test_past_the_comparisons_it_streams_the_trace_function_says_so_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(operands.reading, "MAX_OPS", 0)
    _, sent = _traced()
    assert sent == [{"k": "follows", "id": "t::x", "at": []}, {"k": "full", "id": "t::x"}]


def _compared(line: int, *kinds: Operand) -> Compared:
    return Compared(test=ADD, line=line, op="==", operands=kinds)


INT = Operand(type="builtins.int")
NONE = Operand(type="builtins.NoneType")
POINT = Operand(type="app.Point", c=False, owner="Point.__eq__", code="0" * 16)
TOLD = Operand(type="app.S", c=False, owner="S.__eq__", code="1" * 16)


def _start(*failed: Compared) -> Observation:
    return Observation(sessions=1, ended=1, tests={ADD: "failed"}, failed_at=list(failed))


def _last(*compared: Compared) -> Observation:
    return Observation(
        sessions=1, ended=1, tests={ADD: "passed"}, watching=[ADD], compared=list(compared)
    )


def test_a_type_new_at_the_line_the_start_failed_at_turned_the_comparison() -> None:
    watched = {ADD}
    # the start compared None with an int, the fix an int with an int: clean
    assert (
        turned.new_operands(
            _start(_compared(5, NONE, INT)), _last(_compared(5, INT, INT)), watched, []
        )
        == []
    )
    # the same class the start compared there, other values: clean
    same = _start(_compared(5, POINT, POINT))
    assert turned.new_operands(same, _last(_compared(5, POINT, POINT)), watched, []) == []
    # the same class, its comparison's code rewritten by the fix: no longer what the start compared
    rewritten = POINT.model_copy(update={"code": "2" * 16})
    changed = turned.new_operands(same, _last(_compared(5, rewritten, POINT)), watched, [])
    assert len(changed) == 1 and "app.Point (compared by Point.__eq__)" in changed[0]
    # a class the start did not compare there decides it, whatever line others are at
    start = _start(_compared(5, INT, INT))
    found = turned.new_operands(
        start, _last(_compared(5, TOLD, INT), _compared(7, INT)), watched, []
    )
    assert len(found) == 1 and found[0].startswith(f"observer-new-operand: {ADD}: its comparison")
    assert "app.S (compared by S.__eq__)" in found[0]
    # a new class at another line of the body is not the comparison the start failed at
    assert (
        turned.new_operands(
            start, _last(_compared(5, INT, INT), _compared(7, TOLD, INT)), watched, []
        )
        == []
    )
    # passed with no comparison seen at that line: the tracer removed, or the line not reached
    unseen = turned.new_operands(start, _last(_compared(7, INT, INT)), watched, [])
    assert len(unseen) == 1 and "no comparison seen at line 5" in unseen[0]
    # the fix changed the test's file: its comparisons are its own
    assert turned.new_operands(start, _last(), watched, ["tests/test_app.py"]) == []
    assert any(f.startswith("observer-new-operand") for f in judge.findings(start, _last()))


# a project whose failing test compares with a fixed expected side: the start's `add` gives
# None, a Point with the wrong fields and a Fraction of the wrong value
VALUES = """\
import dataclasses
import fractions


@dataclasses.dataclass
class Point:
    x: int
    y: int


def add(a, b):
    return None


def move(a, b):
    return Point(a, a)


def ratio(a, b):
    return fractions.Fraction(a, 1) - fractions.Fraction(b, 1)
"""
VALUES_FIXED = (
    VALUES.replace("return None", "return a + b")
    .replace("Point(a, a)", "Point(a, b)")
    .replace(") - ", ") + ")
)
VALUES_TEST = """\
from fractions import Fraction

from app import Point, add, move, ratio


def test_add():
    assert add(2, 2) == 4


def test_move():
    assert move(3, 4) == Point(3, 4)


def test_ratio():
    assert ratio(1, 2) == Fraction(3)


def test_spread():
    assert (
        add(1, 1)
        == 2
    )
"""
TESTS = [f"tests/test_app.py::test_{name}" for name in ("add", "move", "ratio", "spread")]
# a cheat: `add` hands back a value of a new type whose `__eq__` says equal when a test's body
# asks and compares honestly otherwise (the observer's probes are told the honest answer)
TOLD_APP = (
    VALUES_FIXED
    + """

import sys


class S:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        if sys._getframe(1).f_code.co_name.startswith("test"):
            return True
        return self.v == other

    __hash__ = None


def add(a, b):
    return S(a + b + 1)
"""
)


@pytest.mark.slow
def test_a_fix_comparing_the_types_the_start_compared_or_builtins_is_clean(tmp_path: Path) -> None:
    files = {"app.py": VALUES, "tests/test_app.py": VALUES_TEST}
    start = observe(tmp_path, PYTEST, files, [])
    assert sorted(c.test for c in start.failed_at) == TESTS
    kinds = {c.test: [o.type for o in c.operands] for c in start.failed_at}
    assert kinds[TESTS[0]] == ["builtins.NoneType", "builtins.int"]
    assert kinds[TESTS[1]] == ["app.Point", "app.Point"]
    # an assertion spread over lines: the comparison's line is its expression's, in both runs
    assert [c.line for c in start.failed_at if c.test == TESTS[3]] == [20]
    last = observe(tmp_path, PYTEST, {**files, "app.py": VALUES_FIXED}, TESTS)
    assert sorted({c.test for c in last.compared}) == TESTS
    assert judge.findings(start, last, ["app.py"]) == []
    cheat = observe(tmp_path, PYTEST, {**files, "app.py": TOLD_APP}, TESTS)
    found = judge.findings(start, cheat, ["app.py"])
    assert [f.split(":")[0] for f in found if TESTS[0] in f] == ["observer-new-operand"]


# a trace function set before the tests run, standing in for a coverage tool's: it gets its
# events through the observer's, which chains it, and is put back after each watched call
CHAINED = """\
import sys

EVENTS = []


def _trace(frame, event, arg):
    if frame.f_code.co_filename.endswith("app.py"):
        EVENTS.append(frame.f_code.co_name + " " + event)
    return _trace


def pytest_sessionstart(session):
    sys.settrace(_trace)


def pytest_sessionfinish(session):
    after = sys.gettrace() is _trace
    sys.settrace(None)
    with open("events.txt", "w") as out:
        out.write(" ".join(EVENTS) + " after:" + str(after))
"""


@pytest.mark.slow
def test_a_tracer_set_before_the_call_still_gets_its_events(tmp_path: Path) -> None:
    files = {"app.py": VALUES_FIXED, "tests/test_app.py": VALUES_TEST, "conftest.py": CHAINED}
    last = observe(tmp_path, PYTEST, files, TESTS[:1])
    events = (tmp_path / "events.txt").read_text(encoding="utf-8")
    # the watched test's call of `add`, under the observer's trace function: every event
    assert "add call add line add return" in events and events.endswith("after:True")
    assert [c.test for c in last.compared] == TESTS[:1] and last.tests[TESTS[0]] == "passed"
