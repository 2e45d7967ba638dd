"""Round 16's class next door, held by the walk of what a value holds (`fixbot.observe.holds`,
walked by `classes.pinner` at every hand-off): a told object reached through a class attribute,
among a built-in container subclass's items, or after many honest attributes is pinned as
handed back and found swapped as the call ends; the storage of a subclass is read through its
base's own C iteration, none of the project's code run; a walk cut by its bounds says so
(`full`), and an honest large value of value types is no cut. Run in this process, under a
fresh profile function (`tests.observe.test_watch._run`)."""

from __future__ import annotations

import dataclasses
import operator
from collections import namedtuple
from typing import Any

import pytest

from fixbot.observe import classes, holds, watch
from tests.observe.test_pinned import _evens, _Plain
from tests.observe.test_watch import _run

WANT = [0, 2, 4, 5, 8]


def _swapped(notes: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a.__qualname__, b.__qualname__) for a, b in notes["swapped"]]


def _in_class() -> Any:
    """An object of a class made here whose class attribute `found` holds the told object
    (round 16's `Evens.found`), its instance dictionary empty."""
    return type("_Evens", (), {"found": _evens()})()


def test_a_told_object_in_a_class_attribute_is_pinned() -> None:
    """`_in_class().found` compared by `operator.eq` (no frame): the class's own dictionary is
    opened, the told object pinned as handed back and read plain as the call ends (fails
    without `layout_reader`'s class values: the walk opened the instance's attributes alone)."""

    def body() -> bool:
        return operator.eq(_in_class().found, WANT)

    notes, _ = _run(body)
    assert _swapped(notes) == [("_Told", "_Plain")]


_Pair = namedtuple("_Pair", "found other")


def _in_subclass(kind: str) -> Any:
    """The told list's items held by a built-in container subclass made here (a `dict`'s as
    values), or by a named tuple (a `tuple` subclass with no instance dictionary)."""
    if kind == "tuple":
        return _Pair(_evens(), None)
    base = {"list": list, "dict": dict}[kind]
    made = type("_Found", (base,), {})
    return made(enumerate(_evens())) if base is dict else made(_evens())


@pytest.mark.parametrize("kind", ["list", "dict", "tuple"])
def test_a_told_object_among_a_container_subclass_items_is_pinned(kind: str) -> None:
    """A `list` subclass, a `dict` subclass (its values) and a named tuple: their storage is
    read as an exact container's, the told object pinned and found swapped (fails without
    `storage_reader`: an object of a class made at run time was opened through its attributes
    alone)."""

    def body() -> bool:  # the told object reached in C alone (a Python helper hands it back)
        held = _in_subclass(kind)
        if kind == "dict":
            return operator.eq(list(dict.values(held)), WANT)
        return operator.eq(held.found if kind == "tuple" else held, WANT)

    notes, _ = _run(body)
    assert _swapped(notes) == [("_Told", "_Plain")]


class _Loud(list):  # type: ignore[type-arg]
    """A list subclass whose every reader of its items is the project's."""

    ran: list[str] = []

    def __iter__(self) -> Any:
        _Loud.ran.append("__iter__")
        return iter([])

    def __getitem__(self, at: Any) -> Any:
        _Loud.ran.append("__getitem__")
        return None

    def __len__(self) -> int:
        _Loud.ran.append("__len__")
        return 0


class _LoudDict(dict):  # type: ignore[type-arg]
    ran: list[str] = []

    def __iter__(self) -> Any:
        _LoudDict.ran.append("__iter__")
        return iter([])

    def keys(self) -> Any:
        _LoudDict.ran.append("keys")
        return []

    def values(self) -> Any:
        _LoudDict.ran.append("values")
        return []

    def items(self) -> Any:
        _LoudDict.ran.append("items")
        return []


def test_a_subclass_storage_is_read_by_its_base_c_iteration_alone() -> None:
    """A subclass overriding `__iter__`, `__getitem__`, `__len__`, `keys`, `values`, `items`:
    none of them runs, and what its storage holds (a `_Plain`) is pinned all the same."""
    notes: dict[str, Any] = {"pins": {}, "aliased": {}}
    pin = classes.pinner(watch.MAX_ITEMS, watch.MAX_DEPTH, watch.MAX_HANDED)
    held = [_Plain(1)]
    assert pin(_Loud(held), _in_class.__code__, notes)
    assert pin(_LoudDict({"k": _Plain(2)}), _in_subclass.__code__, notes)
    assert _Loud.ran == [] and _LoudDict.ran == []
    pinned = sorted(kind.__qualname__ for _, kind in notes["pins"].values())
    assert pinned == ["_Loud", "_LoudDict", "_Plain", "_Plain"]


