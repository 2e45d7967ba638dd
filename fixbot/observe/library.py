"""The standard library's value types whose comparison is Python (`fractions.Fraction`,
`collections.Counter`, `uuid.UUID`, `ipaddress`'s addresses, `pathlib`'s paths): judged like
a built-in's own (`shapes.py`) while what their comparison runs is what it was at load.

Copied beside the plugin as `<module>_library` and loaded with it, inside the project's own
Python (3.8 or later), before any conftest or test module is imported: the types and what
their comparison reaches are taken from the standard library's modules as imported then, by
identity (`LIBRARY`, never a name looked up later, never `unittest.mock`).

What their comparison reaches (`_reach`): each class of the type's method resolution order and
its metaclass (their dictionaries, entry by entry), each Python function found there or by
name from one (its code, defaults, keyword defaults and closure cells), the globals and
builtins each reads by name, the attributes it names of a module or class it reads, and, for an
abstract base class among them (`numbers.Rational`, which `isinstance` asks), the classes below
it and those registered with it (a project's subclass of one runs its code inside
`isinstance`). All of it is held by identity at load; `unchanged` compares it at each reading,
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

import _abc
from collections.abc import Callable, Mapping
from types import (
    CellType,
    FunctionType,
    GetSetDescriptorType,
    MappingProxyType,
    MemberDescriptorType,
    ModuleType,
)
from typing import Any

MAX_REACH = 3000  # entries held per type at most: past it the type is not allowlisted
ABSENT = object()  # a name no namespace held at load
# the dunders a comparison may run (`shapes.DECIDERS`'): where what a type reaches starts
COMPARING = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def library_types() -> tuple[Any, ...]:
    """The standard library's value types whose comparison is Python (the module docstring),
    as this process imports them now: the plugin loads this before any of the project's code.
    A type a Python version lacks is left out."""
    import collections
    import fractions
    import ipaddress
    import pathlib
    import uuid

    found = [fractions.Fraction, collections.Counter, uuid.UUID]
    found += [ipaddress.IPv4Address, ipaddress.IPv6Address]
    found += [pathlib.PurePath, pathlib.PurePosixPath, pathlib.PureWindowsPath]
    found += [pathlib.Path, pathlib.PosixPath, pathlib.WindowsPath]
    # the library's own comparison, Python since 3.10: before, `dict`'s (judged in `shapes`)
    return tuple(kind for kind in found if "__eq__" in vars(kind) or kind is not found[1])


def comparison_codes() -> tuple[Any, ...]:
    """The code objects of the comparison dunders (`COMPARING`) the library's types define
    themselves or through their method resolution order, as imported at load (`library_types`):
    the Python frames that may decide a comparison whose operands `shapes.py` read as such a
    type, held here so their identities stay theirs (`operands._decider`)."""
    codes = []
    for kind in library_types():
        for dunder in COMPARING:
            for function in _functions(getattr(kind, dunder, None)):
                codes.append(function.__code__)
    return tuple(codes)


def _functions(value: Any) -> list[Any]:
    """The Python functions a class dictionary's `value` runs when read or called (a
    function, a classmethod's or staticmethod's, a property's accessors)."""
    inner = [value]
    if isinstance(value, (classmethod, staticmethod)):
        inner = [value.__func__]
    elif isinstance(value, property):
        inner = [value.fget, value.fset, value.fdel]
    return [f for f in inner if type(f) is FunctionType]


