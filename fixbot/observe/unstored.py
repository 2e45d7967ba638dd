"""The locals of a frame the observer's trace function reads (the body's entry pytest called,
a frame of other code of the test module's), held by identity from one `opcode` event to the
next (`holder`): between two events of a frame traced instruction by instruction, one
instruction of its code ran, and a local whose value changed where that instruction stores or
deletes none of that name (`storing.stores`) was rewritten from outside the frame's own code.

Why (round 15, the hole obs23 found): on Python 3.11 and 3.12 a frame's `f_locals` is
a dictionary its read refreshes from the fast locals, and at the end of each trace call of that
frame the interpreter writes the dictionary back (`PyFrame_LocalsToFast`) where it was read in
the call: a signal handler, a thread or a profile hook run while the observer's trace function
(or any trace call of the frame) runs reads the body's `f_locals` and writes `5` over the
`@py_assert5` holding the `4` `add(2, 2)` handed back, and the assertion, its operands read as
the instruction will see them, passes. On 3.13 and later `f_locals` writes through at once (PEP
667), from anywhere. Either way the local changed with no store of the body's own between two
events, which is what this part reads: not the values, where they came from.

A class body's namespace (round 19's second hole: its code has no fast locals, `STORE_NAME`
binds into a mapping) is held the same way where reading it runs nothing
(`storing.readable`): its frame's `f_locals`, read once as the frame is entered, is that
mapping itself where the code has no cell and no fast variable (before 3.13, a read of a
frame's `f_locals` runs
`PyFrame_FastToLocals`, which for a class body deletes or writes its cells, `__class__` where a
method calls `super()`, and 3.12's inlined comprehensions' variables, into the mapping, and the
end of each trace call reads them back out of it: a metaclass's mapping's methods would run;
free variables are skipped both ways for code without `CO_OPTIMIZED`), or always on 3.13 and
later (PEP 667: the mapping itself, no refresh); and only where the mapping is an exact `dict`
(a metaclass's `__prepare__` may hand back the project's). A change of name N is allowed at the
body's own `STORE_NAME N`/`DELETE_NAME N`, `SETUP_ANNOTATIONS` (`__annotations__`), any change
at a `STORE_SUBSCR`/`DELETE_SUBSCR` (`locals()[k] = v`), and at a call only in a body that
spells `locals`, `vars` or `f_locals`, the outermost call of a line reading one
(`locals().update(...)`; `storing._spaced`, `storing._spelling_calls`). The class made from
a held namespace is held to its last copy where its maker stores it (round 21's hole: a value's
`__set_name__` rebinding `owner.ok` after the body ran; `classbody.built`). A module's code and
an `exec`'s namespace (code of no test module's, or never entered as a class body's frame) are
not held. Which names each instruction binds or unbinds, read once per code object from its
instructions, is `storing`'s (`stores`, `readable`); this part holds the values between events.

Copied beside the plugin as `<module>_unstored` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `closures`,
`classbody` and `storing` parts alone; what its functions use is held as positional defaults,
made once at load (the code under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
import itertools
import operator
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unstored`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


closures = _sibling("closures")  # what closures made inside a frame's code rebound of its cells
classbody = _sibling("classbody")  # a class made from a held namespace, held to its last copy
storing = _sibling("storing")  # which names each instruction of a code binds or unbinds

# what `tampered` says
REWRITTEN = "a local of the test's body changed where no instruction of the body stored it"
# codes whose `storing.stores` are kept at once (past it, the table is emptied and read again)
MAX_CODES = closures.MAX_CODES


def _spaced_now(
    kept: list[Any],
    _copy: Any = dict.copy,
    _all: Any = all,
    _map: Any = map,
    _repeat: Any = itertools.repeat,
    _is: Any = operator.is_,
    _type: Any = type,
    _str: Any = str,
) -> Any:
    """A class body's namespace (`kept[4]`, an exact `dict` read as its frame was entered, or
    None: not held) copied now, `{None: None}` where a key is no exact `str`. Copied before
    anything else of the observer's allocates: under 3.11 a gc callback runs inside an
    allocation, and `dict.copy` clones the keys before it allocates the copy (`dict(space)`
    allocates first: a write landing there would be copied as the last instruction's)."""
    space = kept[4]
    if space is None:
        return None
    now = _copy(space)
    return now if _all(_map(_is, _map(_type, now), _repeat(_str))) else {None: None}


def _changed(
    now: dict[Any, Any],
    before: dict[Any, Any],
    allowed: frozenset[str],
    _type: Any = type,
    _str: Any = str,
) -> list[Any]:
    """The names of `now` (name -> value) bound, rebound or unbound against `before` by
    identity, but for the names `allowed` (those the instruction that ran stores); `[None]`
    where either holds a key that is no exact `str` (only project code plants one; it is
    looked for before any lookup, which would run its `__eq__`)."""
    for name in (*now, *before):
        if _type(name) is not _str:
            return [None]
    return [
        name
        for name in now.keys() | before.keys()
        if name not in allowed
        if name not in now or name not in before or now[name] is not before[name]
    ]


def _stores_of(
    code: Any,
    tables: dict[int, tuple[Any, dict[int, frozenset[str]]]],
    inner: dict[int, tuple[Any, frozenset[int]]],
    _stores: Any = storing.stores,
    _id: Any = id,
    _len: Any = len,
    _most: int = MAX_CODES,
) -> dict[int, frozenset[str]]:
    """`storing.stores(code)`, read once a code object and kept in `tables` (past `MAX_CODES` codes,
    `tables` and `inner` are emptied and read again)."""
    table = tables.get(_id(code))
    if table is None or table[0] is not code:
        if _len(tables) >= _most:
            tables.clear()
            inner.clear()
        table = tables[_id(code)] = (code, _stores(code))
    return table[1]  # type: ignore[no-any-return]


def _enterer(entries: list[Any]) -> Callable[[Any, list[Any]], None]:
    """`holder`'s `entered`, counting into `entries` (`[count, {id(code): (code, count,
    kept)}, ...]`)."""

    def entered(
        frame: Any,
        kept: list[Any],
        _entries: list[Any] = entries,
        _id: Any = id,
        _len: Any = len,
        _most: int = MAX_CODES,
        _dict: Any = dict,
        _all: Any = all,
        _map: Any = map,
        _repeat: Any = itertools.repeat,
        _is: Any = operator.is_,
        _type: Any = type,
        _str: Any = str,
        _optimized: int = storing.OPTIMIZED,
        _readable: Any = storing.readable,
        _spaced_now: Any = _spaced_now,
    ) -> None:
        if not frame.f_code.co_flags & _optimized:  # a class body's: its namespace, read once
            space = frame.f_locals if _readable(frame.f_code) else None
            kept[4] = space if _type(space) is _dict and space is not frame.f_globals else None
            kept[0], kept[2] = _spaced_now(kept), _entries[0]
            return
        if _all(_map(_is, _map(_type, frame.f_locals), _repeat(_str))):
            # what it holds as it is entered (or resumed): a write landing as this trace call
            # ends (a callback run by the observer's own allocations) is seen at its first event
            kept[0], kept[2] = _dict(frame.f_locals), _entries[0]
        code = frame.f_code
        if code.co_freevars:
            if _len(_entries[1]) >= _most:
                _entries[1].clear()
            _entries[0] += 1
            _entries[1][_id(code)] = (code, _entries[0], kept)

    return entered


def holder(
    send: Callable[[dict[str, Any]], None],
) -> tuple[
    Callable[[Any, list[Any], list[Any], bool], None],
    Callable[[Any, list[Any]], None],
    Callable[[Any, list[Any]], None],
]:
    """`(held, entered, left)`. `held(frame, kept, notes, ran)`, at each `opcode` event (`ran`: the
    instruction at the frame's offset runs next) and `line` event of a frame the trace function
    reads (`operands._local_tracer`; `notes` its call's, `notes[0]` the test, `notes[4]` what it
    streamed; `kept` the frame's own `[locals, offset, entries, left, namespace]`, `[None, -1,
    0, False, None]` at first, `left` set by `closures.leaver`, `namespace` a class body's, set
    by `entered`): the frame's locals and cell variables, copied from its `f_locals` in one C
    call (a class body's namespace, `_spaced_now`) (a signal handler runs between two calls,
    never inside one: one run between the dictionary's refresh and a copy made in two steps
    would be copied as the frame's own) and compared by identity alone (no project code runs),
    held against those of its last event; one changed (bound, rebound, unbound) where the
    instruction at the last `opcode` event's offset stores none of that name (`storing.stores`;
    none after a `line` event: nothing ran since) streams `tampered` once per test, and so does
    a key that is no exact `str`; but a cell variable of the frame's a closure made inside its
    code rebinds (`nonlocal`: a frame of that closure entered since and left, `closures.closed`),
    and the frame's free variables (its maker's cells). Then the locals are kept for the next
    event.
    `entered(frame, kept)`, as the trace function reads a new frame (or a generator's resumed):
    its locals copied as `kept`'s first (`held`'s first event compares against them), and a
    frame of code closing over cells counted for `held` (`closures.closed`); a class body's
    namespace read where it runs nothing (`storing.readable`) and kept where it is an exact
    `dict`, then held as locals are (no closure allows a change of it). `left(frame, kept)`, at
    its `return` event: a held class body's last copy left for its maker (`classbody.leaver`,
    read by `classbody.built` at the maker's next events: `BUILT`, once per test as `tampered`
    is), then `closures.leaver`."""
    tables: dict[int, tuple[Any, dict[int, frozenset[str]]]] = {}
    # the frames entered of code closing over cells: [count, {id(code): (code, its last
    # count, that frame's `kept`)}, {id(code): (code, its `closures.rebound`)}]
    entries: list[Any] = [0, {}, {}]
    inner: dict[int, tuple[Any, frozenset[int]]] = {}  # id(code) -> the codes made inside it
    made: dict[int, list[Any]] = {}  # the class bodies left, for their makers (`classbody`)

    entered = _enterer(entries)

    def held(
        frame: Any,
        kept: list[Any],
        notes: list[Any],
        ran: bool,
        _send: Any = send,
        _tables: dict[int, tuple[Any, dict[int, frozenset[str]]]] = tables,
        _entries: list[Any] = entries,
        _inner: dict[int, tuple[Any, frozenset[int]]] = inner,
        _stores_of: Any = _stores_of,
        _made: dict[int, list[Any]] = made,
        _built: Any = classbody.built,
        _dict: Any = dict,
        _len: Any = len,
        _all: Any = all,
        _map: Any = map,
        _repeat: Any = itertools.repeat,
        _is: Any = operator.is_,
        _type: Any = type,
        _str: Any = str,
        _id: Any = id,
        _most: int = MAX_CODES,
        _none: frozenset[str] = frozenset(),
        _what: str = REWRITTEN,
        _built_what: str = classbody.BUILT,
        _changed: Any = _changed,
        _closed: Any = closures.closed,
        _optimized: int = storing.OPTIMIZED,
        _spaced_now: Any = _spaced_now,
        _every: frozenset[Any] = storing.EVERY,
    ) -> None:
        optimized = frame.f_code.co_flags & _optimized
        if not optimized:  # a class body's namespace, copied first (`_spaced_now`)
            now = _spaced_now(kept)
            if now is None:
                return
        elif _all(_map(_is, _map(_type, frame.f_locals), _repeat(_str))):
            now = _dict(frame.f_locals)  # one call: refreshed and copied, no Python between
        else:  # a key no str: not copied (the copy's lookups would run its `__eq__`)
            now = {None: None}
        before, last, since = kept[0], kept[1], kept[2]
        kept[0], kept[1], kept[2] = now, frame.f_lasti if ran else -1, _entries[0]
        if not notes[0] or "unstored" in notes[4]:
            return
        if ran and _made and _id(frame) in _made:  # a class body it made left since
            allowed = _stores_of(frame.f_code, _tables, _inner).get(frame.f_lasti, _none)
            if _built(frame, now, allowed, _made):
                notes[4].add("unstored")
                _send({"k": "tampered", "id": notes[0], "what": _built_what})
                return
        if before is None:  # the first event: what it holds is the frame's from here on
            before = {} if None in now else now
        if (
            _len(now) == _len(before)
            and _all(_map(_is, now, before))
            and _all(_map(_is, now.values(), before.values()))
        ):
            return
        code = frame.f_code
        allowed = _stores_of(code, _tables, _inner).get(last, _none)
        if allowed is _every:
            return
        changed = _changed(now, before, allowed)
        if changed and not (optimized and _closed(code, changed, now, since, _entries[1], _inner)):
            notes[4].add("unstored")
            _send({"k": "tampered", "id": notes[0], "what": _what})

    return held, entered, classbody.leaver(made, closures.leaver(entries))
