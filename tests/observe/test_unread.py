"""Round 16's second and third classes (`fixbot.observe.unread`, run by the profile function's
`keep` at every value the project hands back to a watched body): a comparison whose operand is
a call's result left on the stack is read nowhere and followed nowhere, so where that call
hands the body an object of a class made at run time (or an exact container holding one) the
comparison is unverified (`tampered`), whatever happens to the value's class afterwards (a
signal handler's swap put back before the call ends; a hash run inside a set's lookup): a
container holding one at the hand-off, an object as the call ends where its class's own Python
comparison never ran for it from the body's comparison (`unread.settler`). Run in this
process, under a fresh profile function (`tests.observe.test_watch._run`)."""

from __future__ import annotations

import dataclasses
import dis
import enum
import functools
import operator
from collections.abc import Callable
from typing import Any

from fixbot.observe import hooks, unread
from tests.observe.test_watch import _run


class _Plain:
    """The instruction round's plain object: object's own comparison, a class made at run
    time."""

    def __init__(self, v: int) -> None:
        self.v = v


class _Colour(enum.Enum):
    RED = "red"


def _add(a: int, b: int) -> Any:
    """What the cheat's `add(2, 2)` hands back: a plain object."""
    return _Plain(a + b)


def _four(a: int, b: int) -> Any:
    """An honest `add`: an int."""
    return a + b


def _calls(function: Callable[..., Any], name: str) -> list[int]:
    """The offsets of the call instructions of `function` whose callee is the global `name`
    (by `dis`: each call takes the latest global loaded and not yet called)."""
    found, loaded = [], []
    for instruction in dis.get_instructions(function):
        if instruction.opname.startswith("LOAD_GLOBAL"):
            loaded.append(instruction.argval)
        elif instruction.opname in unread.CALLS and loaded.pop() == name:
            found.append(instruction.offset)
    return found


def _in_a_list() -> bool:
    return all([_add(2, 2) == 5])  # the test's own shape: a list display


def _contained() -> bool:
    return all([_add(2, 2) in {_Colour.RED}])


def _stored() -> bool:
    got = _add(2, 2)
    return all([got == 5])


def _measured() -> bool:
    return len(_items()) == 3


def _items() -> list[Any]:
    return [_Plain(1), _Plain(2), _Plain(3)]


def test_the_calls_whose_result_a_comparison_takes_are_found() -> None:
    """A call's result left on the stack for a comparison (either side, through loads and a
    display of constants) is found, with the offsets of its inline caches; one stored first,
    or handed to another call first (`len`), is not."""
    for function, name in ((_in_a_list, "_add"), (_contained, "_add")):
        [call] = _calls(function, name)
        found = unread.feeders(function.__code__)
        assert call in found, (function.__name__, call, found)
    assert unread.feeders(_stored.__code__) == frozenset()
    [length] = _calls(_measured, "len")
    [items] = _calls(_measured, "_items")
    found = unread.feeders(_measured.__code__)
    assert length in found and items not in found


def _owed(notes: dict[str, Any]) -> list[dict[str, Any]]:
    """What the hook streams of the call's notes as it ends (`hooks._tampered`)."""
    sent: list[dict[str, Any]] = []
    hooks._tampered(sent.append, "t::x", notes)
    return sent


def test_a_value_of_a_class_made_at_run_time_compared_unread_is_tampering() -> None:
    """`all([add(2, 2) == 5])` where `add` hands back a plain object: owed at the hand-off
    the run of its class's own comparison from the body's comparison, which never comes
    (object's own `==` runs no frame), so `tampered` as the call ends, however its class is
    changed after (fails without `keep`'s reading of the call's offset: the comparison has no
    source and no follow, and the pin reads plain at the end)."""
    for body in (_in_a_list, _contained):
        notes, sent = _run(body)
        assert [r for r in sent if r["k"] == "tampered"] == [], body.__name__
        assert [type(one) for one, _ in notes["owed"].values()] == [_Plain]
        assert _owed(notes) == [{"k": "tampered", "id": "t::x", "what": unread.UNREAD}]


@dataclasses.dataclass
class _Point:
    """An honest value: its class's own comparison is Python (the dataclass's)."""

    x: int
    y: int


