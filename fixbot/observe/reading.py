"""What the observer's trace function reads at the `opcode` event of a watched body's comparison
(`fixbot.observe.operands`): the values its operands' sources name in the frame (`_values`,
every namespace checked for a key no exact `str` before the first lookup: `_keyed`), and
`_streamer`, which streams their shapes once per distinct (offset, line, operator, shapes), notes
the comparison last read for `operands._decider` and plans its follow (`fixbot.observe.followed`).

Copied beside the plugin as `<module>_reading` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `shapes` and
`followed` parts alone; what its functions use is held as positional defaults, made once at
load (the code under test shares the process and can reach a closure cell).
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


def _once(notes: list[Any], send: Callable[[dict[str, Any]], None], mark: str, record: Any) -> None:
    """Stream `record` once per watched call (`mark` noted among `notes[4]`; none for the
    priming, whose test is none)."""
    if notes[0] and mark not in notes[4]:
        notes[4].add(mark)
        send(record)


def _streamer(
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
    plan: Callable[[Any, bool | None, list[Any], tuple[Any, Any], bool], None],
) -> Callable[[Any], None]:
    """`stream(frame)`: at an `opcode` event of the body's entry pytest called, the operands
    of the comparison its frame is at (`tracer`'s `notes`: the test, the comparisons found by
    `operand_sources`, those streamed), streamed once per distinct (offset, line, operator,
    shapes: the offset, `at`, pairs it with its follow's `fol`), `MAX_OPS` at most (past it,
    `full` once), read with the collector held off, and noted as
    the comparison last read (`notes[6]`, for `_decider`); one read as built-ins' own is
    followed (`plan`, `followed.follower`: its operands' types, and what they decide, read
    before their shapes: a class changed after the shapes were read changes neither)."""

    def stream(
        frame: Any,
        _notes: list[Any] = notes,
        _send: Any = send,
        _shape: Any = shape,
        _len: Any = len,
        _tuple: Any = tuple,
        _max: int = MAX_OPS,
        _values: Any = _values,
        _sides: Mapping[str, tuple[str, str]] = SIDES,
        _plan: Any = plan,
        _type: Any = type,
        _expected: Any = followed.expected,
        _once: Any = _once,
        _keyed: str = KEYED,
    ) -> None:
        found = _notes[3].get(frame.f_lasti)
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
        sides = _sides.get(op, (op, op))
        shapes = [_shape(values[0], sides[0])]
        if not one:  # a truth test's (op "bool") has one operand
            shapes.append(_shape(values[1], sides[1]))
        both = shapes[0]["c"] is True and shapes[-1]["c"] is True
        _notes[6] = (frame.f_lasti, both, "py" in shapes[0] or "py" in shapes[-1])
        key = (frame.f_lasti, line, op, *(_tuple(s.values()) for s in shapes))
        # none for the priming (`_prime`); past `MAX_OPS` unseen
        fresh = not (key in _notes[4] or not _notes[0] or _len(_notes[4]) >= _max)
        if both and not one:  # what the instruction decides is followed (`followed.py`)
            _plan(frame, decided, values, kinds, fresh)  # its `fol` owed where `op` goes out
        else:
            _notes[7] = None
        if key in _notes[4] or not _notes[0]:  # none for the priming (`_prime`)
            return
        if _len(_notes[4]) >= _max:  # those past it go unseen: said once
            _once(_notes, _send, "full", {"k": "full", "id": _notes[0]})
            return
        _notes[4].add(key)
        at = frame.f_lasti  # fixbot pairs it with its follow's `fol` (`followed.follower`)
        _send({"k": "op", "id": _notes[0], "at": at, "line": line, "op": op, "s": shapes})

    def held(
        frame: Any,
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
            _stream(frame)
        finally:
            if enabled:
                _enable()

    return held
