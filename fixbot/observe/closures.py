"""What closures made inside a frame's code rebound of its cells (a part of `unstored`, which
holds a frame's locals from one event to the next): a cell variable of a frame, or a free
variable (its maker's cell), changed between two events where the frame's own instruction
stores none of it is allowed only where a frame of a closure closing over that name was entered
since, left (its `return` event seen), and its own last copy of its locals binds the name to the
very object the cell now holds (`closed`); `leaver` cuts that copy, as the closure's frame
leaves, down to the free variables its code rebinds (`rebound`), so that no object of the
project's is kept alive by the observer past its frame.

Copied beside the plugin as `<module>_closures` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` part
alone; what its functions use is held as positional defaults, made once at load (the code under
test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_closures`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the frame's instructions, read without `dis`

# the instructions a closure's frame rebinds its maker's cells with (`nonlocal`: `rebound`)
REBINDING = frozenset({"STORE_DEREF", "DELETE_DEREF"})
# what `closed` reads a name no copy binds as (no value of anyone's is this object)
GONE = object()
# codes whose `rebound` names (and, in `unstored`, whose stores) are kept at once (past it, the
# table is emptied and read again)
MAX_CODES = 2000


def _inner(
    code: Any, _type: Any = type, _id: Any = id, _set: Any = set, _frozenset: Any = frozenset
) -> frozenset[int]:
    """The identities of the code objects made inside `code`, at any depth (its nested
    functions, lambdas, generator expressions and classes: those that can close over its
    cells), read from `co_consts`."""
    found: set[int] = _set()
    stack = [code]
    while stack:
        for one in stack.pop().co_consts:
            if _type(one) is _type(code) and _id(one) not in found:
                found.add(_id(one))
                stack.append(one)
    return _frozenset(found)  # type: ignore[no-any-return]


def _bound_alike(
    name: str,
    one: Any,
    copy: dict[str, Any],
    now: dict[str, Any],
    made: frozenset[int],
    cell: bool,
    _id: Any = id,
    _gone: Any = GONE,
) -> bool:
    """Whether the closure's code `one`, whose frame's last copy of its locals is `copy`,
    closes over `name` (made inside the frame's code, `made`, where `name` is a cell of it)
    and binds it there to the very object `now` does (or neither binds it)."""
    if name not in one.co_freevars or (cell and _id(one) not in made):
        return False
    return copy.get(name, _gone) is now.get(name, _gone)  # type: ignore[no-any-return]


def _ran(
    code: Any, since: int, entries: dict[int, tuple[Any, int, list[Any]]]
) -> list[tuple[Any, dict[str, Any]]]:
    """The closures entered since the entry count `since` but `code`'s own whose frame left
    (its `return` event seen, `leaver`: a frame made untraced by the project's code, its
    `f_trace` emptied from a profile call, gives no event after and no allowance; round 19),
    each as (its code, its frame's last copy of its locals)."""
    return [
        (one, kept[0])
        for one, count, kept in entries.values()
        if count > since and kept[3] and kept[0] is not None and one is not code
    ]


def closed(
    code: Any,
    names: list[Any],
    now: dict[str, Any],
    since: int,
    entries: dict[int, tuple[Any, int, list[Any]]],
    inner: dict[int, tuple[Any, frozenset[int]]],
    _inner: Any = _inner,
    _alike: Any = _bound_alike,
    _ran: Any = _ran,
    _id: Any = id,
    _all: Any = all,
    _any: Any = any,
) -> bool:
    """Whether each of `names` (a cell or a free variable of a frame of `code` whose value
    `now` holds) was rebound by a closure: a frame of code closing over that name (made
    inside `code` for its own cell, `_inner`; any, for a free variable: a sibling's), entered
    since the entry count `since` (`entries`: id(code) -> (code, its last entry's count, its
    frame's `kept`), `held`'s `entered`), whose own last event's copy of its locals binds the
    name to the very object `now` does (`_bound_alike`). That frame's own events hold its
    free variables as this one's are held: a write landing while it ran is its finding; one
    landing after its last event is in no copy of its."""
    cells, free = code.co_cellvars, code.co_freevars
    if not _all(name in cells or name in free for name in names):
        return False
    made = inner.get(_id(code))
    if made is None or made[0] is not code:
        made = inner[_id(code)] = (code, _inner(code))
    ran = _ran(code, since, entries)
    return _all(  # type: ignore[no-any-return]
        _any(_alike(name, one, copy, now, made[1], name in cells) for one, copy in ran)
        for name in names
    )


def rebound(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _local: Any = bytecode._local,
    _frozenset: Any = frozenset,
    _rebinding: frozenset[str] = REBINDING,
) -> frozenset[str]:
    """The free variables of `code` its own `STORE_DEREF`/`DELETE_DEREF` rebind or unbind (a
    `nonlocal`): the only ones a frame of it changes lawfully in its maker's cells."""
    named = (_local(code, op, arg) for _, op, arg in _instructions(code) if op in _rebinding)
    return _frozenset(name for name in named if name in code.co_freevars)  # type: ignore[no-any-return]


def leaver(entries: list[Any]) -> Callable[[Any, list[Any]], None]:
    """`holder`'s `left(frame, kept)`, at a frame's `return` event (it returned, raised out or
    suspended at a `yield`): its last copy `kept[0]` cut down to the free variables its code
    rebinds (`rebound`, read once a code, `entries[2]`): all `closed` reads of it after its
    frame left; and `kept[3]` set, the frame left (`_ran` allows nothing from a frame whose
    `return` event was never seen). The whole copy held past the frame would keep every
    object its locals held alive for as long as the code's entry stays in `entries` (werkzeug
    3.0.1's `test_no_memory_leak_from_Rule_builder` counts the `Rule`s alive: five held by a
    lambda's last copy of an earlier test failed it)."""

    def left(
        frame: Any,
        kept: list[Any],
        _entries: list[Any] = entries,
        _rebound: Any = rebound,
        _id: Any = id,
        _len: Any = len,
        _most: int = MAX_CODES,
    ) -> None:
        copy, code = kept[0], frame.f_code
        kept[4] = None  # a class body's namespace: not held past its frame
        if copy is None:
            return
        names = _entries[2].get(_id(code))
        if names is None or names[0] is not code:
            if _len(_entries[2]) >= _most:
                _entries[2].clear()
            names = _entries[2][_id(code)] = (code, _rebound(code))
        kept[0], kept[3] = {name: copy[name] for name in names[1] if name in copy}, True

    return left
