"""Round 15's second class, read at the hand-off (`fixbot.observe.classes.pinner`, run by the
profile function's `keep` at every value the project hands back to a watched body): a class made
at run time among the value and its items is pinned with its object and read again as the call
ends (`swapped`: a `__class__` assigned meanwhile is tampering), and its comparison slots no
frame runs are counted there and then (`aliased_reader`), whatever C later makes the comparison
(`operator.eq`, `map`, unittest's `assertEqual`) and whatever the slot did to its class. Run in
this process, under a fresh profile function (`tests.observe.test_watch._run`)."""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import operator
from collections import namedtuple
from typing import Any

from fixbot.observe import classes, hooks, watch
from tests.observe.test_watch import _run


class _Plain:
    def __init__(self, v: int) -> None:
        self.v = v


def _told(held: _Plain, back: bool) -> type:
    """Round 14's told class: its `__eq__` a `staticmethod` of a `functools.partial` (C, no
    frame) that answers 1 and, first, deletes itself and (where `back`) puts `held`'s plain
    class back."""
    told = type("_Told", (), {"__hash__": None})
    undo = itertools.chain(
        map(setattr, [held] if back else [], ["__class__"], [_Plain]),
        map(delattr, [told], ["__eq__"]),
        (1,),
    )
    told.__eq__ = staticmethod(functools.partial(next, filter(None, undo)))  # type: ignore[assignment]
    return told


def _evens(back: bool = True) -> list[Any]:
    """`[0, 2, 4, <told>, 8]`: a plain object of a told class planted at 6."""
    found: list[Any] = [0, 2, 4, 6, 8]
    held = _Plain(5)
    held.__class__ = _told(held, back)
    found[3] = held
    return found


def test_a_class_put_back_by_its_c_eq_is_found_swapped_as_the_call_ends() -> None:
    """`operator.eq` compares in C, where no trace function reads it; the told object was
    pinned as handed back and is a `_Plain` as the call ends: `swapped` (fails without the pin,
    as the observer stood in round 15: the walk at the end finds a plain object)."""

    def body() -> bool:
        return operator.eq(_evens(), [0, 2, 4, 5, 8])

    notes, _ = _run(body)
    assert [(a.__qualname__, b.__qualname__) for a, b in notes["swapped"]] == [("_Told", "_Plain")]
    assert hooks._swapped(*notes["swapped"][0]) == (
        "a value handed back to its body changed class while its call ran (a _Told as it was"
        " handed back, a _Plain as the call ended)"
    )


def test_a_c_eq_gone_by_the_calls_end_was_counted_at_the_hand_off() -> None:
    """The told class left on its object, its `__eq__` deleted by itself once it answered:
    nothing swapped, and no class the project made holds a slot as the call ends; the slot
    read at the hand-off is counted with the code that handed it back (fails without the
    reading at the hand-off)."""

    def body() -> bool:
        return all(map(operator.eq, _evens(back=False), [0, 2, 4, 5, 8]))

    notes, _ = _run(body)
    assert notes["swapped"] == []
    [(kind, dunder, slot, code)] = notes["aliased"].values()
    assert (kind.__qualname__, dunder, type(slot), code) == (
        "_Told",
        "__eq__",
        staticmethod,
        _evens.__code__,
    )
    assert "__eq__" not in vars(kind)  # gone by now


class _Colour(enum.Enum):
    RED = 1


_Pair = namedtuple("_Pair", "x y")


@dataclasses.dataclass
class _Tile:
    at: _Pair
    colour: _Colour


class _Same(int):
    __eq__ = int.__eq__  # a built-in's own under its own name
    __hash__ = int.__hash__


def test_honest_classes_are_pinned_and_nothing_is_counted() -> None:
    """A dataclass, a named tuple, an enum, a subclass of int borrowing `int.__eq__`: pinned,
    none swapped, no slot counted (their comparisons are Python functions, seen run, or a
    built-in's own)."""

    def body() -> bool:
        return operator.eq(_tiles(), [_Tile(_Pair(0, 0), _Colour.RED), _Same(1), _Colour.RED])

    notes, _ = _run(body)
    pinned = sorted(kind.__qualname__ for _, kind in notes["pins"].values())
    # `_Pair` twice: the body's own call and the tile's attribute (`_tiles`' hand-off); the
    # enum class itself, a member's `__objclass__`, pinned as an object (not opened: a class);
    # `Enum`'s own class attributes `name` and `value` (enum's property, `holds.layout_reader`)
    meta = "EnumType" if hasattr(enum, "EnumType") else "EnumMeta"
    prop = type(vars(enum.Enum)["name"]).__qualname__
    assert pinned == sorted([meta, "_Colour", "_Pair", "_Pair", "_Same", "_Tile", prop])
    assert notes["swapped"] == [] and notes["aliased"] == {}


