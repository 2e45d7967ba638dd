"""The shape of a compared operand's type, read through `type`'s own C accessors
(`shape_reader`): what the observer's trace function and its failed-assertion hook
(`fixbot.observe.operands`) stream of each operand, and fixbot compares
(`fixbot.observe.turned`).

Copied beside the plugin as `<module>_shapes` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone; what its functions use is held
as positional defaults, made once at load (the code under test shares the process and can
reach a closure cell).

A type's shape: `{"t": "module.Qualname", "c": bool, "o": owner, "h": digest}`. `c` is True where
the comparison runs no code of anyone's, an allowlist: an exact value type (`_value_types`, held by
identity at load: `int`, `str`, `None`, `decimal.Decimal`, `datetime`'s...), a type whose
comparison dunders (`DECIDERS`, found through its method resolution order) are each a slot wrapper
of a value type that holds it (a subclass of `int` that defines none), or a container deciding by
its container type's own slot (`_containers`: an exact `list`, a `namedtuple`, a `deque`) whose
items' shapes are all `c`, or an exact type of the standard library whose comparison is Python
(`library.py`: `fractions.Fraction`, `collections.Counter`, `pathlib`'s paths...) while what that
comparison reaches is what it was at load, whose items (its slots' and `__dict__`'s values, a
`Counter`'s keys and values) are all `c` (then `py` is True: the library's Python decides, and only
its comparison dunders may run as it does, `operands._decider`); a container's `t` names its items'
shapes (`shape_reader`), a class's instance's what it holds that is no built-in's own
(`library.held`: a known class handed back holding a caller-told field is new). Any other type
(a `weakref.proxy`, a `mappingproxy`, which ask the object
they wrap) is not `c`: `o` is the class holding the first deciding dunder (its qualified name and
the dunder) that is no value type's own slot, and `h` a digest of its code where it is a Python
function (`bodies._code_digest`; "-" otherwise). The names are what the class claims
(`__qualname__`, `__module__`): fixbot trusts none of them alone, only a type the start's run
compared at the same line under the same names and owner.

A containment (`x in y`) is read as `SIDES` says: the item as `==`'s operand, the container by
its `__contains__` (`DECIDERS["in"]`: a value type's or built-in container's own slot or C
method, `dict.__contains__`, is its own), a built-in container named by its items as their
`==` decides."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import FunctionType, MappingProxyType, MethodDescriptorType, WrapperDescriptorType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_shapes`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


library = _sibling("library")  # the standard library's types whose comparison is Python

# the rich comparisons (`dis.cmp_op`), each with the dunders that decide it: its own, its
# reflection (asked of the right operand), and `__eq__` for `!=` (`object.__ne__` asks it);
# read-only, as every table the observer's functions hold: the code under test reaches this
# module's globals without an audit event (`sys.gettrace().__globals__`), and a table it could
# write would be its to rewrite (round 13: `DECIDERS["=="] = ()` read every type as built-in)
DECIDERS = MappingProxyType(
    {
        "==": ("__eq__",),
        "!=": ("__ne__", "__eq__"),
        "<": ("__lt__", "__gt__"),
        ">": ("__gt__", "__lt__"),
        "<=": ("__le__", "__ge__"),
        ">=": ("__ge__", "__le__"),
        # containment (`CONTAINS_OP`): the container's `__contains__`, which asks its items' `==`
        "in": ("__contains__",),
        "not in": ("__contains__",),
    }
)
# the op each operand of a comparison is read as (item, container: `x in y` asks `y`'s
# `__contains__`, and that `x == item`); a rich comparison's both are read as itself
SIDES = MappingProxyType({"in": ("==", "in"), "not in": ("==", "not in")})
# the containers whose comparison is a built-in's own when their items' are: each compares
# its items (keys and values) from C, asking the items' own comparisons (`_containers`)
CONTAINERS = (list, tuple, dict, set, frozenset)
MAX_DEPTH = 3  # containers within containers read
MAX_ITEMS = 100  # items read of a compared container, all depths together
MAX_KINDS = 20  # distinct item shapes named
# items past `MAX_ITEMS` whose types alone are read (each an exact value type, or the container
# is no built-in's own); past it, the unread rest is never a built-in's own
MAX_REST = 100_000


def _value_types() -> tuple[Any, ...]:
    """The exact types whose comparison runs no code of anyone's (`VALUES`): the built-in
    value types and the C value types of the standard library, as this process holds them at
    load (by identity: a type of the same names made later is not one of them). `decimal`'s and
    `datetime`'s are imported here (the standard library's alone)."""
    import datetime
    import decimal

    return (
        int,
        bool,
        float,
        complex,
        str,
        bytes,
        bytearray,
        type(None),
        range,
        object,  # an `object()` sentinel: compared by identity
        type,  # a class compared with another: identity (a metaclass's own is a heap type's)
        decimal.Decimal,
        datetime.date,
        datetime.datetime,
        datetime.time,
        datetime.timedelta,
        datetime.timezone,
    )


def _containers() -> tuple[tuple[Any, tuple[Any, bool]], ...]:
    """The containers whose own comparison asks their items' (`CONTAINERS`, and
    `collections.OrderedDict` and `collections.deque`, C types of the standard library, and a
    dictionary's views `dict.keys()` and `dict.items()`, whose containment and
    set-like comparison ask the dictionary's keys or values, round 13), each with the C
    function that reads its items as its comparison does (a subclass's own `__iter__` is not
    asked) and whether those are (key, value) pairs."""
    import collections

    keyed = (dict.items, True)
    views: tuple[Any, ...] = (type({}.keys()), type({}.items()))
    return (
        *((view, (view.__iter__, False)) for view in views),
        (list, (list.__iter__, False)),
        (tuple, (tuple.__iter__, False)),
        (set, (set.__iter__, False)),
        (frozenset, (frozenset.__iter__, False)),
        (dict, keyed),
        (collections.OrderedDict, keyed),
        (collections.deque, (collections.deque.__iter__, False)),
    )


def _type_reader(digest: Callable[[Any], str]) -> Callable[[Any, str], dict[str, Any]]:
    """`one(value, op)`: the shape of `value`'s type alone (a container's items left out: a
    container is a C type of no value here); `digest` is `bodies._code_digest`. The type, its
    flags, method resolution order, dictionary and names are read through `type`'s own C
    accessors, a slot wrapper's owner through its own."""
    values = _value_types()
    value_ids = frozenset(id(kind) for kind in values)
    # a container type -> how its items are read in C: (its iteration, whether keyed)
    boxes = MappingProxyType({id(kind): how for kind, how in _containers()})
    # the standard library's types whose comparison is Python, judged by what they hold
    # while what that comparison reaches is what it was at load (`library.py`)
    kinds, unchanged = library.checker()
    held_by = (library.items, False)

    def one(
        value: Any,
        op: str,
        _type: Any = type,
        _id: Any = id,
        _str: Any = str,
        _add: Any = str.__add__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _qualname: Any = type.__dict__["__qualname__"].__get__,
        _module: Any = type.__dict__["__module__"].__get__,
        _wrapper: Any = WrapperDescriptorType,
        _objclass: Any = WrapperDescriptorType.__dict__["__objclass__"].__get__,
        _wname: Any = WrapperDescriptorType.__dict__["__name__"].__get__,
        _method: Any = MethodDescriptorType,  # a C method (`dict.__contains__`)
        _mobjclass: Any = MethodDescriptorType.__dict__["__objclass__"].__get__,
        _mname: Any = MethodDescriptorType.__dict__["__name__"].__get__,
        _function: Any = FunctionType,
        _digest: Any = digest,
        _deciders: Mapping[str, tuple[str, ...]] = DECIDERS,
        _values: frozenset[int] = value_ids,
        _boxes: Mapping[int, Any] = boxes,
        _held: tuple[Any, ...] = values,  # the value types alive while their ids are held
        _kinds: Mapping[int, Any] = kinds,  # the library's types, alive while held
        _unchanged: Any = unchanged,
        _held_by: Any = held_by,
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE: a class made at run time
    ) -> dict[str, Any]:
        kind = _type(value)
        module = _module(kind)
        name = _add(_add(module if _type(module) is _str else "?", "."), _qualname(kind))
        if _id(kind) in _values:
            return {"t": name, "c": True}
        if _kinds.get(_id(kind)) is kind and _unchanged(kind) and _held_by[0](value) is not None:
            # the library's own comparison, asking what the value holds: judged as a box is
            owned = _add(_qualname(kind), ".__eq__")
            return {"t": name, "c": False, "o": owned, "h": "-", "box": _held_by, "py": True}
        box = None
        for dunder in _deciders.get(op, ("__eq__",)):
            owner, member = None, None
            for klass in _mro(kind):
                members = _dict(klass)
                if _flags(klass) & _heap:
                    for key in members:  # a key that is no exact str: its lookup runs code
                        if _type(key) is not _str:
                            return {"t": name, "c": False, "o": "?", "h": "-"}
                if dunder in members:
                    owner, member = klass, members[dunder]
                    break
            slot = _type(member) is _wrapper
            own = (
                (slot or _type(member) is _method)
                and (_objclass if slot else _mobjclass)(member) is owner
                and (_wname if slot else _mname)(member) == dunder
                and (_id(owner) in _values or _id(owner) in _boxes)
            )
            held = _add(_add(_qualname(owner) if owner is not None else "?", "."), dunder)
            if not own:
                code = _digest(member) if _type(member) is _function else "-"
                return {"t": name, "c": False, "o": held, "h": code}
            if _id(owner) in _boxes and box is None:  # a container's own slot: asks its items'
                box = {"t": name, "c": False, "o": held, "h": "-", "box": _boxes[_id(owner)]}
        return box if box is not None else {"t": name, "c": True}

    return one


