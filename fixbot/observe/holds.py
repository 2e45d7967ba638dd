"""What a value holds, read for `classes.pinner`'s walk at every hand-off without running code
of anyone's: which types the walk opens (`sorter`: an exact built-in container, a subclass of
one, an object of a class made at run time), a built-in container subclass's storage through
its base type's own C iteration (`storage_reader`), an object's attributes through exact
descriptors' C getters (`attributes_reader`) and the data its classes made at run time hold in
their own dictionaries (`layout_reader`), and which of a container's items the walk must open,
found by a C scan of their types (`picker`: items of value types cost nothing).

Round 16 (the class next door): a told object in a class attribute (`Evens.found`), in a `list`
subclass's items, or after 100 honest attributes was never pinned: the walk opened instance
dictionaries and exact containers alone, and stopped at `MAX_ITEMS` items silently.

Copied beside the plugin as `<module>_holds` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, islice, repeat
from operator import is_not
from types import FunctionType, GetSetDescriptorType, MemberDescriptorType
from typing import Any

# the built-in containers whose storage the walk reads, each through its own C iteration taken
# here, at load, from the exact type (never a subclass's `__iter__`, `__getitem__` or `keys`)
BOXES = (list, tuple, dict, set, frozenset)
HEAP = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time
CLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS: the object is a class
# Py_TPFLAGS_LIST_SUBCLASS, _TUPLE_, _DICT_: a C subclass (`OrderedDict`, `defaultdict`)
SUBCLASSES = (1 << 25) | (1 << 26) | (1 << 29)
# the exact types whose objects hold nothing the walk opens: a scan of these alone ends there
VALUES = (int, bool, float, complex, str, bytes, type(None), type, FunctionType)
PASSES = 3  # value types dropped by a C scan each, at most (then the rest one by one)
# items listed in C by one walk at most (of value types, or not): past it the walk is cut
MAX_READ = 100_000


def sorter() -> Callable[[type], tuple[Any, bool, bool]]:
    """`sort(kind)`: how the walk treats an object of the class `kind`, as `(base, made,
    klass)`: `base` the built-in container of `BOXES` it is or derives from (first in its
    method resolution order, by identity) else None; `made` whether `kind` is a class made at
    run time (pinned, its attributes opened); `klass` whether the object is itself a class (its
    own attributes are its dictionary: not opened). `(None, False, False)` for a value type the
    walk skips (`int`, `str`, a function). Read through `type`'s own C accessors."""
    boxes: dict[int, type] = {id(box): box for box in BOXES}

    def sort(
        kind: type,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _id: Any = id,
        _boxes: dict[int, type] = boxes,
        _heap: int = HEAP,
        _class: int = CLASS,
        _subclasses: int = SUBCLASSES,
        _bool: Any = bool,
    ) -> tuple[Any, bool, bool]:
        flags = _flags(kind)
        base = _boxes.get(_id(kind))
        if base is None and flags & (_heap | _subclasses):
            for klass in _mro(kind):
                base = _boxes.get(_id(klass))
                if base is not None:
                    break
        return base, _bool(flags & _heap), _bool(flags & _class)

    return sort


def storage_reader() -> Callable[[Any, type, int], list[Any]]:
    """`storage(one, base, room)`: at most `room` items of `one`, an object of the built-in
    container `base` or a subclass of it, read through `base`'s own C iteration held since
    load (`list.__iter__`, `dict.__iter__` then `dict.values`: a dict's keys, then its values),
    never the subclass's: no `__iter__`, `__getitem__`, `keys` or `values` of the project's
    runs. Round 16: a told object among a `list` subclass's items was never pinned."""
    walks = {id(box): box.__iter__ for box in BOXES}

    def storage(
        one: Any,
        base: type,
        room: int,
        _walks: dict[int, Any] = walks,
        _id: Any = id,
        _list: Any = list,
        _islice: Any = islice,
        _len: Any = len,
        _dict_t: type = dict,
        _values: Any = dict.values,
    ) -> list[Any]:
        inner: list[Any] = _list(_islice(_walks[_id(base)](one), room))
        if base is _dict_t:
            inner += _list(_islice(_values(one), room - _len(inner)))
        return inner

    return storage