def _tiles() -> list[Any]:
    return [_Tile(_Pair(0, 0), _Colour.RED), _Same(1), _Colour.RED]


def test_the_slots_counted_are_those_no_frame_runs() -> None:
    """What `aliased_reader` counts: another C method, a partial, a staticmethod, a type
    standing as `__eq__`; not a Python function, a built-in's own, `None`, or a class of the
    language's own."""
    aliased = classes.aliased_reader()

    def made(eq: Any) -> type:
        return type("K", (), {"__eq__": eq, "__hash__": None})

    for eq in (int.__le__, functools.partial(operator.is_not, None), staticmethod(bool), bool):
        assert aliased(made(eq), "__eq__") is eq
    for eq in (lambda s, o: True, object.__eq__, None):
        assert aliased(made(eq), "__eq__") is None
    assert aliased(int, "__eq__") is None and aliased(_Same, "__eq__") is None
    keyed = type("Keyed", (), {"__eq__": bool, _Key("k"): 1})
    _Key.ran.clear()  # asked as the dictionary was made
    assert aliased(keyed, "__eq__") is None and _Key.ran == []  # not looked into


class _Key(str):
    ran: list[str] = []

    def __hash__(self) -> int:
        return hash("__eq__")

    def __eq__(self, other: object) -> bool:
        _Key.ran.append("eq")
        return False


class _Meta(type):
    ran: list[str] = []

    def __hash__(cls) -> int:
        _Meta.ran.append("hash")
        return 1

    def __eq__(cls, other: object) -> bool:
        _Meta.ran.append("eq")
        return False


def test_pinning_runs_no_code_of_the_projects_and_is_bounded() -> None:
    """A metaclass's hash and `==` are not asked (classes are held by identity); items of
    value types past `MAX_ITEMS` cost nothing (the object after them is pinned; the walk's
    own bounds, `tests/observe/test_holds.py`); past `MAX_HANDED` pins, False (the caller's
    `full`)."""
    odd = [_Meta("A", (), {})(), _Meta("B", (), {})()]
    notes: dict[str, Any] = {"pins": {}, "aliased": {}}
    pin = classes.pinner(watch.MAX_ITEMS, watch.MAX_DEPTH, 3)
    assert pin([*odd, [odd]], _tiles.__code__, notes) and _Meta.ran == []
    assert len(notes["pins"]) == 2
    late = [0] * watch.MAX_ITEMS + [_Plain(1)]
    assert pin(late, _tiles.__code__, notes) and len(notes["pins"]) == 3
    assert not pin([_Same(2)], _tiles.__code__, notes)
    assert len(notes["pins"]) == 3


class _Result:
    """A value handed back holding the list in an attribute (round 16's `Evens`)."""

    def __init__(self, found: list[Any]) -> None:
        self.found = found


class _Slotted:
    __slots__ = ("found", "unset")

    def __init__(self, found: list[Any]) -> None:
        self.found = found


def test_a_told_object_in_an_attribute_of_the_value_handed_back_is_pinned() -> None:
    """Round 16: `evens(10).found` compared by `operator.eq`, the told object in the
    attribute (an instance dictionary's, a slot's): pinned at the hand-off and found swapped
    as the call ends (fails without `attributes_reader`: the walk opened exact containers
    alone, the told object was never pinned)."""
    for kind in (_Result, _Slotted):

        def body(kind: Any = kind) -> bool:
            return operator.eq(_held_in(kind).found, [0, 2, 4, 5, 8])

        notes, _ = _run(body)
        swapped = [(a.__qualname__, b.__qualname__) for a, b in notes["swapped"]]
        assert swapped == [("_Told", "_Plain")], kind


def _held_in(kind: Any) -> Any:
    return kind(_evens())


def test_attributes_are_read_by_c_getters_alone() -> None:
    """An object's attributes come from its instance dictionary and its set slots (an unset
    one skipped), read through exact descriptors: a `__getattribute__` or a property of the
    project's is never run; a class's own attributes are not read as an object's."""
    ran: list[str] = []

    class Watched:
        __slots__ = ("__dict__", "a", "b")

        def __getattribute__(self, name: str) -> Any:
            ran.append(name)
            return object.__getattribute__(self, name)

        @property
        def c(self) -> int:
            ran.append("c")
            return 3

    one = Watched()
    object.__setattr__(one, "a", 1)
    object.__setattr__(one, "d", 4)
    ran.clear()
    read = classes.attributes_reader()
    assert sorted(read(one, Watched, 10)) == [1, 4] and ran == []
    assert read(one, Watched, 1) in ([1], [4])
