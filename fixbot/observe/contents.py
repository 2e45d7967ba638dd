"""What the containers handed back to a test's body hold, held from the hand-off to the body's
comparison that reads them (round 17's open class): at each hand-off, the exact `list`, `dict`
and `set` objects the value is or holds (those `classes.pinner`'s walk opens, within its bounds)
are held with a copy of their storage as the walk read it (`hold`); at a comparison of the
body's frame whose operand is a value handed back (by identity), they are read again and held
against those copies by identity (`changed`); one changed where no instruction of the body that
could change it ran since the hand-off is `tampered`.

Why (round 17, `list-mutated-in-place-after-the-hand-off`): `evens(10)` hands back the honest
list, and a `SIGALRM` handler (or a gc callback) of the project's, once `evens`' frame is off
the stack, sets its item 3 to `5` before `assert evens(10) == [0, 2, 4, 5, 8]` compares: the
body's local keeps the same list (`unstored` reads bindings), its items stay exact `int`s (the
pins read classes), and the comparison is decided as read. A signal handler and a gc callback
run between any two instructions, an allocation's or an eval-breaker's; no instruction of the
body's asked for them.

Which instructions could (`writers`): every one but those that run no code of anyone's on an object
they did not make (`PURE`: loads, stores of the frame's own locals, stack shuffles, jumps, a
literal's build; `LIST_EXTEND`/`SET_UPDATE` fed by a constant, pytest's `[0, 2, 4, 5, 8]`). A call
(`x.append(1)`, `x.sort()`, a function handed `x`), a subscript or attribute store, an in-place
operator, a comparison, an iteration: each may change what it reaches, so a change across one is
allowed. The instructions run are counted (`step`, at each `opcode` event of a frame the trace
function reads, after its comparison is read); a hand-off is held with the count as it came (during
the instruction that called), and a change is judged only where the count has not moved since, and
where no writer lies between the offset the body's frame was handed the value at and the
comparison's in its code (both must say none ran: neither alone can make a change a writer made look
unmade). The read at the comparison comes after the follow's (`followed.expected`, which decides
exact containers of value types, `reading.py`): a write landing after it, before the instruction, is
the follow's `tampered`. Honest tests mutate what they were handed through calls and stores
(`tests/run/test_observer_attacks_round17_legitimate.py`): those move the count.

What it costs: the walk's own copies (`holds.storage_reader`'s `inner`) are kept, nothing more
is read at the hand-off; the hand-offs held are those made since the count last moved (one
instruction's: at most a few), and at the comparison a value handed back costs one identity
scan of each of its containers (C: `map(operator.is_, ...)`).

Not held: a change across an instruction that could make it (a call between the hand-off and
the comparison, the write landing while it runs); a comparison whose operand is derived from
the value handed back (`f()[1:]`, `list(f())`: another object) or is no plain load (`unread.py`);
a container past the walk's bounds; a `bytearray` (not opened); a `__del__` or weakref callback
run by a store of the body's that changes a container it compares (honest, and counted a
change: the store is `PURE`).

Copied beside the plugin as `<module>_contents` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` part
alone; what its functions use is held as positional defaults, made once at load (`board`).
"""

from __future__ import annotations

