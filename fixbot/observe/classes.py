"""What the observer's profile function (`watch.py`) reads of a class, a value or a frame, each
made as a function holding what it uses as positional defaults and reading through `type`'s
own C accessors (`__mro__`, `__dict__`, `__flags__`), which no metaclass answers, so that none
of the project's code runs under the profile function: a class's comparison dunder
(`slot_reader`), whether it derives from an immutable built-in scalar (`immutable_reader`),
the comparison dunders of a value handed back (`learner`), the instance and operand of a
dunder's frame (`instance_reader`).

Copied beside the plugin as `<module>_classes` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

COMPARISONS = ("__eq__", "__ne__")


def learner(most: int) -> Callable[[Any, set[int]], None]:
    """`learn(value, codes)`: add to `codes` the identities of the code of the Python
    comparison dunders (`__eq__`, `__ne__`) of `value`'s type, and of the items' types of a
    list, tuple, set or dict (its values) it is, exactly those built-in types (a subclass's
    iteration is its own code): a dunder under another name (`__eq__ = _eq`) is then seen run
    as one. Read through `type`'s own C accessors; a class made at run time whose dictionary
    holds a key no `str` is not looked into (its lookup would run the key's code). `most`
    items of a container are asked, and `4 * most` codes kept at most."""
    slot = slot_reader()

    def learn(
        value: Any,
        codes: set[int],
        _slot: Any = slot,
        _type: Any = type,
        _id: Any = id,
        _len: Any = len,
        _list: Any = list,
        _sequences: tuple[type, ...] = (list, tuple, set, frozenset),
        _dict_t: type = dict,
        _values: Any = dict.values,
        _code: Any = FunctionType.__dict__["__code__"].__get__,
        _dunders: tuple[str, ...] = COMPARISONS,
        _max: int = most,
        _any: Callable[[Any], bool] = any,
    ) -> None:
        kind = _type(value)
        items = [value]
        if kind is _dict_t:
            items += _list(_values(value))[:_max]
        elif _any(kind is one for one in _sequences):  # by identity: no metaclass `__eq__`
            items += _list(value)[:_max]
        for one in items:
            for dunder in _dunders:
                function = _slot(_type(one), dunder, None)
                if function and _len(codes) < 4 * _max:
                    codes.add(_id(_code(function)))

    return learn


def immutable_reader() -> Callable[[type], bool]:
    """`immutable(kind)`: whether `kind` derives from an immutable built-in scalar (int, float,
    complex, str, bytes): the value its comparison compares cannot change between the test's
    question and the observer's asking it again (a container, or any object with state, may:
    a test compares a document, then deletes a key). Read through `type`'s own C accessors,
    by identity."""

    def immutable(
        kind: type,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _bases: tuple[type, ...] = (int, float, complex, str, bytes),
        _any: Callable[[Any], bool] = any,
    ) -> bool:
        return _any(klass is base for klass in _mro(kind) for base in _bases)

    return immutable


def slot_reader() -> Callable[[type, str, Any], Any]:
    """`slot(kind, dunder, code)`: the Python function `kind` finds under `dunder` when its code
    is `code` (any, for None), else None; False where a class of its method resolution order
    made at run time holds a key that is no exact `str` in its dictionary (a str subclass or
    any object hashing as `dunder`, whose `__eq__` a dictionary lookup would run). Read
    through `type`'s own C accessors: a metaclass's `__mro__` or `__dict__` is not asked."""

    def slot(
        kind: type,
        dunder: str,
        code: Any,
        _type: Any = type,
        _str: Any = str,
        _function: Any = FunctionType,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _code: Any = FunctionType.__dict__["__code__"].__get__,
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE: a class made at run time
    ) -> Any:
        for klass in _mro(kind):
            members = _dict(klass)
            if _flags(klass) & _heap:
                for name in members:  # iterating a dictionary compares nothing
                    if _type(name) is not _str:
                        return False
            if dunder in members:
                function = members[dunder]
                if _type(function) is _function and (code is None or _code(function) is code):
                    return function
                return None
        return None

    return slot


def instance_reader() -> Callable[[Any, Any], tuple[Any, Any] | None]:
    """The instance a dunder's frame runs for and what it is compared with: its first and
    second arguments, or the first of its `*args` (`lambda *a: ...`); None where it has none."""

    def instance(
        frame: Any, code: Any, _type: Any = type, _tuple: Any = tuple, _varargs: int = 0x04
    ) -> tuple[Any, Any] | None:
        count = code.co_argcount
        local = frame.f_locals
        names = code.co_varnames
        if count:
            return local.get(names[0]), local.get(names[1]) if count > 1 else None
        if code.co_flags & _varargs:
            rest = local.get(names[code.co_kwonlyargcount])
            return (rest[0], None) if _type(rest) is _tuple and rest else None
        return None

    return instance
