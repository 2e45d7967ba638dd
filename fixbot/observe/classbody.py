"""What a class made from a class body's namespace the observer held binds (a part of
`unstored`, which holds a frame's locals, and a class body's namespace, from one event to the
next): round 21's hole, a value's `__set_name__` rebinding `owner.ok` after the body ran. As a
held class body's frame leaves, its last copy is left for its maker (`leaver`); the class the
maker stores next is compared with it (`built`): where its metaclass is exactly `type`, its
`__qualname__` the namespace's own and no base's machinery made or changed it (`_hooked`), a
name of the namespace it binds to another object or to none (`_unlike`) was rebound from
outside the body's code (`BUILT`).

Copied beside the plugin as `<module>_classbody` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `closures` part
alone; what its functions use is held as positional defaults, made once at load (the code under
test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_classbody`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


closures = _sibling("closures")  # `GONE`: what `_unlike` reads a name the class lacks as

# what `built` says: a class made from a held class body's namespace, bound by its maker,
# whose dictionary no longer binds what the body's namespace last held (round 21)
BUILT = (
    "a class made in the test's body binds what its body's namespace did not, where no"
    " instruction of the body stored it"
)
# the names `type.__new__` itself takes out of the namespace or wraps as it makes the class
MADE_BY_TYPE = frozenset(
    {"__qualname__", "__classcell__", "__new__", "__init_subclass__", "__class_getitem__"}
)
# what reads a class's own dictionary and qualified name without running its metaclass's code
CLASS_DICT = type.__dict__["__dict__"].__get__
QUALNAME = type.__dict__["__qualname__"].__get__
MRO = type.__dict__["__mro__"].__get__
# the class bodies left and not yet matched (per `holder`): past it, the table is emptied
MAX_BUILT = 64


def _unlike(
    made: Any,
    copy: dict[str, Any],
    _dict_of: Any = CLASS_DICT,
    _type: Any = type,
    _str: Any = str,
    _any: Any = any,
    _gone: Any = closures.GONE,
    _skip: frozenset[str] = MADE_BY_TYPE,
) -> bool:
    """Whether the class `made` (its metaclass exactly `type`) binds a name of `copy` (its
    body's namespace at the body's last event) to another object or to none, but for the names
    `type` itself takes out or wraps (`MADE_BY_TYPE`); a name it adds is not read (`__dict__`,
    `__doc__`, what a base's `__init_subclass__` registers). Its dictionary is read through
    `type`'s own descriptor, its keys checked exact `str` before any lookup."""
    space = _dict_of(made)
    if _any(_type(name) is not _str for name in space):
        return True
    return _any(  # type: ignore[no-any-return]
        space.get(name, _gone) is not value for name, value in copy.items() if name not in _skip
    )


def _hooked(
    made: Any,
    space: dict[Any, Any],
    _dict_of: Any = CLASS_DICT,
    _mro: Any = MRO,
    _type: Any = type,
    _str: Any = str,
    _any: Any = any,
) -> bool:
    """Whether `made` was made or changed by its bases' machinery (not held): a class above it
    but `object` defines `__init_subclass__` (whose code, run by `type.__new__`, may rebind
    what the body stored), or its statement's namespace `space` (the body's own dictionary,
    which `__build_class__` writes after the body ran and no code of the project's is handed)
    binds `__orig_bases__` (a base that is no class named the bases through `__mro_entries__`:
    typing's `NamedTuple`, whose own machinery makes the class, `Generic[T]`). Each
    dictionary's keys are checked exact `str` before a lookup (a key no `str` answers True)."""
    above = [_dict_of(base) for base in _mro(made)[1:-1]]
    for one in (space, *above):
        for name in one:
            if _type(name) is not _str:
                return True
    if "__orig_bases__" in space:
        return True
    return _any("__init_subclass__" in one for one in above)  # type: ignore[no-any-return]


def built(
    frame: Any,
    now: dict[str, Any],
    allowed: frozenset[str],
    table: dict[int, list[Any]],
    _id: Any = id,
    _type: Any = type,
    _len: Any = len,
    _qualname: Any = QUALNAME,
    _unlike: Any = _unlike,
    _hooked: Any = _hooked,
    _class: Any = type,
) -> bool:
    """At an `opcode` event of `frame` (its locals `now`; `allowed` what the instruction at
    its offset, about to run, stores), where a class body it made left since its last event
    (`table`: id(maker frame) -> [the frame, the body's last copy, the name stored, the
    namespace itself]): whether the class it made changed after its body ran. The first event
    after the body left must be at a store of one name (the class statement's own, nothing run
    between `type.__new__`'s end and it; a decorator's call or any other use: not held,
    forgotten); at the next, that name binds the class: where its metaclass is exactly `type`,
    its `__qualname__` is the very object the namespace held and no base's machinery made or
    changed it (`_hooked`), a name of the namespace it binds to another object or to none
    (`_unlike`: a value's `__set_name__`, a gc callback run by `type.__new__`'s allocations)
    is True. Each entry is dropped at its second event (or its maker's `return`)."""
    pending = table.get(_id(frame))
    if pending is None or pending[0] is not frame:
        return False
    if pending[2] is None:
        if _len(allowed) != 1:
            del table[_id(frame)]
            return False
        for name in allowed:
            pending[2] = name
        return False
    del table[_id(frame)]
    made, copy = now.get(pending[2]), pending[1]
    if _type(made) is not _class or _qualname(made) is not copy.get("__qualname__"):
        return False
    return not _hooked(made, pending[3]) and _unlike(made, copy)  # type: ignore[no-any-return]


def leaver(table: dict[int, list[Any]], cut: Any) -> Callable[[Any, list[Any]], None]:
    """`unstored.holder`'s `left(frame, kept)`: a class body's frame whose namespace was held
    leaves its last copy (`kept[0]`) for its maker (`frame.f_back`, where `type.__new__` hands
    the class) in `table` (id(maker frame) -> `built`'s entry), `built` reads it there; then
    `cut(frame, kept)` (`closures.leaver`'s own)."""

    def left(
        frame: Any,
        kept: list[Any],
        _table: dict[int, list[Any]] = table,
        _cut: Any = cut,
        _id: Any = id,
        _len: Any = len,
        _most: int = MAX_BUILT,
    ) -> None:
        mine = _table.get(_id(frame))
        if mine is not None and mine[0] is frame:  # a maker leaving: nothing of its pending
            del _table[_id(frame)]
        copy = kept[0]
        maker = frame.f_back if kept[4] is not None and copy is not None else None
        if maker is not None and None not in copy:
            if _len(_table) >= _most:
                _table.clear()
            _table[_id(maker)] = [maker, copy, None, kept[4]]
        _cut(frame, kept)

    return left
