"""What the observer's trace function reads at the `opcode` event of a watched body's comparison
(`fixbot.observe.operands`): the values its operands' sources name in the frame (`_values`,
every namespace checked for a key no exact `str` before the first lookup: `_keyed`), and
`_streamer`, which streams their shapes once per distinct (offset, line, operator, shapes), notes
the comparison last read for `operands._decider` and plans its follow (`fixbot.observe.followed`);
which frames the trace function reads (`_entered`: the body's entry pytest called, and round
14's, every frame of other code of the test module's while it runs, by the identity of its
globals), their code's tables read once per code object (`_tables`), and what is read at each
event (`_reader`).

Copied beside the plugin as `<module>_reading` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `shapes`,
`followed` and `bytecode` parts alone; what its functions use is held as positional defaults,
made once at load (the code under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable, Mapping
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_reading`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


shapes = _sibling("shapes")  # the op each operand of a containment is read as (`SIDES`)
followed = _sibling("followed")  # what the values read decide (`expected`)
bytecode = _sibling("bytecode")  # the line an offset is at (`line_at`)
contents = _sibling("contents")  # the containers handed back, held to the comparison (round 17)
SIDES = shapes.SIDES
# distinct comparisons (offset, line, operator, shapes) streamed per watched call: past it,
# `full` once (as the profile function says past `watch.MAX_SAW`: `observer-overflow` where the
# start's run did not say it)
MAX_OPS = 2000


def _keyed(place: Any, _type: Any = type, _str: Any = str, _any: Any = any) -> bool:
    """Whether the namespace `place` (a dictionary, or 3.13's frame locals proxy) holds a key
    that is no exact `str`, looked for through its own iteration (C) and `type`: a lookup in
    it would run that key's `__eq__`."""
    found: bool = _any(_type(key) is not _str for key in place)
    return found


def _values(
    frame: Any,
    sources: tuple[tuple[str, Any], ...],
    _list: Any = list,
    _keyed: Any = _keyed,
) -> list[Any] | bool | None:
    """The values `sources` (`operand_sources`) name in `frame` as it is now, or None where one
    is not bound (the comparison raises). A frame's locals, globals and builtins are read
    through the frame's own accessors; a name is an exact `str` (`dis`'s). False where a
    namespace it looks a name up in holds a key that is no exact `str` (`_keyed`, before the
    lookup): a lookup would run that key's `__eq__`, and the interpreter's copy of the locals
    dictionary back into the frame (before 3.13, armed by the read) runs it again after the
    read, before the instruction (round 13: a key whose hash is a local's name swapping an
    operand's class)."""
    values: list[Any] = _list()
    for how, what in sources:
        if how == "const":
            values.append(what)
            continue
        place = frame.f_locals if how == "local" else frame.f_globals
        if _keyed(place):
            return False
        if what in place:
            values.append(place[what])
            continue
        if how != "global" or _keyed(frame.f_builtins):
            return None if how != "global" else False
        if what not in frame.f_builtins:
            return None
        values.append(frame.f_builtins[what])
    return values


# what `tampered` says of a namespace holding a key no exact `str` (`_values`)
KEYED = "a namespace a comparison's operand was read from held a key no str"
CHANGED = contents.CHANGED


def _once(notes: list[Any], send: Callable[[dict[str, Any]], None], mark: str, record: Any) -> None:
    """Stream `record` once per watched call (`mark` noted among `notes[4]`; none for the
    priming, whose test is none)."""
    if notes[0] and mark not in notes[4]:
        notes[4].add(mark)
        send(record)


def _record(
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    where: tuple[int, int, str, bool],
    shapes: list[dict[str, Any]],
    most: int,
    _len: Any = len,
    _tuple: Any = tuple,
    _once: Any = _once,
    _line: Any = bytecode.line_at,
) -> dict[str, Any] | None:
    """The record to stream of the comparison `where` (its offset, `at`, which pairs it with its
    follow's `fol`; its code's line; its operator; whether nested: made by a frame of other code
    of the test module's) with its operands' `shapes`: one per distinct (offset, line, operator,
    nested, shapes), `most` at most (past it, `full` is
    streamed once; none for the priming, whose test is none); None where none is. A nested one
    is at the line the body's entry is at (`notes[5]`, by its line starts `notes[11]`; 0 where
    it left), with `"n": True`."""
    at, line, op, nested = where
    if nested:  # the body's statement that ran it
        body = notes[5]
        line = _line(notes[11], body.f_lasti) if body is not None else 0
    key = (at, line, op, nested, *(_tuple(s.values()) for s in shapes))
    if key in notes[4] or not notes[0]:
        return None
    if _len(notes[4]) >= most:  # those past it go unseen: said once
        _once(notes, send, "full", {"k": "full", "id": notes[0]})
        return None
    notes[4].add(key)
    record = {"k": "op", "id": notes[0], "at": at, "line": line, "op": op, "s": shapes}
    if nested:
        record["n"] = True
    return record


def _streamer(
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
    plan: Callable[..., None],
) -> Callable[[Any, Any, Any, bool], None]:
    """`stream(frame, reads, follows, nested)`: at an `opcode` event of the body's entry pytest
    called, or of a frame of other code of the test module's (`nested`: a generator
    expression's, a helper's), the operands of the comparison its frame is at (`reads`, its
    code's comparisons found by `operand_sources`; `follows`, its code's `followed.followers`;
    `tracer`'s `notes`: the test, ..., those streamed), streamed once per distinct (offset,
    line, operator, shapes, nested: `_record`), `MAX_OPS` at most (past it, `full` once), read
    with the collector held off, and noted as the comparison last read (`notes[6]`, with its
    frame, for `_decider`); one read as built-ins' own is followed (`plan`,
    `followed.follower`: its operands' types, and what they decide, read before their shapes: a
    class changed after the shapes were read changes neither; its `fol` owed where its `op`
    goes out and it is the body's own). A nested comparison is streamed with `"n": True`
    at the line the body's entry is at (`notes[5]`'s, by the body's line starts `notes[11]`):
    the body's statement that ran it, which `fixbot.observe.turned` counts it at."""

    def stream(
        frame: Any,
        reads: Any,
        follows: Any,
        nested: bool,
        _notes: list[Any] = notes,
        _send: Any = send,
        _shape: Any = shape,
        _len: Any = len,
        _max: int = MAX_OPS,
        _values: Any = _values,
        _sides: Mapping[str, tuple[str, str]] = SIDES,
        _plan: Any = plan,
        _type: Any = type,
        _expected: Any = followed.expected,
        _once: Any = _once,
        _keyed: str = KEYED,
        _record: Any = _record,
        _changed: Any = contents.CHANGED_SINCE,
        _moved: str = CHANGED,
    ) -> None:
        found = reads.get(frame.f_lasti)
        if found is None:
            return
        op, sources, line = found
        values = _values(frame, sources)
        if values is False:  # a key of the project's in a namespace read: its code ran
            _once(_notes, _send, "keyed", {"k": "tampered", "id": _notes[0], "what": _keyed})
            return
        if values is None:  # not bound: the comparison raises
            return
        one = _len(values) == 1  # a truth test's (op "bool"): not followed
        # what the values decide, and their types, read before their shapes (`followed.py`)
        kinds = (_type(values[0]),) if one else (_type(values[0]), _type(values[1]))
        decided = None if one else _expected(op, values, kinds)
        # a container handed back, changed by no instruction's: read after what the values
        # decide (a write landing after this read is the follow's: what the instruction decided
        # is held against that answer, `followed.py`)
        if _changed(frame, values):
            _once(_notes, _send, "contents", {"k": "tampered", "id": _notes[0], "what": _moved})
        sides = _sides.get(op, (op, op))
        shapes = [_shape(values[0], sides[0])]
        if not one:  # a truth test's (op "bool") has one operand
            shapes.append(_shape(values[1], sides[1]))
        both = shapes[0]["c"] is True and shapes[-1]["c"] is True
        _notes[6] = (frame.f_lasti, both, "py" in shapes[0] or "py" in shapes[-1], frame)
        record = _record(_notes, _send, (frame.f_lasti, line, op, nested), shapes, _max)
        if both and not one:  # what the instruction decides is followed (`followed.py`)
            # its `fol` owed where its `op` goes out and fixbot pairs it: the body's own
            _plan(frame, decided, values, kinds, follows, record is not None and not nested)
        elif not one:
            _notes[7] = None
        # a truth test leaves the follow under way: the jump on a copy of a stored result, one
        # of its steps, is one (round 15: pytest's `BoolOp`)
        if record is not None:  # sent from here, the frame holding what was read
            _send(record)

    def held(
        frame: Any,
        reads: Any,
        follows: Any,
        nested: bool,
        _stream: Any = stream,
        _isenabled: Any = gc.isenabled,
        _disable: Any = gc.disable,
        _enable: Any = gc.enable,
    ) -> None:
        """`stream` with the collector held off (its state put back after): a collection
        started by what the observer allocates would run the project's `gc` callbacks and
        finalizers inside its reading."""
        enabled = _isenabled()
        _disable()
        try:
            _stream(frame, reads, follows, nested)
        finally:
            if enabled:
                _enable()

    return held


def _tables(
    code: Any,
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    most: int,
    sources: Callable[[Any], Any],
    _id: Any = id,
    _len: Any = len,
    _followers: Any = followed.followers,
    _once: Any = _once,
) -> tuple[Any, Any] | None:
    """`(reads, follows)` of `code`, other code of the test module's than the body's: its
    comparisons and truth tests (`sources`, `operands.READ`) and those whose result is followed
    (`followed.followers`), read once per code object and kept in the call's notes
    (`notes[10]`, by identity, the code held: a code object's `==` compares its constants);
    None past `most` codes (`MAX_OPS`; `full` streamed once: their comparisons go
    unseen)."""
    kept = notes[10].get(_id(code))
    if kept is not None and kept[0] is code:
        return kept[1], kept[2]
    if _len(notes[10]) >= most:
        _once(notes, send, "full", {"k": "full", "id": notes[0]})
        return None
    reads, follows = sources(code), _followers(code)
    notes[10][_id(code)] = (code, reads, follows)
    return reads, follows


def _entered(
    frame: Any,
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    most: int,
    sources: Callable[[Any], Any],
    _tables: Any = _tables,
) -> tuple[bool, tuple[Any, Any] | None] | None:
    """At a `call` event of `frame`: `(outer, tables)` where the frame is traced
    (`operands.tracer`'s
    `notes`), None where it is not. An entry of the body's code (`notes[1]`) is traced, and
    read where it is the entry pytest called (`outer`): one made while no other entry of the
    body runs (a generator's resumed frame is the same entry; another's comparisons are not
    its); that one's globals are the test module's (`notes[9]`). A frame of other code whose
    globals are those, by identity, made while that entry runs (`notes[5]`), is traced and read
    with its code's `tables` (`_tables`, read by `sources`; none past `most` codes)."""
    if frame.f_code is notes[1] and notes[1] is not None:
        outer = notes[5] is None or notes[5] is frame
        if outer:
            notes[5], notes[9] = frame, frame.f_globals
        return outer, None
    if notes[5] is None or frame.f_globals is not notes[9]:
        return None
    tables = _tables(frame.f_code, notes, send, most, sources)
    return None if tables is None else (True, tables)


def _reader(
    notes: list[Any], stream: Callable[..., None], follow: Callable[[Any], None]
) -> Callable[[Any, Any], None]:
    """`read(frame, tables)`, at an `opcode` event of a frame the trace function reads: the
    comparison being followed (`notes[7]`) followed where the frame that read it is this one
    (`notes[6]`; at another frame's event first, it raised out of it: nothing to follow), then
    the comparison the frame is at streamed (`stream`), the body's entry's with the body's
    tables (`tables` None: `notes[3]` and `notes[8]`), another frame's with its own."""

    def read(
        frame: Any,
        tables: tuple[Any, Any] | None,
        _notes: list[Any] = notes,
        _stream: Any = stream,
        _follow: Any = follow,
        _step: Any = contents.STEP,
    ) -> None:
        if _notes[7] is not None:  # a comparison read as built-ins' own, followed
            if _notes[6] is not None and _notes[6][3] is frame:
                _follow(frame)
            else:
                _notes[7] = None
        if tables is None:
            _stream(frame, _notes[3], _notes[8], False)
        else:
            _stream(frame, tables[0], tables[1], True)
        _step(frame)  # the instruction about to run could change a container: counted

    return read