def layout_reader() -> Callable[[type], tuple[Any, list[Any]] | None]:
    """`layout(kind)`: how an object of the class `kind` is read, as `(getset, members)`: the
    exact `getset_descriptor` named `__dict__` its method resolution order holds (its instance
    dictionary's C getter) or None, and its exact `member_descriptor`s (`__slots__`). None
    where a class made at run time of that order holds a key no exact `str` (asking for a name
    there could run its `__eq__`; `slot_reader` says so). Read through `type`'s own C
    accessors; a class of the language's own (no `HEAPTYPE`: its dictionary is fixed, its keys
    `str`) is read once and kept."""
    fixed: dict[int, tuple[Any, list[Any]]] = {}  # id(built-in class) -> its descriptors

    def layout(
        kind: type,
        _type: Any = type,
        _str: Any = str,
        _id: Any = id,
        _list: Any = list,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _getset: Any = GetSetDescriptorType,
        _member: Any = MemberDescriptorType,
        _fixed: dict[int, tuple[Any, list[Any]]] = fixed,
        _heap: int = HEAP,
        _dict_name: str = "__dict__",
    ) -> tuple[Any, list[Any]] | None:
        getset, members = None, []
        for klass in _mro(kind):
            made = _flags(klass) & _heap
            known = None if made else _fixed.get(_id(klass))
            if known is None:
                own, mine = None, []
                for name, member in _list(_dict(klass).items()):
                    if _type(name) is not _str:  # compared nothing yet: its hash was stored
                        return None
                    held = _type(member)
                    if held is _getset and own is None and name == _dict_name:
                        own = member
                    elif held is _member:
                        mine.append(member)
                known = (own, mine)
                if not made:  # held: a class of the language's own outlives the cache
                    _fixed[_id(klass)] = known
            getset = getset if getset is not None else known[0]
            members += known[1]
        return getset, members

    return layout


def class_values_reader() -> Callable[[type, set[int]], list[Any]]:
    """`class_values(kind, listed)`: the values the classes made at run time of `kind`'s
    method resolution order hold in their own dictionaries under a name that is no dunder (a
    class attribute: `Evens.found`; a dunder is the language's machinery, a method or a
    descriptor, and a comparison slot among them is `classes.aliased_reader`'s), of each such
    class not in `listed` (the classes this walk listed already; added to it); [] where one
    holds a key no exact `str` (`layout_reader`). Round 16: a told object in a class
    attribute was never pinned."""

    def class_values(
        kind: type,
        listed: set[int],
        _type: Any = type,
        _str: Any = str,
        _id: Any = id,
        _list: Any = list,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _starts: Any = str.startswith,
        _ends: Any = str.endswith,
        _heap: int = HEAP,
        _dunder: str = "__",
    ) -> list[Any]:
        values = []
        for klass in _mro(kind):
            if not _flags(klass) & _heap or _id(klass) in listed:
                continue
            listed.add(_id(klass))
            for name, member in _list(_dict(klass).items()):
                if _type(name) is not _str:
                    return []
                if not (_starts(name, _dunder) and _ends(name, _dunder)):
                    values.append(member)
        return values

    return class_values


def attributes_reader() -> Callable[[Any, type, int], list[Any]]:
    """`attributes(one, kind, most)`: at most `most` of the values the object `one` (of the
    class `kind`) holds as attributes, for `pinner` to open as it opens a container's items:
    its instance dictionary's values (read through the `__dict__` descriptor its class's method
    resolution order holds, an exact `getset_descriptor`'s C getter, never
    `__getattribute__`) and its `__slots__` members' (each an exact `member_descriptor`'s C
    getter; an unset one is skipped). [] where a class of that order holds a key no exact
    `str` in its dictionary (`layout_reader`) or where a getter raises (another class's
    descriptor). Round 16: a told object in an attribute of the value handed back
    (`evens(10).found`) was never pinned. Its classes' own values are `layout_reader`'s."""
    layout_of = layout_reader()

    def attributes(
        one: Any,
        kind: type,
        most: int,
        layout: Any = None,
        _layout: Any = layout_of,
        _list: Any = list,
        _islice: Any = islice,
        _get_set: Any = GetSetDescriptorType.__get__,
        _get_member: Any = MemberDescriptorType.__get__,
        _values: Any = dict.values,
        _error: Any = Exception,
    ) -> list[Any]:
        read = layout if layout is not None else _layout(kind)
        if read is None:
            return []
        getset, members = read
        found: list[Any] = []
        for member in members:
            try:
                found.append(_get_member(member, one, kind))
            except _error:  # an unset slot; a descriptor of another class's
                continue
        if getset is not None:
            try:
                found += _list(_islice(_values(_get_set(getset, one, kind)), most))
            except _error:  # no dictionary
                return found[:most]
        return found[:most]

    return attributes


