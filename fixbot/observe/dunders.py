"""The comparisons the observer's profile function (`watch.py`) sees run in a watched test's
call: a comparison dunder's `call` event, noted and streamed as a `saw` record the first time
(`compared`), and, for a type of an immutable built-in scalar, what it answered at its
`return` event, streamed as a `said` record (`answered`). Split from `watch.py`, which makes
the profile function and routes its events; these are two of the functions it holds.

Copied beside the plugin as `<module>_dunders` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `classes` and
`unread` parts alone; what its functions use is held as positional defaults, made once at load
(the code under test gets the profile function back from `sys.getprofile()`: see `watch.py`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_dunders`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


classes = _sibling("classes")  # what it reads of a class, a value, a frame
unread = _sibling("unread")  # an object handed back owed its class's own comparison (round 16)
DUNDERS = (*classes.COMPARISONS, "__bool__")


def compared(send: Callable[[dict[str, Any]], None], most: int) -> Callable[..., None]:
    """The comparison a `call` event runs (its code named as a comparison dunder or a lambda),
    when its code is a comparison dunder of its first argument's type: noted, and streamed
    (`saw`, with the identities of the function and the instance, which the judgement must
    carry too) the first time, through `send`; past `most` of them (`watch.MAX_SAW`) a `full`
    record says the rest went unseen; a class whose dictionary holds a key that is no `str`
    (whose `__eq__` the lookup of a dunder would run) is streamed as tampering instead."""
    instance_of = classes.instance_reader()
    slot_of = classes.slot_reader()
    immutable_of = classes.immutable_reader()
    settle = unread.settler(instance_of)

    def compared(
        frame: Any,
        code: Any,
        test: str,
        notes: dict[str, Any],
        root: str,
        saw: set[tuple[int, int]],
        _send: Callable[[dict[str, Any]], None] = send,
        _instance: Any = instance_of,
        _slot: Any = slot_of,
        _immutable: Any = immutable_of,
        _type: Any = type,
        _id: Any = id,
        _len: Any = len,
        _qualname: Any = type.__dict__["__qualname__"].__get__,
        _text: Any = str.__str__,
        _starts: Any = str.startswith,
        _dunders: tuple[str, ...] = DUNDERS,
        _max_saw: int = most,
        _int: Any = int,
        _float: Any = float,
        _settle: Any = settle,
    ) -> None:
        _settle(frame, code, notes)  # an object handed back at a comparison: its own ran
        found = _instance(frame, code)
        if not found:
            return
        instance, other = found
        kind = _type(instance)
        for dunder in _dunders:
            function = _slot(kind, dunder, code)
            if function is None:
                continue
            if function is False:  # a key no `str`: looking further would run its code
                what = "a class it compared holds a key that is no str in its dictionary"
                _send({"k": "tampered", "id": test, "what": what})
                return
            key = (_id(code), _id(kind))  # identities: a metaclass's `__hash__` is not asked
            if key in saw:
                return
            if _len(saw) >= _max_saw:
                if not notes["full"]:
                    notes["full"] = True
                    _send({"k": "full", "id": test})
                return
            saw.add(key)
            file = _text(code.co_filename)
            file = file[_len(root) :] if _starts(file, root) else file
            if not _starts(file, "/"):  # the project's, or built at run time
                where = {"k": "saw", "id": test, "file": file, "line": code.co_firstlineno}
                where.update(type=_text(_qualname(kind)), dunder=dunder)
                where.update(fn=_id(function), obj=_id(instance))
                _send(where)
            # held: the type and code stay alive, so their identities are not reused
            notes["types"][(_id(kind), dunder)] = (kind, dunder, instance, function, other)
            if _immutable(kind):  # what it answered is asked again only where nothing moved
                notes["pending"][_id(frame)] = (_id(function), _id(instance))
            if _type(other) is _int or _type(other) is _float:
                notes["against"][(_id(kind), dunder)] = other
            return

    return compared


def answered(send: Callable[[dict[str, Any]], None]) -> Callable[..., None]:
    """What a comparison streamed as it began answered the test (its frame's `return` event's
    value, where a bool or an exact int, read as its truth: anything else would need its own code
    run to be read), for a type of an immutable built-in scalar (`classes.immutable_reader`),
    streamed as a `said` record with the
    identities `saw` carried: fixbot pairs it with the same question asked again after the
    call (an `__eq__` that tells the test apart from the observer, by its caller or by being
    asked once, answers them otherwise)."""

    def said(
        frame: Any,
        arg: Any,
        test: str,
        pending: dict[int, tuple[int, int]],
        _send: Callable[[dict[str, Any]], None] = send,
        _id: Any = id,
        _type: Any = type,
        _bool: Any = bool,
        _int: Any = int,
    ) -> None:
        found = pending.pop(_id(frame), None)
        kind = _type(arg)
        if found is not None and (kind is _bool or kind is _int):  # read without its code
            said = arg if kind is _bool else arg != 0  # an int's truth: `1` said equal
            _send({"k": "said", "id": test, "fn": found[0], "obj": found[1], "v": said})

    return said