def _names(code: Any) -> set[str]:
    """The names `code` and the code objects nested in it read (globals, attributes)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _reach(kind: Any) -> tuple[list[tuple[Any, str, Any]], list[Any], list[tuple[Any, ...]]]:
    """What `kind`'s comparison reaches, held at load (the module docstring): the (namespace,
    name, value) entries (a namespace a dict or a class's mappingproxy, `ABSENT` a name it did
    not hold), the functions with (code, defaults, keyword defaults, cell contents), and the
    abstract base classes with what is below them. Every entry of the dictionaries of its
    classes (and their metaclasses') is held; the functions are followed from its comparison
    dunders through the names their code reads (`_read_by`). Raises `OverflowError` past
    `MAX_REACH`."""
    import abc

    classes, entries, work = _start(kind)
    functions: list[Any] = []
    while work:
        function = work.pop()
        if any(function is f for f in functions):
            continue
        functions.append(function)
        read, found = _read_by(function, [vars(c) for c in classes])
        entries += read
        work += found
        if len(entries) > MAX_REACH:
            raise OverflowError(kind)
    towers = [(c, _below(c)) for c in classes if isinstance(c, abc.ABCMeta)]
    return entries, [(f, *_function_state(f)) for f in functions], towers


def _classes(kind: Any) -> list[Any]:
    """`kind`'s method resolution order but `object`, and their metaclasses but `type`."""
    classes = [c for c in kind.__mro__ if c is not object]
    return classes + [type(c) for c in classes if type(c) is not type]


def _start(kind: Any) -> tuple[list[Any], list[tuple[Any, str, Any]], list[Any]]:
    """`kind`'s classes (`_classes`), every entry of their dictionaries, and the Python
    functions of its comparison dunders there."""
    classes = _classes(kind)
    spaces = [vars(c) for c in classes]
    entries = [(space, name, value) for space in spaces for name, value in space.items()]
    work = [f for space in spaces for d in COMPARING if d in space for f in _functions(space[d])]
    return classes, entries, work


def _read_by(function: Any, spaces: list[Any]) -> tuple[list[tuple[Any, str, Any]], list[Any]]:
    """The (namespace, name, value) entries the names `function`'s code reads resolve to (its
    globals, then builtins; the attributes it names of a module or class it reads there or in
    the type's class dictionaries `spaces`), and the Python functions found among them."""
    import builtins

    names = _names(function.__code__)
    found = [space[n] for space in spaces for n in names if n in space]
    entries: list[tuple[Any, str, Any]] = []
    for name in sorted(names):
        held, value = _global(name, (function.__globals__, vars(builtins)))
        entries += held
        found += value
    work: list[Any] = []
    for value in found:
        if isinstance(value, (ModuleType, type)):
            inner = vars(value)
            attributes = sorted(names & set(inner))
            entries += [(inner, a, inner[a]) for a in attributes]
            work += [f for a in attributes for f in _functions(inner[a])]
        work += _functions(value)
    return entries, work


def _global(name: str, spaces: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """The entries looking `name` up through `spaces` in turn (a function's globals, then
    builtins) reads, and the value found ([]: none)."""
    entries = []
    for space in spaces:
        entries.append((space, name, space.get(name, ABSENT)))
        if name in space:
            return entries, [space[name]]
    return entries, []


def _function_state(
    function: Any,
    _code: Any = FunctionType.__dict__["__code__"].__get__,
    _defaults: Any = FunctionType.__dict__["__defaults__"].__get__,
    _kwdefaults: Any = FunctionType.__dict__["__kwdefaults__"].__get__,
    _closure: Any = FunctionType.__dict__["__closure__"].__get__,
    _contents: Any = CellType.__dict__["cell_contents"].__get__,
    _tuple: Any = tuple,
    _absent: Any = ABSENT,
    _empty: Any = ValueError,
) -> tuple[Any, ...]:
    """A function's code, defaults, keyword defaults and cell contents (`ABSENT` for an empty
    cell), as held now, read through `FunctionType`'s and the cell's own descriptors."""
    cells = []
    for cell in _closure(function) or ():
        try:
            cells.append(_contents(cell))
        except _empty:  # an empty cell
            cells.append(_absent)
    return _code(function), _defaults(function), _kwdefaults(function), _tuple(cells)


def _below(
    klass: Any,
    _type: Any = type,
    _id: Any = id,
    _subclasses: Any = type.__subclasses__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _dump: Any = _abc._get_dump,
    _frozenset: Any = frozenset,
    _set: Any = set,
) -> frozenset[tuple[int, int]]:
    """The classes below the abstract base class `klass` and those registered with it whose
    `issubclass` may run Python (their metaclass no plain `type`), all the way down
    (`isinstance` asks each), as (class, metaclass) identities: read through `type`'s C
    `__subclasses__` and `_abc._get_dump` (the C registry). A class of a plain `type`
    answers `issubclass` in C and is not followed."""
    seen: set[tuple[int, int]] = _set()
    stack = [klass]
    while stack:
        top = stack.pop()
        meta = _type(top)
        if meta is _type or (_id(top), _id(meta)) in seen:
            continue
        seen.add((_id(top), _id(meta)))
        stack += _subclasses(top)
        if "_abc_impl" in _dict(top):
            stack += [ref() for ref in _dump(top)[0] if ref() is not None]
    below: frozenset[tuple[int, int]] = _frozenset(seen)
    return below


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
