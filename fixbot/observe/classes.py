"""What the observer's profile function (`watch.py`) reads of a class, a value or a frame, each
made as a function holding what it uses as positional defaults and reading through `type`'s
own C accessors (`__mro__`, `__dict__`, `__flags__`), which no metaclass answers, so that none
of the project's code runs under the profile function: a class's comparison dunder
(`slot_reader`), whether it derives from an immutable built-in scalar (`immutable_reader`),
the comparison dunders of a value handed back (`learner`), the instance and operand of a
dunder's frame (`instance_reader`), and, at every hand-off, the objects of classes made at run
time among a value and its items pinned with their class and those classes' comparison slots
that no frame runs (`pinner`, `aliased_reader`), read again as the call ends (`swapped`).

Copied beside the plugin as `<module>_classes` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import (
    BuiltinFunctionType,
    ClassMethodDescriptorType,
    FunctionType,
    MethodDescriptorType,
    MethodWrapperType,
    WrapperDescriptorType,
)
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_classes`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


holds = _sibling("holds")  # what a value holds, read for the walk without running code
attributes_reader = holds.attributes_reader  # an object's attributes, by C getters alone
COMPARISONS = ("__eq__", "__ne__")
MUTABLE = (list, dict, set)  # the exact containers whose storage `pinner` hands to `stored`


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


# the exact types of a method implemented in C, as a class's dictionary holds it, each read for
# the method's name by its type's own C reader (`int.__eq__` stands as a built-in's own
# `__eq__`; `int.__le__` under `__eq__` is another method)
C_METHODS = (
    WrapperDescriptorType,
    MethodDescriptorType,
    BuiltinFunctionType,
    MethodWrapperType,
    ClassMethodDescriptorType,
)
# the names of the C types a compiled binding's methods are (Cython's functions, pybind11's
# `instancemethod`): a class of the language's own (no `HEAPTYPE`), which no code in Python makes
BINDINGS = frozenset({"cython_function_or_method", "fused_cython_function", "instancemethod"})


def aliased_reader() -> Callable[[type, str], Any]:
    """`aliased(kind, dunder)`: the comparison slot `kind` finds under `dunder` where it is
    neither a Python function (which the profile function sees run) nor a built-in type's own
    (found in a class of the language's own, or a C method under its own name, or a compiled
    binding's method, `BINDINGS`): a `functools.partial`, a `staticmethod`, a C method of
    another name (`int.__le__`), any callable object, whose C runs with no frame; else None
    (also where a class made at run time holds a key no `str`: `slot_reader` says so). Read
    through `type`'s own C accessors, as `calls._aliased` reads the same as the call ends."""
    names = {id(kind): kind.__dict__["__name__"].__get__ for kind in C_METHODS}  # held alone

    def aliased(
        kind: type,
        dunder: str,
        _type: Any = type,
        _id: Any = id,
        _str: Any = str,
        _function: Any = FunctionType,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _name: Any = type.__dict__["__name__"].__get__,
        _c_names: dict[int, Any] = names,
        _bindings: frozenset[str] = BINDINGS,
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE: a class made at run time
    ) -> Any:
        for klass in _mro(kind):
            members = _dict(klass)
            made = _flags(klass) & _heap
            if made:
                for name in members:  # iterating a dictionary compares nothing
                    if _type(name) is not _str:
                        return None
            if dunder not in members:
                continue
            member = members[dunder]
            held = _type(member)
            if not made or member is None or held is _function:
                return None
            named = _c_names.get(_id(held))
            if named is not None:
                return None if named(member) == dunder else member
            if not _flags(held) & _heap and _name(held) in _bindings:
                return None
            return member
        return None

    return aliased


def _taker(held: int) -> Callable[[Any, type, Any, dict[Any, Any], dict[Any, Any]], bool]:
    """`pinner`'s pin of one object of a class made at run time (`take`), `held` pins at most."""
    aliased_of = aliased_reader()

    def take(
        one: Any,
        kind: type,
        code: Any,
        pins: dict[Any, Any],
        slots: dict[Any, Any],
        _id: Any = id,
        _len: Any = len,
        _aliased: Any = aliased_of,
        _dunders: tuple[str, ...] = COMPARISONS,
        _held: int = held,
    ) -> bool:
        """Pin `one` of the class `kind` handed back by `code`, once per (code, class), and
        count its class's slots no frame runs; False where `held` pins are kept already."""
        key = (_id(code), _id(kind))
        if key in pins:
            return True
        if _len(pins) >= _held:
            return False
        pins[key] = (one, kind)  # held: neither id is reused while the call runs
        for dunder in _dunders:
            slot = _aliased(kind, dunder)
            if slot is not None:
                slots[(_id(kind), dunder)] = (kind, dunder, slot, code)
        return True

    return take


def pinner(most: int, deep: int, held: int) -> Callable[..., bool]:
    """`pin(value, code, notes, stored=None)`, at each hand-off of `value` by the code `code` to the
    watched body: the objects of a class made at run time that `value` is or holds are pinned
    with their class in `notes["pins"]`, one per (code, class), to be read again as the call
    ends (`swapped`); and the comparison slots of each such class that no frame runs
    (`aliased_reader`) go into `notes["aliased"]` (`{(id(class), dunder): (class, dunder,
    slot, code)}`), judged as the call ends as the walk of the classes the project made is: a
    class whose C `__eq__` answers once and puts the plain class back is gone by then, wherever
    and in whatever C the comparison was made. What it holds (`holds.py`): the items of a
    built-in container or of a subclass of one (its base's own C iteration; round 16), the
    attributes of an object of a class made at run time (its instance dictionary's values, its
    slots; round 16) and the values its classes made at run time hold under a name no dunder
    (a class attribute; round 16), each container or object opened once, `deep` deep at most:
    `most` objects of classes made at run time or container subclasses, and `holds.MAX_READ`
    items listed in all (an exact container costs its items; those of value types are
    dropped in C, `holds.picker`). Runs no code of anyone's (built-in
    containers' own C iteration, `type`'s accessors, exact descriptors' C getters). Returns
    False where `held` pins are kept already, or where the walk was cut by a bound with a
    container or an object of a class made at run time left unopened (the rest unpinned: the
    caller says so, `full`; a cut walk of value types alone, `list(range(10**4))`, is no cut).
    Each exact `list`, `dict` and `set` it opens goes into `stored` (where given) as
    `(container, base, copy, length)`: the storage it read, and its `len` (`contents.py`: what a
    container handed back holds, held to the comparison; round 17)."""
    take, sort, opened = _taker(held), holds.sorter(), holds.opener()
    pick = holds.picker(sort)

    def pin(
        value: Any,
        code: Any,
        notes: dict[str, Any],
        stored: list[Any] | None = None,
        _type: Any = type,
        _id: Any = id,
        _len: Any = len,
        _set: Any = set,
        _take: Any = take,
        _sort: Any = sort,
        _pick: Any = pick,
        _opened: Any = opened,
        _most: int = most,
        _deep: int = deep,
        _read: int = holds.MAX_READ,
        _mutable: frozenset[int] = frozenset(id(box) for box in MUTABLE),
        _held: tuple[type, ...] = MUTABLE,  # alive while their identities are held
    ) -> bool:
        pins, slots = notes["pins"], notes["aliased"]
        kinds: dict[int, tuple[Any, bool, bool]] = {}  # id(type) -> `holds.sorter`'s answer
        layouts: dict[int, Any] = {}  # id(class) -> `holds.layout_reader`'s answer
        listed: set[int] = _set()  # the classes whose own values were listed
        seen = {_id(value): False}  # what was stacked (through a class): a shared, cyclic one once
        # (what, depth, whether reached through a class's own value: then its classes' own
        # values are not listed, one hop: a logger's class reaches every logger)
        stack, opened, read, room, cut = [(value, 0, False)], 0, 0, True, False
        while stack:
            one, depth, hop = stack.pop()
            kind = _type(one)  # by identity: a metaclass's hash is not asked
            how = kinds.get(_id(kind))
            if how is None:
                how = kinds[_id(kind)] = _sort(kind)
            base, made, klass = how
            if made:
                room = _take(one, kind, code, pins, slots) and room
            if klass or (base is None and not made):  # a class: its own attributes are its
                continue  # dictionary; a value holds nothing walked
            exact = base is not None and base is kind  # an exact built-in container
            if depth >= _deep or read >= _read or (not exact and opened >= _most):
                cut = True  # left unopened: what it holds went unpinned
                continue
            opened += 0 if exact else 1  # an exact container's cost is its items, `read`
            inner, owned, whole = _opened(one, kind, base, made, hop, _read - read, layouts, listed)
            read += _len(inner) + _len(owned)
            if stored is not None and exact and _id(base) in _mutable:  # its storage, as read
                stored.append((one, base, inner, _len(one)))
            cut = cut or read >= _read or not whole
            for items, through in ((inner, hop), (owned, True)):
                for item in _pick(items, kinds) if items else ():  # a container, an object
                    was = seen.get(_id(item))  # pushed again where not through a class now
                    if was is None or (was and not through):
                        seen[_id(item)] = through
                        stack.append((item, depth + 1, through))
        return room and not cut

    return pin


def swapped(pins: dict[Any, tuple[Any, type]], _type: Any = type) -> list[tuple[type, type]]:
    """The pinned objects (`pinner`) whose class is no longer the one pinned at their hand-off,
    as `(then, now)`, read as the call ends through `type` alone: a `__class__` assigned while
    the call ran (a plain value's class does not change honestly; round 15's told class puts
    the plain one back as its C `__eq__` answers)."""
    return [(kind, _type(one)) for one, kind in pins.values() if _type(one) is not kind]