def _past_others() -> Any:
    """An object holding a thousand honest int attributes, then `found` (the told list)."""
    got = _Plain(0)
    for i in range(watch.MAX_ITEMS):
        setattr(got, f"seen{i}", i)
    got.found = _evens()  # type: ignore[attr-defined]
    return got


def test_a_told_object_after_many_value_attributes_is_pinned() -> None:
    """`MAX_ITEMS` int attributes before `found`: items of value types cost nothing, so the
    told object is pinned and found swapped, nothing cut (fails where every item counts, as
    the walk stood: it stopped at `MAX_ITEMS` with nothing said)."""

    def body() -> bool:
        return operator.eq(_past_others().found, WANT)

    notes, sent = _run(body)
    assert _swapped(notes) == [("_Told", "_Plain")]
    assert not notes["full"] and not [r for r in sent if r["k"] == "full"]


def _crowded() -> list[Any]:
    return [_Plain(i) for i in range(watch.MAX_ITEMS + 1)]


def test_a_walk_cut_by_its_bounds_says_so() -> None:
    """More objects of classes made at run time than `MAX_ITEMS`, more items than
    `holds.MAX_READ`, a chain deeper than the walk goes: the walk is cut with something left
    unopened, `pin` answers False and the profile function streams `full` (the verdict's
    `observer-overflow` where the start's run did not; fails without the cut: the walk
    stopped with nothing said)."""
    pin = classes.pinner(watch.MAX_ITEMS, 3, watch.MAX_HANDED)
    for value in (_crowded(), [[0]] * (holds.MAX_READ + 1), [[[[_Plain(1)]]]]):
        assert not pin(value, _crowded.__code__, {"pins": {}, "aliased": {}})

    def body() -> bool:
        return operator.eq(_crowded(), [])

    notes, sent = _run(body)
    assert notes["full"] and [r for r in sent if r["k"] == "full"] == [{"k": "full", "id": "t::x"}]


def test_an_object_of_a_class_keyed_by_no_str_is_a_cut() -> None:
    """An object whose class's dictionary holds a key no `str` (only code puts one there: a
    lookup of a name would run its `__eq__`) is read nowhere, so the walk is cut there: `pin`
    answers False (round 18's `told-item-in-an-attribute-of-a-class-keyed-by-no-str-...`:
    fails where the walk went on with nothing said)."""
    keyed = type("_Keyed", (_Plain,), {0: 0})
    pin = classes.pinner(watch.MAX_ITEMS, watch.MAX_DEPTH, watch.MAX_HANDED)
    assert not pin(keyed(1), _crowded.__code__, {"pins": {}, "aliased": {}})
    assert not pin([_Plain(2), keyed(3)], _crowded.__code__, {"pins": {}, "aliased": {}})
    assert pin(_Plain(4), _crowded.__code__, {"pins": {}, "aliased": {}})


_Wide = dataclasses.make_dataclass("_Wide", [(f"f{i}", int) for i in range(20)])


def _honest() -> list[Any]:
    """Large honest values: no object of a class made at run time past the bounds."""
    pairs = [(str(i), i) for i in range(5000)]
    return [list(range(10_000)), dict(pairs), pairs, _Wide(*range(20)), [None, 1.5, b"x"] * 999]


def test_honest_large_values_are_no_cut() -> None:
    """Ten thousand ints, a dict and a list of five thousand `(str, int)` pairs, a dataclass of
    twenty fields, values of mixed types: pinned whole, no cut, no `full` (the cut's false
    alarm checked: an exact container costs its items, value types are dropped in C)."""
    pin = classes.pinner(watch.MAX_ITEMS, watch.MAX_DEPTH, watch.MAX_HANDED)
    for value in _honest():
        assert pin(value, _honest.__code__, {"pins": {}, "aliased": {}})

    def body() -> bool:
        return operator.eq(_honest(), [])

    notes, sent = _run(body)
    assert not notes["full"] and not [r for r in sent if r["k"] == "full"]
    assert notes["swapped"] == []
