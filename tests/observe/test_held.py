"""A class's instance whose comparison is no built-in's own is named, by the shape of an
operand's type (`fixbot.observe.shapes`), with what it holds that is no built-in's own
(`fixbot.observe.library.held`: its slots' and `__dict__`'s values, read through C
accessors): the start's class handed back holding a caller-told object is a new shape, one
holding other built-ins' values (an `int` field turned `float`) is the start's."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from fixbot.observe import bodies, library, shapes


def _reader() -> Callable[[Any, str], dict[str, Any]]:
    """A shape reader made now."""
    return shapes.shape_reader(bodies._code_digest)


class _Point:
    """A class comparing its fields: its own `__eq__` asks each field's."""

    def __init__(self, x: Any, y: Any) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Point) and (self.x, self.y) == (other.x, other.y)

    __hash__ = None  # type: ignore[assignment]


class _Slotted:
    """The same, its fields in slots."""

    __slots__ = ("x", "y")

    def __init__(self, x: Any, y: Any) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Slotted) and (self.x, self.y) == (other.x, other.y)

    __hash__ = None  # type: ignore[assignment]


class _Told:
    """An object whose comparison says equal to anything (a caller-told one stands in)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


@dataclasses.dataclass
class _Defaulted:
    """A dataclass whose instance `__dict__` names its class's defaults."""

    x: Any = 0
    items: list[Any] = dataclasses.field(default_factory=list)


def test_an_instance_holding_built_ins_is_named_as_its_class() -> None:
    shape = _reader()
    start = shape(_Point(0, 0), "==")
    assert start["t"].endswith("._Point") and not start["c"]
    assert shape(_Point(0.5, "a"), "==") == start
    assert shape(_Point([1, 2], {"k": (3,)}), "==") == start
    assert shape(_Slotted(1, 2), "==")["t"].endswith("._Slotted")
    assert shape(_Defaulted(1, [2]), "==")["t"].endswith("._Defaulted")


def test_an_instance_holding_a_caller_told_object_is_a_new_shape() -> None:
    shape = _reader()
    for told, clean in (
        (_Point(_Told(), 0), _Point(0, 0)),
        (_Point(0, [_Told()]), _Point(0, [1])),
        (_Point(_Point(0, _Told()), 0), _Point(0, 0)),
        (_Slotted(_Told(), 0), _Slotted(0, 0)),
        (_Defaulted(_Told()), _Defaulted(0)),
        (_Defaulted(0, [1, _Told()]), _Defaulted(0, [1])),
    ):
        found, start = shape(told, "=="), shape(clean, "==")
        assert "._Told ~ _Told.__eq__ @" in found["t"], found
        assert found["t"] != start["t"] and not found["c"]
        assert (found["o"], found["h"]) == (start["o"], start["h"])  # its class's comparison
    # the same class holding the same kinds is the same shape: the start's, known
    assert shape(_Point(_Told(), 0), "==") == shape(_Point(_Told(), 1), "==")


def test_a_container_of_instances_names_what_they_hold() -> None:
    shape = _reader()
    assert shape([_Point(0, 0)], "==") == shape([_Point(1.5, 2)], "==")
    assert "._Told ~" in shape([_Point(_Told(), 0)], "==")["t"]


def test_reading_what_an_instance_holds_runs_none_of_its_code() -> None:
    asked: list[str] = []

    class Meta(type):
        def __eq__(cls, other: object) -> bool:
            asked.append("metaclass __eq__")
            return False

        __hash__ = type.__hash__

    class Base(dict, metaclass=Meta):  # type: ignore[type-arg]
        pass

    class Guarded(Base):
        def __getattr__(self, name: str) -> Any:
            asked.append(name)
            return _Told()

        def __getattribute__(self, name: str) -> Any:
            asked.append(name)
            return object.__getattribute__(self, name)

        @property
        def x(self) -> Any:
            asked.append("property")
            return _Told()

        def __eq__(self, other: object) -> bool:
            return True

    held = Guarded(k=_Told())
    object.__setattr__(held, "y", 1)
    found = _reader()(held, "==")
    assert asked == []
    assert "._Told ~" in found["t"]  # a dict subclass's own keys and values are read
    assert library.held(held) is not None


def test_what_an_instance_holds_is_bounded() -> None:
    looped = _Point(0, 0)
    looped.x = looped
    found = _reader()(looped, "==")
    assert "..." in found["t"] and not found["c"]
    wide = _Point(0, 0)
    wide.__dict__.update({f"f{n}": n for n in range(shapes.MAX_ITEMS + 5)})
    # past the item bound, a rest of value types holds nothing new: named as its class alone
    assert _reader()(wide, "==")["t"] == f"{__name__}._Point"
    wide.__dict__[f"f{shapes.MAX_ITEMS + 3}"] = _Told()
    assert "..." in _reader()(wide, "==")["t"]


def test_an_instance_dictionary_naming_its_class_is_read_unless_shadowing_is_refused() -> None:
    held = _Defaulted(_Told())
    assert library.items(held) is None  # a library type's: its comparison could be shadowed
    found = library.held(held)
    assert found is not None and any(isinstance(v, _Told) for v in found)
