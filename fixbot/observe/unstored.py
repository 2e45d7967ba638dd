"""The locals of a frame the observer's trace function reads (the body's entry pytest called,
a frame of other code of the test module's), held by identity from one `opcode` event to the
next (`holder`): between two events of a frame traced instruction by instruction, one
instruction of its code ran, and a local whose value changed where that instruction stores or
deletes none of that name (`stores`) was rewritten from outside the frame's own code.

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
binds into a mapping) is held the same way where reading it runs nothing (`readable`): its
frame's `f_locals`, read once as the frame is entered, is that mapping itself where the code
has no cell and no fast variable (before 3.13, a read of a frame's `f_locals` runs
`PyFrame_FastToLocals`, which for a class body deletes or writes its cells, `__class__` where a
method calls `super()`, and 3.12's inlined comprehensions' variables, into the mapping, and the
end of each trace call reads them back out of it: a metaclass's mapping's methods would run;
free variables are skipped both ways for code without `CO_OPTIMIZED`), or always on 3.13 and
later (PEP 667: the mapping itself, no refresh); and only where the mapping is an exact `dict`
(a metaclass's `__prepare__` may hand back the project's). A change of name N is allowed at the
body's own `STORE_NAME N`/`DELETE_NAME N`, `SETUP_ANNOTATIONS` (`__annotations__`), any change
at a `STORE_SUBSCR`/`DELETE_SUBSCR` (`locals()[k] = v`), and at a call only in a body that
spells `locals`, `vars` or `f_locals`, the outermost call of a line reading one
(`locals().update(...)`; `_spaced`, `_spelling_calls`). The class made from
a held namespace is held to its last copy where its maker stores it (round 21's hole: a value's
`__set_name__` rebinding `owner.ok` after the body ran; `classbody.built`). A module's code and
an `exec`'s namespace (code of no test module's, or never entered as a class body's frame) are
not held.

Copied beside the plugin as `<module>_unstored` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode`,
`closures` and `classbody` parts alone; what its functions use is held as positional defaults,
made once at load (the code under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
import itertools
import operator
import sys
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unstored`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the frame's instructions, read without `dis`
closures = _sibling("closures")  # what closures made inside a frame's code rebound of its cells
classbody = _sibling("classbody")  # a class made from a held namespace, held to its last copy

# the instructions that bind or unbind a local of their frame (3.8 to 3.13; 3.12's inlined
# comprehensions clear theirs with `LOAD_FAST_AND_CLEAR`; 3.13 pairs two in one), or a cell
# variable (`MAKE_CELL`, 3.11 and later, makes a local's cell, empty or holding its value)
ONE = frozenset({"STORE_FAST", "DELETE_FAST", "LOAD_FAST_AND_CLEAR"})
CELLS = closures.REBINDING | {"MAKE_CELL"}
TWO = frozenset({"STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"})
# what `tampered` says
REWRITTEN = "a local of the test's body changed where no instruction of the body stored it"
# a code whose locals are fast locals (`CO_OPTIMIZED`): a function's; a class body's (or a
# module's, an `exec`'s) are its namespace, stored by `STORE_NAME` and readable only through that
# mapping's own methods (a metaclass's `__prepare__` may make it the project's): not held
OPTIMIZED = 0x0001
# where a class body's `f_locals` is its namespace at any read, with no refresh (PEP 667)
MAPPING_ITSELF = sys.version_info >= (3, 13)
# the instructions of a class body that bind or unbind a key of its namespace, beyond
# `STORE_NAME`/`DELETE_NAME` (their name) and `SETUP_ANNOTATIONS` (`__annotations__`): a
# subscript's store or delete (`locals()[k] = v`; its target unread: any name), an `import *`
SUBSCRIPTS = frozenset({"STORE_SUBSCR", "DELETE_SUBSCR", "IMPORT_STAR"})
# the instructions that make a call (3.8 to 3.13), each allowing any change in a class body that
# spells one of `SPELLED` (its namespace reached by name: `locals().update(...)`) where it is the
# outermost of a line reading one (`_spelling_calls`), none elsewhere
CALLS = frozenset(
    {
        "CALL",
        "CALL_KW",
        "PRECALL",
        "CALL_FUNCTION",
        "CALL_FUNCTION_KW",
        "CALL_FUNCTION_EX",
        "CALL_METHOD",
    }
)
SPELLED = frozenset({"locals", "vars", "f_locals"})
# what `_spaced` allows at an instruction that may bind any key (held by identity)
EVERY: frozenset[Any] = frozenset({closures.GONE})
# codes whose `stores` are kept at once (past it, the table is emptied and read again)
MAX_CODES = closures.MAX_CODES


def _names(
    code: Any,
    name: str,
    arg: Any,
    _local: Any = bytecode._local,
    _one: frozenset[str] = ONE,
    _cells: frozenset[str] = CELLS,
    _two: frozenset[str] = TWO,
) -> tuple[str, ...]:
    """The locals or cell variables the instruction `name` (its `argval` as
    `bytecode.instructions` gives it: the name for `LOAD_FAST_AND_CLEAR`, both for
    `STORE_FAST_LOAD_FAST`, else the raw argument) of `code` binds or unbinds; every free
    variable for `COPY_FREE_VARS` (3.11 and later: the closure's cells copied in); none for an
    instruction of neither `ONE`, `CELLS` nor `TWO`."""
    if name in _cells:
        return (_local(code, name, arg),)
    if name == "COPY_FREE_VARS":
        return code.co_freevars  # type: ignore[no-any-return]
    if name in _one:
        return (arg,) if name == "LOAD_FAST_AND_CLEAR" else (_local(code, "LOAD_FAST", arg),)
    if name not in _two:
        return ()
    if name == "STORE_FAST_LOAD_FAST":  # the first is stored, the second loaded
        return (arg[0],)
    return (code._varname_from_oparg(arg >> 4), code._varname_from_oparg(arg & 15))


def _spaced(
    code: Any,
    name: str,
    arg: Any,
    _subscripts: frozenset[str] = SUBSCRIPTS,
    _calls: frozenset[str] = CALLS,
    _spelled: frozenset[str] = SPELLED,
    _every: frozenset[Any] = EVERY,
) -> Any:
    """The keys of a class body's namespace the instruction `name` (raw argument `arg`) of its
    `code` binds or unbinds: a tuple of names, `EVERY` where it may bind any (`SUBSCRIPTS`;
    a call, `CALLS`, where the body spells one of `SPELLED`), `()` for none."""
    if name == "STORE_NAME" or name == "DELETE_NAME":
        return (code.co_names[arg],)
    if name == "SETUP_ANNOTATIONS":
        return ("__annotations__",)
    if name in _subscripts or (name in _calls and not _spelled.isdisjoint(code.co_names)):
        return _every
    return ()


ATTR_SHIFT = 1 if sys.version_info >= (3, 12) else 0
# the instructions that read a name a body may spell (`locals`, `vars`; `f_locals`, an attribute)
READS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD"})


def _read_name(code: Any, name: str, arg: Any, _shift: int = ATTR_SHIFT) -> Any:
    """The name the instruction `name` of `READS` (its argument `arg` as
    `bytecode.instructions` gives it: resolved for the loads of a name, raw for an attribute)
    reads."""
    if name == "LOAD_NAME" or name == "LOAD_GLOBAL":
        return arg
    return code.co_names[arg >> _shift if name == "LOAD_ATTR" else arg]


def _lined(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _starts: Any = bytecode.line_starts,
    _iter: Any = iter,
    _next: Any = next,
) -> list[tuple[int, int, str, Any]]:
    """`[(line, offset, opname, argval)]`: `bytecode.instructions(code)`, each with its line."""
    starts = _iter(_starts(code))
    upcoming = _next(starts, None)
    line = 0
    found: list[tuple[int, int, str, Any]] = []
    for offset, name, arg in _instructions(code):
        while upcoming is not None and upcoming[0] <= offset:
            line, upcoming = upcoming[1], _next(starts, None)
        found.append((line, offset, name, arg))
    return found


def _called(mine: list[int], offset: int, name: str) -> None:
    """A line's last call so far (`mine`, its offsets, -1 after a `PRECALL`'s) made the call
    `name` at `offset` (3.11's `CALL` after its `PRECALL` joins it)."""
    if not (mine and name == "CALL" and mine[-1] == -1):
        mine.clear()
    mine += [offset, -1] if name == "PRECALL" else [offset]


def _spelling_calls(
    code: Any,
    _lined: Any = _lined,
    _calls: frozenset[str] = CALLS,
    _reads: frozenset[str] = READS,
    _spelled: frozenset[str] = SPELLED,
    _read_name: Any = _read_name,
    _called: Any = _called,
    _frozenset: Any = frozenset,
) -> frozenset[int]:
    """The offsets of the last call (and 3.11's `PRECALL` before it) of each line of `code`
    that reads `locals`, `vars` or `f_locals`: the outermost call of `locals().update(...)`,
    after the calls its arguments make."""
    last: dict[int, list[int]] = {}  # line -> the offsets of its last call (-1: a `PRECALL`'s)
    spelling: list[int] = []
    for line, offset, name, arg in _lined(code):
        if name in _calls:
            _called(last.setdefault(line, []), offset, name)
        elif name in _reads and _read_name(code, name, arg) in _spelled:
            spelling.append(line)
    return _frozenset(at for one in spelling for at in last.get(one, ()) if at >= 0)  # type: ignore[no-any-return]


def stores(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _names: Any = _names,
    _spaced: Any = _spaced,
    _frozenset: Any = frozenset,
    _optimized: int = OPTIMIZED,
    _every: frozenset[Any] = EVERY,
    _spelling: Any = _spelling_calls,
    _calls: frozenset[str] = CALLS,
) -> dict[int, frozenset[str]]:
    """`{offset: names}`: the locals the instruction at `offset` of `code` binds or unbinds
    (`_names`; for a code without `CO_OPTIMIZED`, a class body's, the keys of its namespace,
    `_spaced`, `EVERY` where any), keyed too by the offsets of its `EXTENDED_ARG` prefixes
    (where its `opcode` event may come); an instruction that binds none is left out."""
    found: dict[int, frozenset[str]] = {}
    prefixes: list[int] = []
    naming = _names if code.co_flags & _optimized else _spaced
    outer = _spelling(code) if naming is _spaced else _frozenset()
    for offset, name, arg in _instructions(code):
        if name == "EXTENDED_ARG":
            prefixes.append(offset)
            continue
        names = naming(code, name, arg)
        if name in _calls and offset not in outer:  # a call: the outermost of a spelling line
            names = ()
        for at in (*prefixes, offset) if names else ():
            found[at] = names if names is _every else _frozenset(names)
        prefixes = []
    return found


def readable(code: Any, _itself: bool = MAPPING_ITSELF) -> bool:
    """Whether a frame of `code` (no `CO_OPTIMIZED`: a class body's) hands back its namespace
    as its `f_locals` with nothing run: on 3.13 and later always; before, where the code has no
    cell and no fast variable (`co_cellvars`, `co_varnames` empty), so `PyFrame_FastToLocals`
    and `PyFrame_LocalsToFast` have no name to write or read (free variables are skipped both
    ways for such code: CPython 3.11's and 3.12's `Objects/frameobject.c`). Never for a
    module's code (or an `exec`'s, an `eval`'s: named `<module>`): not a class body."""
    if code.co_name == "<module>":  # a module's or an `exec`'s, `eval`'s: not held
        return False
    return _itself or not (code.co_cellvars or code.co_varnames)


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
    _stores: Any = stores,
    _id: Any = id,
    _len: Any = len,
    _most: int = MAX_CODES,
) -> dict[int, frozenset[str]]:
    """`stores(code)`, read once a code object and kept in `tables` (past `MAX_CODES` codes,
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
        _optimized: int = OPTIMIZED,
        _readable: Any = readable,
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
    instruction at the last `opcode` event's offset stores none of that name (`stores`; none
    after a `line` event: nothing ran since) streams `tampered` once per test, and so does a key
    that is no exact `str`; but a cell variable of the frame's a closure made inside its code
    rebinds (`nonlocal`: a frame of that closure entered since and left, `closures.closed`), and
    the frame's free variables (its maker's cells). Then the locals are kept for the next event.
    `entered(frame, kept)`, as the trace function reads a new frame (or a generator's resumed):
    its locals copied as `kept`'s first (`held`'s first event compares against them), and a
    frame of code closing over cells counted for `held` (`closures.closed`); a class body's
    namespace read where it runs nothing (`readable`) and kept where it is an exact `dict`, then
    held as locals are (no closure allows a change of it). `left(frame, kept)`, at its `return`
    event: a held class body's last copy left for its maker (`classbody.leaver`, read by
    `classbody.built` at the maker's next events: `BUILT`, once per test as `tampered` is), then
    `closures.leaver`."""
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
        _optimized: int = OPTIMIZED,
        _spaced_now: Any = _spaced_now,
        _every: frozenset[Any] = EVERY,
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
