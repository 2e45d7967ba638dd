"""What a class made from a class body's namespace the observer held binds (a part of
`unstored`, which holds a frame's locals, and a class body's namespace, from one event to the
next): round 21's hole, a value's `__set_name__` rebinding `owner.ok` after the body ran. As a
held class body's frame leaves, its last copy is left for its maker (`leaver`); the class the
maker stores next is compared with it (`built`): where its metaclass is exactly `type` and no
base's machinery made or changed it (`_hooked`), a name of the namespace it binds to another
object or to none (`_unlike`) was rebound from outside the body's code (`BUILT`). The class is
known as the one made from the namespace by what its making cannot rebind (round 23's hole: a
`__set_name__` that rebinds the verdict rebinds `__qualname__` to an equal new string, and the
class was taken for another): the class statement's own call (`_plain`: `__build_class__`
called with positional arguments alone, no `metaclass=`, so the metaclass is its bases' and, the
class being of type exactly `type`, `type` made it from the namespace); its `__qualname__` not
the namespace's very object is then a rebinding itself. Where the statement names keywords (a
`metaclass=` callable may hand back any class), the class is taken for the namespace's only
where its `__qualname__` is the namespace's.

Copied beside the plugin as `<module>_classbody` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `closures` and
`bytecode` parts alone; what its functions use is held as positional defaults, made once at
load (the code under test shares the process and can reach a closure cell).
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
bytecode = _sibling("bytecode")  # the maker's instructions, read without `dis` (`_plain`)

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
# a call of positional arguments alone, by version (3.8 to 3.10; 3.11 and later, where
# `KW_NAMES` before it names keywords on 3.11 and 3.12, `CALL_KW` is its own on 3.13)
PLAIN_CALLS = frozenset({"CALL_FUNCTION", "CALL"})
# what `_plain` passes over walking back from the store: a prefix, 3.11's `PRECALL`
UNSEEN = frozenset({"EXTENDED_ARG", "PRECALL"})


def _plain(
    code: Any,
    at: int,
    _instructions: Any = bytecode.instructions,
    _calls: frozenset[str] = PLAIN_CALLS,
    _unseen: frozenset[str] = UNSEEN,
) -> bool:
    """Whether the instruction of `code` just before the one at offset `at` (the class
    statement's store, or its `EXTENDED_ARG` prefix: the first event after the body left, so
    the instruction before it is the call that ran `__build_class__`) is a call of positional
    arguments alone (the body's function, the name, the bases; `PLAIN_CALLS`, no `KW_NAMES`
    before it). Such a statement's metaclass is its bases' (`metaclass=`, `**kw` and `*bases`
    make other calls)."""
    last = previous = ""
    for offset, name, _arg in _instructions(code):
        if offset >= at:
            break
        if name not in _unseen:
            last, previous = name, last
    return last in _calls and previous != "KW_NAMES"


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


def _changed(
    made: Any,
    pending: list[Any],
    _type: Any = type,
    _qualname: Any = QUALNAME,
    _unlike: Any = _unlike,
    _hooked: Any = _hooked,
    _class: Any = type,
) -> bool:
    """`built`'s verdict on `made`, what the class statement's name binds after its store
    (`pending`: `built`'s entry): where its metaclass is exactly `type` and no base's machinery
    made or changed it (`_hooked`), True where its `__qualname__` is not the very object the
    namespace held (the statement's call `_plain`, the namespace holding one; else the class is
    taken for another a `metaclass=` callable handed back: False) or where a name of the
    namespace it binds to another object or to none (`_unlike`)."""
    copy = pending[1]
    if _type(made) is not _class:
        return False
    if _qualname(made) is not copy.get("__qualname__"):  # rebound, or another class
        if not pending[4] or "__qualname__" not in copy:
            return False
        return not _hooked(made, pending[3])  # type: ignore[no-any-return]
    return not _hooked(made, pending[3]) and _unlike(made, copy)  # type: ignore[no-any-return]


def built(
    frame: Any,
    now: dict[str, Any],
    allowed: frozenset[str],
    table: dict[int, list[Any]],
    _id: Any = id,
    _len: Any = len,
    _plain: Any = _plain,
    _changed: Any = _changed,
) -> bool:
    """At an `opcode` event of `frame` (its locals `now`; `allowed` what the instruction at
    its offset, about to run, stores), where a class body it made left since its last event
    (`table`: id(maker frame) -> [the frame, the body's last copy, the name stored, the
    namespace itself, whether the statement's call is `_plain`]): whether the class it made
    changed after its body ran. The first event after the body left must be at a store of one
    name (the class statement's own, nothing run between `type.__new__`'s end and it; a
    decorator's call or any other use: not held, forgotten; its call read there, `_plain`); at
    the next, that name binds the class, judged by `_changed` (a value's `__set_name__`, a gc
    callback run by `type.__new__`'s allocations, rebinding a name or `__qualname__`: True).
    Each entry is dropped at its second event (or its maker's `return`)."""
    pending = table.get(_id(frame))
    if pending is None or pending[0] is not frame:
        return False
    if pending[2] is None:
        if _len(allowed) != 1:
            del table[_id(frame)]
            return False
        for name in allowed:
            pending[2] = name
        pending[4] = _plain(frame.f_code, frame.f_lasti)
        return False
    del table[_id(frame)]
    return _changed(now.get(pending[2]), pending)  # type: ignore[no-any-return]


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
            _table[_id(maker)] = [maker, copy, None, kept[4], False]
        _cut(frame, kept)

    return left
