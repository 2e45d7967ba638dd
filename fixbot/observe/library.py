"""The standard library's value types whose comparison is Python (`fractions.Fraction`,
`collections.Counter`, `uuid.UUID`, `ipaddress`'s addresses, `pathlib`'s paths): judged like
a built-in's own (`shapes.py`) while what their comparison runs is what it was at load.

Copied beside the plugin as `<module>_library` and loaded with it, inside the project's own
Python (3.8 or later), before any conftest or test module is imported: the types and what
their comparison reaches are taken from the standard library's modules as imported then, by
identity (`LIBRARY`, never a name looked up later, never `unittest.mock`).

What their comparison reaches (`libreach._reach`, held at load by the observer's `libreach`
part; this one compares it at run time): each class of the type's method resolution order and
its metaclass (their dictionaries, entry by entry), each Python function found there or by
name from one (its code, defaults, keyword defaults and closure cells), the globals and
builtins each reads by name, the attributes it names of a module or class it reads, and, for an
abstract base class among them (`numbers.Rational`, which `isinstance` asks), the classes below
it and those registered with it (a project's subclass of one runs its code inside
`isinstance`). All of it is held by identity at load; `unchanged` (`checker`) compares it at
each reading,
through C accessors alone: the type replaced by name, its `__eq__` rebound on the class, a
helper it calls rebound in its module (`fractions.math`), a function's code or defaults
written, a class registered with `numbers`' tower: the type is no longer the library's own
(`shapes.py` then judges it as any class is). Only an exact type counts (a subclass, with an
`__eq__` of its own or not, is judged as a class is).

What the type holds is judged as a container's items are (`items`): its instance's slots and
`__dict__` values (a `Fraction`'s numerator and denominator, a path's parts), and a `Counter`'s
keys and values; an instance whose `__dict__` names an attribute of its class (which would
shadow what its comparison looks up) is no library type's own.

Left out, on purpose: `collections.UserDict`/`UserList`/`ChainMap` (their comparison asks
`self.data`, any object, through the `Mapping` ABC's Python); `ipaddress`' networks and
interfaces (cached properties in the instance's `__dict__`). `decimal.Decimal`, `datetime`'s
types, `OrderedDict`, `defaultdict`, `deque`, `namedtuple`s and enum members are C (or
object's own) and judged in `shapes.py`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import GetSetDescriptorType, MappingProxyType, MemberDescriptorType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_library`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


# what the library's types' comparisons reach, held at load (`libreach.py`)
libreach = _sibling("libreach")
ABSENT = libreach.ABSENT  # a name no namespace held at load
library_types = libreach.library_types
comparison_codes = libreach.comparison_codes
hash_codes = libreach.hash_codes
_function_state = libreach._function_state
_below = libreach._below
_reach = libreach._reach


_PROXY_GET = type(vars(object)).get  # a class dictionary's (mappingproxy's) own `get`


def _same_entries(
    entries: list[tuple[Any, str, Any]],
    _get: Any = dict.get,
    _proxy_get: Any = _PROXY_GET,
    _dict: Any = dict,
    _type: Any = type,
    _absent: Any = ABSENT,
    _str: Any = str,
    _id: Any = id,
    _set: Any = set,
) -> bool:
    """Whether each (namespace, name, value) of `entries` holds that value still (`ABSENT`: no
    value), by identity, read through the namespace's own C `get`; False where a namespace
    holds a key that is no exact `str` (looked for, by `type`, before the first lookup in it:
    a lookup would run that key's `__eq__`, project code inside the observer's reading, where
    a key whose hash is a name's is put in a module's globals; round 13)."""
    clean = _set()
    for space, name, value in entries:
        if _id(space) not in clean:
            for key in space:  # a dictionary's or class dictionary's own iteration: C
                if _type(key) is not _str:
                    return False
            clean.add(_id(space))
        get = _get if _type(space) is _dict else _proxy_get
        if get(space, name, _absent) is not value:
            return False
    return True


def _same_functions(
    functions: list[tuple[Any, ...]],
    _state: Any = _function_state,
    _len: Any = len,
    _range: Any = range,
) -> bool:
    """Whether each function of `functions` holds the code, defaults, keyword defaults and
    cell contents it was held with, by identity."""
    for function, code, defaults, kwdefaults, cells in functions:
        now = _state(function)
        if now[0] is not code or now[1] is not defaults or now[2] is not kwdefaults:
            return False
        if _len(now[3]) != _len(cells):
            return False
        for index in _range(_len(cells)):
            if now[3][index] is not cells[index]:
                return False
    return True


def checker() -> tuple[Mapping[int, Any], Callable[[Any], bool]]:
    """`(kinds, unchanged)`: the library's types held at load (`library_types`, by identity;
    a type whose reach passes `MAX_REACH` is left out), and `unchanged(kind)`, whether what
    `kind`'s comparison reaches is what it was at load (`_reach`), read through C accessors
    alone (dictionaries' own `get`, functions' and cells' descriptors)."""
    reached = {}
    for kind in library_types():
        try:
            reached[id(kind)] = (kind, *_reach(kind))
        except OverflowError:
            continue
    kinds = MappingProxyType({key: held[0] for key, held in reached.items()})
    # read-only, as every table the observer's functions hold (`shapes.DECIDERS`)
    frozen = MappingProxyType(reached)

    def unchanged(
        kind: Any,
        _reached: Mapping[int, Any] = frozen,
        _id: Any = id,
        _entries: Any = _same_entries,
        _functions: Any = _same_functions,
        _below: Any = _below,
        _all: Any = all,
    ) -> bool:
        held = _reached.get(_id(kind))
        if held is None or held[0] is not kind:
            return False
        _, entries, functions, towers = held
        if not (_entries(entries) and _functions(functions)):
            return False
        same: bool = _all(_below(klass) == below for klass, below in towers)
        return same

    return kinds, unchanged


def _dict_pairs(
    value: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _base: Any = dict,
    _pairs: Any = dict.items,
) -> list[Any]:
    """The keys and values of `value` where its class is one below `dict` ([] otherwise),
    read through `dict`'s own iteration; its classes compared by identity."""
    for klass in _mro(_type(value)):
        if klass is _base:
            return [part for pair in _pairs(value) for part in pair]
    return []


def _slots(
    value: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _str: Any = str,
    _member: Any = MemberDescriptorType,
    _member_get: Any = MemberDescriptorType.__get__,
    _getset: Any = GetSetDescriptorType,
    _getset_get: Any = GetSetDescriptorType.__get__,
    _set: Any = set,
    _unset: tuple[Any, ...] = (AttributeError, TypeError),
    _other: Any = TypeError,
) -> tuple[list[Any], set[str], Any] | None:
    """`(values, names, own)`: the values of `value`'s slots (unset ones left out), the names
    its classes' dictionaries hold, and its instance `__dict__` (None: it has none); None where
    a class dictionary holds a key that is no str."""
    found: list[Any] = []
    names: set[str] = _set()
    own = None
    kind = _type(value)
    for klass in _mro(kind):
        for key, member in _dict(klass).items():
            if _type(key) is not _str:
                return None
            names.add(key)
            if _type(member) is _member:
                try:
                    found.append(_member_get(member, value, kind))
                except _unset:  # a slot not set, or another class's
                    continue
            elif key == "__dict__" and own is None and _type(member) is _getset:
                try:
                    own = _getset_get(member, value, kind)
                except _other:  # another class's descriptor: no instance dictionary read
                    return None
    return found, names, own


def held(
    value: Any,
    shadow: bool = False,
    _keyed: Any = _dict_pairs,
    _type: Any = type,
    _base: Any = dict,
    _pairs: Any = dict.items,
    _str: Any = str,
    _read: Callable[[Any], tuple[list[Any], set[str], Any] | None] = _slots,
) -> list[Any] | None:
    """What any instance `value` holds (`items`, which passes `shadow`): its slots' values
    (unset ones left out), its instance `__dict__`'s values, and a `dict`'s keys and values
    where its class is one below `dict`; None where a class dictionary or its `__dict__` holds
    a key that is no exact str, its `__dict__` is no exact dict, or (`shadow`) that `__dict__`
    names an attribute of its class. Read through C accessors alone (member and getset
    descriptors, `dict`'s own iteration, classes compared by identity): no `__getattr__`,
    property or metaclass `__eq__` of the project's runs."""
    read = _read(value)
    if read is None:
        return None
    found, names, own = read
    found += _keyed(value)
    if own is not None and _type(own) is not _base:
        return None
    for key, item in _pairs(own) if own is not None else ():
        if _type(key) is not _str or (shadow and key in names):
            return None
        found.append(item)
    return found


def items(value: Any, _held: Any = held) -> list[Any] | None:
    """What a library type's `value` holds, as its comparison may read it (`held`): its slots'
    values (unset ones left out), its instance `__dict__`'s values, and a `dict`'s keys and
    values (a `Counter`'s); None where its `__dict__` names an attribute of its class (which
    would shadow what its comparison looks up) or a key that is no str."""
    found: list[Any] | None = _held(value, True)
    return found