def _item_reader(
    one: Callable[[Any, str], dict[str, Any]],
) -> Callable[[Any, str, str, int, bool], tuple[str, Any, bool, bool, bool]]:
    """`item(value, op, item_op, depth, only)`: how `shape_reader` reads one item at `depth`
    of a container or instance compared by `op` (its items asked `item_op`), as `(name, next,
    c, py, past)`: the name it adds to the holder's ("": none; `only`: none for a built-in's
    own), the holder to read next where its shape is judged by what it holds (`(value, (walk,
    keyed), depth, only)`, or None), whether its comparison is a built-in's own, whether the
    library's Python decides it, and whether it is past `MAX_DEPTH`."""

    def item(
        value: Any,
        op: str,
        item_op: str,
        depth: int,
        only: bool,
        _one: Callable[[Any, str], dict[str, Any]] = one,
        _add: Any = str.__add__,
        _held: tuple[Any, bool] = (library.held, False),
        _depth: int = MAX_DEPTH,
    ) -> tuple[str, Any, bool, bool, bool]:
        inner = _one(value, item_op)
        if "box" in inner:  # judged by its own items, read next
            named = "" if only else inner["t"]
            after = (value, inner["box"], depth + 1, only)
            return named, after, True, inner.get("py", False), depth >= _depth
        if inner["c"] and op != item_op:
            inner = _one(value, op)
        if inner["c"]:
            return ("" if only else inner["t"]), None, True, False, False
        # its type, owner and comparison's code, and what it holds, read next
        told = _add(inner["t"], _add(" ~ ", _add(inner["o"], _add(" @", inner["h"]))))
        return told, (value, _held, depth + 1, True), False, False, depth >= _depth

    return item