class _Told(_Point):
    """A class swapped in for a `_Point`: its `==` is C, no frame runs."""

    __eq__ = staticmethod(functools.partial(operator.is_not, None))  # type: ignore[assignment]


_LAST: list[Any] = []


def _corner() -> _Point:
    _LAST[:] = [_Point(0, 0)]
    return _LAST[0]


def _swap_last() -> int:
    """The right operand, made after the hand-off of the left: first the left's own
    comparison run from here (not from the body), then its class swapped."""
    _LAST[0] == _LAST[0]  # noqa: B015 (its class's own `__eq__` runs, called from here)
    _LAST[0].__class__ = _Told
    return 5


def _honest_point() -> bool:
    return all([_corner() == _Point(0, 0)])


def _honest_point_right() -> bool:
    return all([_Point(0, 0) == _corner()])


def _swapped_point() -> bool:
    return all([_corner() == _swap_last()])


def test_an_object_whose_own_python_comparison_decides_is_settled() -> None:
    """A dataclass handed back and compared off the stack, on either side: its class's own
    `__eq__` runs from the body's comparison, so nothing is owed (fails without the settling:
    an honest `assertTrue(corner() == Point(0, 0))` escalated)."""
    for body in (_honest_point, _honest_point_right):
        notes, sent = _run(body)
        assert [r for r in sent if r["k"] == "tampered"] == [], body.__name__
        assert notes["owed"] == {} and _owed(notes) == [], body.__name__


def test_a_comparison_run_elsewhere_or_by_a_class_swapped_in_settles_nothing() -> None:
    """The object's own `__eq__` run from another frame (a helper, a handler), then its class
    swapped for one whose C `__eq__` decides the body's comparison: still owed (fails where a
    run from any frame, or of another class, settles)."""
    notes, _ = _run(_swapped_point)
    assert [type(one) for one, _ in notes["owed"].values()] == [_Told]
    assert {"k": "tampered", "id": "t::x", "what": unread.UNREAD} in _owed(notes)


def _honest_in_a_list() -> bool:
    return all([_four(2, 2) == 4])


def _honest_items() -> bool:
    return all([_numbers() == [1, 2, (3,)]])


def _numbers() -> list[Any]:
    return [1, 2, (3,)]


def _contained_items() -> bool:
    return all([_items() == []])


def test_nothing_is_said_of_built_ins_or_a_stored_result() -> None:
    """An int, or a list of built-ins, compared unread; a plain object stored before it is
    compared (read from its local, `reading._values`): nothing said. A list holding a plain
    object is said, as the pins walk it."""
    for body in (_honest_in_a_list, _honest_items, _stored, _measured):
        notes, sent = _run(body)
        assert [r for r in sent if r["k"] == "tampered"] == [], body.__name__
        assert notes["unread"] is False and notes["owed"] == {}
    _, sent = _run(_contained_items)
    assert [r["what"] for r in sent if r["k"] == "tampered"] == [unread.UNREAD]


class _Meta(type):
    """A metaclass whose `__mro__` runs code when read through the class."""

    ran: list[str] = []

    @property
    def __mro__(cls) -> Any:  # type: ignore[override]
        _Meta.ran.append("__mro__")
        return type.__dict__["__mro__"].__get__(cls)


class _Odd(metaclass=_Meta):
    pass


def test_what_a_value_holds_is_read_by_c_alone_and_bounded() -> None:
    """`made_reader` reads `type`'s flags and exact containers' C iteration alone (no
    metaclass asked), `most` items and `deep` containers at most; a class itself is no object
    of one (but for one whose metaclass is, as the pins take it)."""
    made = unread.made_reader(100, 3)
    _Meta.ran.clear()
    assert made(_Odd()) and made([1, {"k": (_Odd(),)}]) and made({_Colour.RED: 1})
    assert _Meta.ran == []
    assert not made(_Plain) and not made([1, "a", (2.0, None)]) and not made(None)
    assert not made([[[[_Plain(1)]]]])  # past 3 containers deep
    assert not made([*range(100), _Plain(1)])  # past 100 items