import bisect
import importlib
import operator
from collections.abc import Callable
from itertools import islice
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_contents`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the frame's instructions, read without `dis`

# the built-in containers whose storage can change in place, held where handed back exactly
HELD = (list, dict, set)
# the instructions (3.8 to 3.14) that run no code of anyone's on an object they did not make:
# none of them can change a container handed back (a `__del__` run by a store's release aside)
PURE = frozenset(
    {
        *("NOP", "RESUME", "RESUME_CHECK", "CACHE", "NOT_TAKEN", "KW_NAMES", "PUSH_NULL"),
        *("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST"),
        *("LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_CONST"),
        *("LOAD_SMALL_INT", "LOAD_CONST_IMMORTAL", "LOAD_CONST_MORTAL", "LOAD_GLOBAL"),
        *("LOAD_DEREF", "LOAD_CLOSURE", "COPY_FREE_VARS", "MAKE_CELL", "LOAD_ASSERTION_ERROR"),
        *("STORE_FAST", "DELETE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"),
        *("STORE_DEREF", "POP_TOP", "COPY", "SWAP", "DUP_TOP", "DUP_TOP_TWO"),
        *("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", "BUILD_LIST", "BUILD_TUPLE"),
        *("BUILD_SLICE", "LIST_APPEND", "LIST_TO_TUPLE", "IS_OP"),
        *("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE"),
        *("JUMP", "JUMP_NO_INTERRUPT", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"),
        *("POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE"),
        *("POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE"),
        *("MAKE_FUNCTION", "SET_FUNCTION_ATTRIBUTE"),
    }
)
# pure where the instruction right before is a `LOAD_CONST` (a literal's items: `[0, 2, 4]`)
CONST_FED = frozenset({"LIST_EXTEND", "SET_UPDATE"})
# what `tampered` says
CHANGED = (
    "a container handed back to the test's body changed where no instruction of the body that"
    " could change it ran"
)
# codes whose `writers` are kept at once (past it, the table is emptied and read again), and
# hand-offs held at once (past it, emptied: none is judged but those since the count moved)
MAX_CODES = 2000
MAX_HELD = 64


def writers(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _pure: frozenset[str] = PURE,
    _fed: frozenset[str] = CONST_FED,
    _frozenset: Any = frozenset,
) -> frozenset[int]:
    """The offsets of `code`'s instructions that could change a container handed back (all but
    `PURE`, and `CONST_FED` after a `LOAD_CONST`), with those of their `EXTENDED_ARG` prefixes
    (where the `opcode` event may come)."""
    found: list[int] = []
    prefixes: list[int] = []
    last = ""
    for offset, name, _ in _instructions(code):
        if name == "EXTENDED_ARG":
            prefixes.append(offset)
            continue
        if name not in _pure and not (name in _fed and last == "LOAD_CONST"):
            found += (*prefixes, offset)
        prefixes = []
        last = name
    return _frozenset(found)  # type: ignore[no-any-return]


def _table(
    code: Any,
    tables: dict[int, tuple[Any, frozenset[int], list[int]]],
    _writers: Any = writers,
    _id: Any = id,
    _len: Any = len,
    _sorted: Any = sorted,
    _most: int = MAX_CODES,
) -> tuple[Any, frozenset[int], list[int]]:
    """`(code, writers(code), those offsets sorted)`, kept in `tables` by the code's identity
    (the code held: its id is not reused), the table emptied first past `MAX_CODES` codes."""
    found = tables.get(_id(code))
    if found is not None and found[0] is code:
        return found
    if _len(tables) >= _most:
        tables.clear()
    offsets = _writers(code)
    found = tables[_id(code)] = (code, offsets, _sorted(offsets))
    return found


def _between(
    table: tuple[Any, frozenset[int], list[int]],
    after: int,
    before: int,
    _bisect: Any = bisect.bisect_right,
    _len: Any = len,
) -> bool:
    """Whether `table`'s code (`_table`) holds a writer at an offset past `after` (the
    instruction that called, as its frame stood at the hand-off: a call's last inline cache on
    3.11) and before `before` (the comparison's), or `before` is not past `after` (a loop: the
    comparison before the call in the code)."""
    if before <= after:
        return True
    sorted_offsets = table[2]
    at: int = _bisect(sorted_offsets, after)
    return at < _len(sorted_offsets) and sorted_offsets[at] < before


def _moved(
    stored: list[Any],
    _len: Any = len,
    _list: Any = list,
    _all: Any = all,
    _map: Any = map,
    _is: Any = operator.is_,
    _islice: Any = islice,
    _iter: Any = iter,
    _dict: type = dict,
    _values: Any = dict.values,
) -> bool:
    """Whether a container of `stored` (`[(container, base, copy, length)]`, `board`'s `hold`)
    no longer has its length, or its storage read again as far as copied (its own C iteration,
    a dict's keys then values, as `holds.storage_reader` reads it) differs by identity."""
    for one, base, copy, length in stored:
        if _len(one) != length:
            return True
        now = _list(_islice(_iter(one), _len(copy)))  # an exact container: its own iteration
        if base is _dict:
            now += _list(_islice(_values(one), _len(copy) - _len(now)))
        if _len(now) != _len(copy) or not _all(_map(_is, now, copy)):
            return True
    return False


def board() -> tuple[Callable[..., None], Callable[..., None], Callable[..., bool]]:
    """`(step, hold, changed)`, sharing one count and one table, held by their defaults alone.
    `step(frame)`, at each `opcode` event of a frame the trace function reads (after its
    comparison is read): where the instruction it is at could change a container (`writers`),
    the count moves. `hold(value, frame, stored)`, at the hand-off of `value` to the body's
    `frame` (the profile function's `return` event): `stored`, `[(container, base, copy,
    length)]` of the exact `HELD` containers `classes.pinner` opened (`copy` its storage as
    read, `length` its `len` then), is held under the value's identity, with the count (the
    table emptied first where the count moved since it was filled) and the offset `frame` was
    at. `changed(frame, values)`, at a comparison of `frame` reading `values`: whether a value
    of them handed back to `frame` since the count last moved, with no writer in its code
    between the offset it was handed back at and the comparison's (`_between`: both must say
    none ran), holds a container whose length or storage (read again as far as copied, by
    identity) is not what it held then. Each runs no code of anyone's (the
    containers' own C iteration, `len` of exact built-ins, identities)."""
    # the count, the count the table was filled at, {id(value): (value, frame, stored, offset)}
    state: list[Any] = [0, 0, {}]
    # id(code) -> (code, its `writers`, sorted)
    tables: dict[int, tuple[Any, frozenset[int], list[int]]] = {}

    def step(
        frame: Any,
        _state: list[Any] = state,
        _tables: dict[int, tuple[Any, frozenset[int], list[int]]] = tables,
        _table: Any = _table,
        _id: Any = id,
    ) -> None:
        code = frame.f_code
        table = _tables.get(_id(code))
        if table is None or table[0] is not code:
            table = _table(code, _tables)
        if frame.f_lasti in table[1]:
            _state[0] += 1

    def hold(
        value: Any,
        frame: Any,
        stored: list[Any],
        _state: list[Any] = state,
        _id: Any = id,
        _len: Any = len,
        _most: int = MAX_HELD,
    ) -> None:
        held = _state[2]
        if _state[1] != _state[0] or _len(held) >= _most:
            held.clear()
            _state[1] = _state[0]
        if stored:  # held: its id is not reused meanwhile
            held[_id(value)] = (value, frame, stored, frame.f_lasti)

    def changed(
        frame: Any,
        values: list[Any],
        _state: list[Any] = state,
        _tables: dict[int, tuple[Any, frozenset[int], list[int]]] = tables,
        _table: Any = _table,
        _between: Any = _between,
        _id: Any = id,
        _moved: Any = _moved,
    ) -> bool:
        held = _state[2]
        if not held or _state[1] != _state[0]:
            return False
        table = _table(frame.f_code, _tables)
        for value in values:
            found = held.get(_id(value))
            if found is None or found[0] is not value or found[1] is not frame:
                continue
            if not _between(table, found[3], frame.f_lasti) and _moved(found[2]):
                return True
        return False

    return step, hold, changed


# made once at load: the profile function holds `hold` (`watch.py`), the trace function's
# reading `step` and `changed` (`reading.py`), each as a default
STEP, HOLD, CHANGED_SINCE = board()