def _rest_reader() -> Callable[[Any, Any, bool, list[Any]], bool]:
    """`rest(entry, entries, keyed, stack)`: whether the items a container's reading left
    unread past `MAX_ITEMS` (the `entry` it stopped at, the rest of its iterator `entries`,
    `keyed` where each is a (key, value) pair, and the holders left on `stack`, each
    `(holder, (walk, keyed), depth, only)`) are each of an exact value type (`_value_types`,
    by identity, read through `type`) or an exact `list`, `tuple`, `set` or `frozenset`
    holding such items (read through its own C iteration, `MAX_DEPTH` deep: round 13's
    `(str, int)` pairs past the bound): then what is unread can hold nothing whose
    comparison is no built-in value type's own, and the container is judged by what was read.
    False where one is of any other type (a dict, a class's instance: a caller-told object
    placed past the bound), a holder is unreadable, more than `MAX_REST` items are left (those
    inside the containers counted), or containers nest past `MAX_DEPTH`."""
    values = _value_types()

    def rest(
        entry: Any,
        entries: Any,
        keyed: bool,
        stack: list[Any],
        _type: Any = type,
        _id: Any = id,
        _values: frozenset[int] = frozenset(id(kind) for kind in values),
        _held: tuple[Any, ...] = values,  # the value types alive while their ids are held
        _boxes: frozenset[int] = frozenset(id(kind) for kind in (list, tuple, set, frozenset)),
        _most: int = MAX_REST,
        _deep: int = MAX_DEPTH,
    ) -> bool:
        # the entry stopped at, the rest, the holders left: each (items, pairs, depth)
        left = [((entry,), keyed, 0), (entries, keyed, 0)]
        left += [(walk(holder), kind, 0) for holder, (walk, kind), _, _ in stack]
        seen = 0
        while left:
            items, pairs, depth = left.pop()
            if items is None:
                return False
            for one in items:
                for item in one if pairs else (one,):
                    seen += 1
                    kind = _id(_type(item))
                    if seen > _most or (kind not in _values and kind not in _boxes):
                        return False
                    if kind in _boxes:  # an exact built-in container: its items, deeper
                        if depth >= _deep:
                            return False
                        left.append((item, False, depth + 1))
        return True

    return rest