def opener() -> Callable[..., tuple[list[Any], list[Any], bool]]:
    """`opened(one, kind, base, made, hop, room, layouts, listed)`: what the object `one` (of the
    class `kind`, `sorter`'s `base` and `made`) holds, `room` items at most, as `(inner, owned,
    whole)`, `whole` False where a class made at run time of its order holds a key no exact
    `str` (`layout_reader`: neither its attributes nor its classes' values are read; only code
    puts such a key there, round 18): the walk is cut there; its storage where it is a built-in
    container or a subclass of one (`storage_reader`), its attributes where its class is made at
    run time (`attributes_reader`, its layout cached by the class's identity in `layouts` for
    one walk), and, unless `hop` (it was reached through a class's own value), its classes' own
    values (`class_values_reader`, `listed` as there)."""
    storage, layout = storage_reader(), layout_reader()
    attributes, class_values = attributes_reader(), class_values_reader()

    def opened(
        one: Any,
        kind: type,
        base: Any,
        made: bool,
        hop: bool,
        room: int,
        layouts: dict[int, Any],
        listed: set[int],
        _id: Any = id,
        _storage: Any = storage,
        _layout: Any = layout,
        _attributes: Any = attributes,
        _class_values: Any = class_values,
    ) -> tuple[list[Any], list[Any], bool]:
        inner: list[Any] = [] if base is None else _storage(one, base, room)
        if not made:
            return inner, [], True
        shape = layouts.get(_id(kind), False)
        if shape is False:
            shape = layouts[_id(kind)] = _layout(kind)
        if shape is None:  # a key no str in a class's dictionary: nothing of it read
            return inner, [], False
        inner += _attributes(one, kind, room, shape)
        return inner, ([] if hop else _class_values(kind, listed)), True

    return opened


def picker(sort: Callable[[type], tuple[Any, bool, bool]]) -> Callable[..., list[Any]]:
    """`pick(items, kinds)`: those of `items` the walk must look at (`sort` says a container or
    a class made at run time; `kinds` caches its answer by the type's identity for one walk).
    The items of one of `VALUES` (held since load) are dropped first by a C scan, a type at a
    time, up to `PASSES` types (`map(type, ...)` and `operator.is_not`: identities, no
    metaclass's hash or `==` is asked), and the rest looked at one by one: a thousand `int`s
    cost one scan, not a thousand steps of the walk."""

    def pick(
        items: list[Any],
        kinds: dict[int, tuple[Any, bool, bool]],
        _sort: Any = sort,
        _type: Any = type,
        _id: Any = id,
        _list: Any = list,
        _map: Any = map,
        _compress: Any = compress,
        _repeat: Any = repeat,
        _is_not: Any = is_not,
        _values: frozenset[int] = frozenset(id(kind) for kind in VALUES),
        _held: tuple[type, ...] = VALUES,  # alive while their identities are held
        _passes: range = range(PASSES),
        _len: Any = len,
        _few: int = 8,
    ) -> list[Any]:
        rest = items
        for _ in _passes if _len(items) > _few else ():  # value types dropped in C, one a pass
            if not rest or _id(_type(rest[0])) not in _values:
                break
            kind = _type(rest[0])
            rest = _list(_compress(rest, _map(_is_not, _map(_type, rest), _repeat(kind))))
        found = []
        for item in rest:
            key = _id(_type(item))
            how = kinds.get(key)
            if how is None:
                how = kinds[key] = _sort(_type(item))
            if how[0] is not None or how[1]:
                found.append(item)
        return found

    return pick
