"""The observer's sender: the writing end of its channel (`_sender`, which writes each record
as one line), the serializer of its records (`_encode`) and its fail-closed end (`_fail`),
which ends the process when what the sender trusts was changed (`fixbot.observe.pytest_plugin`).

The sender, its check of the descriptor (`_verify`), its end and its serializer hold what they
use as positional default arguments, bound before any project code runs, not as closure cells:
a cell's content is replaced without an audit event, a function's `__defaults__` only by
writing it, which raises one, and `reach` ends the process on it. They bind only builtins whose
behaviour the project cannot change (`os.write`, `os.fstat`, `os._exit`, builtin types'
methods) and one another, and look no name up when called. The sender trusts its descriptor by
the file it names: a different file under the number (a pipe `os.dup2`'ed there, the number
closed or reopened) ends the process with `FAIL_CLOSED` before or right after the record it was
writing. What is left of that: a thread swapping the file in and back out inside one write (a
race, not a method).

Copied beside the plugin as `<module>_sender` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

# the exit status of a process whose channel was replaced or shut down by the code under test, or
# where what the observer's sender and checks trust was changed (`integrity.seal`, `reach`):
# the observer fails closed (`_sender`, `reach`) with a status no runner uses for a verdict
# (pytest's are 0 to 5), said on standard error as `FAIL_WORDS`
FAIL_CLOSED = 76
FAIL_WORDS = b"fixbot observer: its channel or its own code was changed by the code under test\n"


def _fail(
    _write: Any = os.write,
    _end: Any = os._exit,
    _words: bytes = FAIL_WORDS,
    _status: int = FAIL_CLOSED,
    _oserror: Any = OSError,
) -> None:
    """The observer's fail-closed end: say so on standard error and end the process at once
    with `FAIL_CLOSED` (`os._exit`: no atexit handler, `finally` or other thread runs after
    it). `os._exit` rather than a SIGKILL to itself: as final, and its status is the observer's
    own where -9 is also the OOM killer's. What it uses is bound as positional defaults when
    the module is imported, before any project code runs: a default is replaced only by
    writing `__defaults__`, which raises an audit event (`reach` ends the process on it),
    where a closure cell's content is replaced silently; and no name is looked up on the way
    out (`OSError` included: the project may rebind builtins)."""
    # no module's name looked up on the way out (`contextlib.suppress` would be)
    try:  # noqa: SIM105
        _write(2, _words)
    except _oserror:
        pass
    _end(_status)


def failer() -> Callable[[], None]:
    """The observer's fail-closed end (`_fail`), for the observer's other modules."""
    return _fail


# `str.translate`'s table for a JSON string's body: the characters JSON requires escaped (the
# quote, the backslash, control characters below U+0020; RFC 8259, section 7), by code point;
# a tuple (immutable), and past its end a character maps to itself (`str.translate` treats the
# `IndexError` as "unchanged")
_ESCAPES = tuple(
    f"\\u{point:04x}" if point < 0x20 else {0x22: '\\"', 0x5C: "\\\\"}.get(point, chr(point))
    for point in range(0x5D)
)


def _scalar(
    value: Any,
    _str: Any = str,
    _int: Any = int,
    _float: Any = float,
    _isinstance: Any = isinstance,
    _translate: Callable[[str, Any], str] = str.translate,
    _int_repr: Callable[[int], str] = int.__repr__,
    _float_repr: Callable[[float], str] = float.__repr__,
    _escapes: tuple[str, ...] = _ESCAPES,
) -> str | None:
    """`value` as JSON text if it is None, a bool, a str, an int or a float (a subclass's by
    the builtin type's method, not its own), else None. See `_encode`."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if _isinstance(value, _str):
        return '"' + _translate(value, _escapes) + '"'
    if _isinstance(value, _int):
        return _int_repr(value)
    if _isinstance(value, _float):  # the infinities and NaN as `json.dumps` writes them
        text = _float_repr(value)
        return {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}.get(text, text)
    return None


def _encode(
    record: Any,
    _scalar: Any = _scalar,
    _str: Any = str,
    _list: Any = list,
    _tuple: Any = tuple,
    _dict: Any = dict,
    _isinstance: Any = isinstance,
    _items: Any = dict.items,
) -> str:
    """`record` as one line of JSON text, as `json.dumps(record, default=str,
    ensure_ascii=False)` writes it: dicts (str keys), lists and tuples, str, int, bool, float,
    None; anything else as the string `str` makes of it. Written with builtin types' methods
    alone, bound as positional defaults (see `_fail`): `json.dumps` is Python code that follows
    the `json` module's globals (`json.encoder.c_make_encoder`, `JSONEncoder`), which the
    project can rebind. Iterative (no recursion through a name). fixbot parses it with
    `json.loads`. Raises what `str()` of an unknown object raises."""
    out: list[str] = []
    stack: list[Any] = [(False, record)]
    while stack:
        literal, value = stack.pop()
        text = value if literal else _scalar(value)
        if text is not None:
            out.append(text)
            continue
        pending: list[Any] = []
        if _isinstance(value, _dict):
            out.append("{")
            for key, item in _list(_items(value)):
                name = _scalar(key if _isinstance(key, _str) else _str(key))
                pending += [(True, ", ")] if pending else []
                pending += [(True, name + ": "), (False, item)]
            pending.append((True, "}"))
        elif _isinstance(value, (_list, _tuple)):
            out.append("[")
            for item in _tuple(value):
                pending += [(True, ", ")] if pending else []
                pending.append((False, item))
            pending.append((True, "]"))
        else:
            pending.append((False, _str(value)))
        pending.reverse()
        stack += pending
    return "".join(out)


def _verify(
    out: int,
    dev: int,
    ino: int,
    _fstat: Any = os.fstat,
    _fail: Any = _fail,
    _oserror: Any = OSError,
) -> None:
    """End the process (`_fail`) unless descriptor `out` names the pipe (`dev`, `ino`: its
    `st_dev`, `st_ino`) it named when the observer opened it. `os.fstat` is a builtin the
    project cannot change, only rebind the name of; it and the end are bound as positional
    defaults (see `_fail`)."""
    try:
        now = _fstat(out)
        same = now.st_dev == dev and now.st_ino == ino
    except _oserror:
        same = False
    if not same:
        _fail()


def _sender(
    out: int, nonce: str, callers: frozenset[int] = frozenset()
) -> Callable[[dict[str, Any]], None]:
    """A function writing one record to descriptor `out` as `nonce<TAB>json`; the nonce, the
    descriptor, the pipe's identity and the functions it uses are its positional defaults, not
    closure cells: a cell's content is replaced without an audit event, a default only by
    writing `__defaults__`, which `reach`'s audit hook answers by ending the process (and a
    read of them is streamed). It has no closure at all.

    The descriptor is trusted by the file it names, not by its number: the kernel's identity
    of the pipe (`st_dev`, `st_ino`, by `os.fstat`) is taken now, while `integrity._open` runs
    before any project code, and compared before and after each write (`_verify`). A
    descriptor that names another file (a pipe of the project's `os.dup2`'ed or reopened under
    the number, the number closed), or a record that cannot be written whole (the channel shut
    down or made non-blocking through a copy of the descriptor, `socket.fromfd`), ends the
    process at once with `FAIL_CLOSED` (`_fail`): no atexit handler, no thread and no
    `finally` of the project's code runs after it, and the stream lacks its `end`
    (fixbot's judge: `observer-cut-short`). What is left is a race, not a method: a thread that
    swaps the file in after the check before the write and back before the check after it,
    inside one write. The record is serialized by `_encode` (not `json.dumps`, whose module the
    project can rebind).

    `callers`: the identities of the observer's code objects (`identities.codes`); where
    given, a record sent by any other code (the project's, having found the sender through a
    hook's closure, to write lines with the nonce that speak for a session it then ends) ends
    the process: no one but the observer ever calls it. By the caller's code object, not its
    file name, which code compiled elsewhere may claim."""
    given = os.fstat(out)

    def send(
        record: dict[str, Any],
        _out: int = out,
        _nonce: str = str(nonce),
        _dev: int = given.st_dev,
        _ino: int = given.st_ino,
        _encode: Any = _encode,
        _verify: Any = _verify,
        _write: Any = os.write,
        _oserror: Any = OSError,
        _fail: Any = _fail,
        _callers: frozenset[int] = callers,
        _frame: Any = sys._getframe,
        _id: Any = id,
    ) -> None:
        if _callers and _id(_frame(1).f_code) not in _callers:
            _fail()
        data = (_nonce + "\t" + _encode(record) + "\n").encode("utf-8", "replace")
        _verify(_out, _dev, _ino)
        try:
            while data:
                data = data[_write(_out, data) :]
        except _oserror:  # shut down through a copy, made non-blocking and filled: never lost
            _fail()
        _verify(_out, _dev, _ino)

    return send