def _asked(
    op: str,
    box: tuple[Any, bool],
    _sides: Mapping[str, tuple[str, str]] = SIDES,
    _keys: Any = dict.keys,
) -> tuple[str, tuple[Any, bool]]:
    """`(op, box)`: the comparison a container compared by `op` asks its items, and how they
    are read (`box`, `(walk, keyed)`): containment asks its items' `==` alone, and a mapping's
    keys alone (`dict.keys` in C, for a `dict` and an `OrderedDict`, the keyed boxes)."""
    if op in _sides:
        return "==", ((_keys, False) if box[1] else box)
    return op, box


def shape_reader(digest: Callable[[Any], str]) -> Callable[[Any, str], dict[str, Any]]:
    """`shape(value, op)`: the shape of `value`'s type as an operand of `op` (the module
    docstring); `digest` is `bodies._code_digest`. Runs none of the project's code: a type is
    read as `_type_reader` reads it; a container whose comparison is its container type's own
    (`_containers`: an exact `list`, a `namedtuple`, a `defaultdict`) is named with its items'
    shapes (keys and values), read by that type's own C iteration; a class's instance (its
    comparison no built-in's own) with what it holds (`library.held`: its slots' and
    `__dict__`'s values) that is no built-in's own, so one holding `int`s is named as its class
    alone and one holding an object of a new type is new; `MAX_DEPTH` containers or instances
    deep, `MAX_ITEMS` items and `MAX_KINDS` distinct item shapes at most: past them, `...` is
    named among the items and the shape is no built-in's own, but past `MAX_ITEMS` alone where
    every item left unread is of an exact value type (`_rest_reader`). As a containment's
    container (`in`, `not in`), its `__contains__` decides, asking its items' `==` (a
    mapping's keys alone: `_asked`)."""
    one = _type_reader(digest)
    item = _item_reader(one)
    rest = _rest_reader()

    def shape(
        value: Any,
        op: str,
        _one: Callable[[Any, str], dict[str, Any]] = one,
        _item: Any = item,
        _sorted: Any = sorted,
        _join: Any = ", ".join,
        _add: Any = str.__add__,
        _len: Any = len,
        _held: tuple[Any, bool] = (library.held, False),
        _most: int = MAX_ITEMS,
        _kinds: int = MAX_KINDS,
        _iter: Any = iter,
        _rest: Any = rest,
        _asked: Any = _asked,
        _set: Any = set,
    ) -> dict[str, Any]:
        outer = _one(value, op)
        if outer["c"]:
            return outer
        # a class's instance (no box): only what it holds that is no built-in's own is named
        bare = "box" not in outer
        py = outer.pop("py", False)  # a library type's Python decides (`library.py`)
        op, box = _asked(op, outer.pop("box", _held))
        item_op = op if op in ("==", "!=") else "=="  # an ordering asks its items' `==` first
        found: set[str] = _set()
        decided, past, read = not bare, False, 0
        stack: list[tuple[Any, Any, int, bool]] = [(value, box, 1, bare)]
        entry, entries, keyed = None, None, False
        while stack and not past:
            holder, (walk, keyed), depth, only = stack.pop()
            entries = walk(holder)
            past = entries is None  # what it holds unreadable: never a built-in's own
            entries = _iter(entries or ())
            for entry in entries:
                for held_ in entry if keyed else (entry,):
                    read += 1
                    past = read > _most or _len(found) > _kinds
                    if past:
                        break
                    named, after, c, deep_py, past = _item(held_, op, item_op, depth, only)
                    found.update((named,) if named else ())
                    stack += [after] if after is not None else []
                    decided, py = decided and c, py or deep_py
                if past:
                    break
        if past and read > _most and _len(found) <= _kinds:
            # past the item bound alone: the unread rest is judged by what it can hold
            past = not _rest(entry, entries, keyed, stack)
        if past:  # items left unread: never a built-in's own
            found.add("...")
            decided = False
        if bare and not found:  # a class holding built-ins' own alone: named as its class
            return outer
        name = _add(_add(outer["t"], "["), _add(_join(_sorted(found)), "]"))
        if decided:
            return {"t": name, "c": True, "py": True} if py else {"t": name, "c": True}
        return {"t": name, "c": False, "o": outer["o"], "h": outer["h"] if bare else "-"}

    return shape
