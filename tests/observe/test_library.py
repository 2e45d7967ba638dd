"""The standard library's types whose comparison is Python (`fixbot.observe.library`), judged
like a built-in's own by the shape of an operand's type (`fixbot.observe.shapes`) while what
their comparison reaches is what it was when the reader was made (the plugin's load), and only
with what they hold judged as a container's items are."""

from __future__ import annotations

import collections
import fractions
import gc
import ipaddress
import pathlib
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from fixbot.observe import bodies, library, shapes


def _reader() -> Callable[[Any, str], dict[str, Any]]:
    """A shape reader made now: what the library's types reach is held as it is now."""
    return shapes.shape_reader(bodies._code_digest)


class _Told:
    """An object whose comparison says equal to anything (a caller-told one stands in)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def _told_eq(self: Any, other: object) -> bool:
    return True


@contextmanager
def _set(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` set to `value` for the block, then put back as it was."""
    before = vars(owner)[name]
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


def test_the_librarys_value_types_are_judged_by_what_they_hold() -> None:
    shape = _reader()
    values = [
        fractions.Fraction(1, 2),
        collections.Counter("aab"),
        uuid.UUID(int=7),
        ipaddress.ip_address("10.0.0.1"),
        ipaddress.ip_address("::1"),
        pathlib.PurePosixPath("/a/b"),
        pathlib.Path("/a/b"),
        collections.deque([1, 2]),
    ]
    for value in values:
        for op in ("==", "<"):
            found = shape(value, op)
            assert found["c"] is True, (value, op, found)
            assert found["t"].startswith(type(value).__module__ + "."), found
    assert shape(fractions.Fraction(1, 2), "==")["t"] == "fractions.Fraction[builtins.int]"
    assert shape(collections.Counter("a"), "==")["t"] == (
        "collections.Counter[builtins.int, builtins.str]"
    )


def test_what_a_library_value_holds_is_judged_as_a_containers_items_are() -> None:
    shape = _reader()
    told = collections.Counter({"a": _Told()})  # type: ignore[dict-item]
    found = shape(told, "==")
    assert found["c"] is False and "_Told ~ _Told.__eq__" in found["t"], found
    assert shape(collections.deque([_Told()]), "==")["c"] is False
    held = fractions.Fraction(4)
    held._numerator = _Told()  # type: ignore[attr-defined]  # a slot holding a caller-told one
    assert shape(held, "==")["c"] is False
    # an instance attribute naming one of the class's shadows what its comparison looks up
    shadowed = collections.Counter("a")
    shadowed.items = lambda: iter(())  # type: ignore[method-assign]
    assert shape(shadowed, "==")["c"] is False


class _OwnCounter(collections.Counter):  # type: ignore[type-arg]
    """A Counter with a comparison of its own."""

    __eq__ = _told_eq
    __hash__ = None  # type: ignore[assignment]


class _PlainCounter(collections.Counter):  # type: ignore[type-arg]
    """A Counter subclass with no comparison of its own (it could override a helper)."""


def test_only_the_exact_library_type_counts() -> None:
    shape = _reader()
    own = shape(_OwnCounter("a"), "==")
    assert own["c"] is False and own["o"] == "_OwnCounter.__eq__", own
    plain = shape(_PlainCounter("a"), "==")
    assert plain["c"] is False and plain["o"] == "Counter.__eq__", plain


def test_a_comparison_rebound_after_load_is_judged_as_a_class_is() -> None:
    shape = _reader()
    with _set(fractions.Fraction, "__eq__", _told_eq):
        found = shape(fractions.Fraction(4), "==")
        assert found["c"] is False and found["o"] == "Fraction.__eq__", found
    assert shape(fractions.Fraction(4), "==")["c"] is True  # put back: the same function
    # a helper it calls, rebound in the class or its module
    with _set(fractions.Fraction, "from_float", classmethod(lambda cls, f: cls(0))):
        assert shape(fractions.Fraction(4), "==")["c"] is False
    with _set(fractions, "math", sys.modules["math"].__class__("math")):
        assert shape(fractions.Fraction(4), "==")["c"] is False
    with _set(pathlib.PurePath, "__eq__", _told_eq):
        assert shape(pathlib.PurePosixPath("/a"), "==")["c"] is False
    assert shape(pathlib.PurePosixPath("/a"), "==")["c"] is True


def test_a_comparisons_code_or_defaults_written_is_judged_as_a_class_is() -> None:
    shape = _reader()
    function = vars(collections.Counter)["__eq__"]
    code = function.__code__
    function.__code__ = _told_eq.__code__
    try:
        assert shape(collections.Counter("a"), "==")["c"] is False
    finally:
        function.__code__ = code
    assert shape(collections.Counter("a"), "==")["c"] is True


def test_a_class_below_the_numbers_tower_made_later_is_judged_as_a_class_is() -> None:
    # `isinstance(b, numbers.Rational)` in Fraction's comparison asks the classes below it:
    # one of the project's made after load may answer with its own code
    shape = _reader()
    late = type("Late", (fractions.Fraction,), {})
    try:
        assert shape(fractions.Fraction(4), "==")["c"] is False
    finally:
        del late
        gc.collect()
    assert shape(fractions.Fraction(4), "==")["c"] is True


@pytest.mark.parametrize("kind", library.library_types(), ids=lambda k: k.__qualname__)
def test_every_library_type_is_held_at_load(kind: type) -> None:
    kinds, unchanged = library.checker()
    assert kinds[id(kind)] is kind and unchanged(kind)
