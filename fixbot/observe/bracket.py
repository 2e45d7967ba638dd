"""The body's locals around each call a watched test's body makes, on Python 3.13 and later
(`bracket`, called by the observer's profile function, `watch.py`): there a frame's `f_locals`
writes through to the frame (PEP 667), and a frame is found with `sys._getframe`, which raises
no audit event, so the code the body calls can rebind the body's `expected` to what it
returned; before 3.13 that took a trace function or `ctypes`, which the observer sees set or
called.

Copied beside the plugin as `<module>_bracket` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone; what its functions use is held
as positional defaults, made once at load (the code under test gets the profile function back
from `sys.getprofile()` and can reach a closure cell).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

# Python 3.13 and later: a frame's `f_locals` writes through to the frame (PEP 667), so code the
# test's body calls can rebind the body's locals (`sys._getframe(1).f_locals["expected"] = 4`)
# with no trace function and no audit event; before, the write was lost unless a trace function
# was set (which the observer notes) or C was called through `ctypes` (which its audit hook does)
WRITABLE = sys.version_info >= (3, 13)


def bracket(send: Callable[[dict[str, Any]], None]) -> Callable[..., None]:
    """`bracket(frame, event, target, notes, test)`: around each call the test's body makes
    (a frame whose caller runs the body's code `target`), the body's locals by identity as the
    callee began, and as it returned (or unwound) compared with them: a local rebound while
    the body waited for its callee is streamed as tampering (`{"k": "tampered", ...}`, once
    per call). A cell variable is not compared (a closure's `nonlocal` rebinds it lawfully)."""

    def bracket(
        frame: Any,
        event: str,
        target: Any,
        notes: dict[str, Any],
        test: str,
        _send: Callable[[dict[str, Any]], None] = send,
        _id: Any = id,
        _len: Any = len,
        _range: Any = range,
        _snap: Any = _locals_of,
    ) -> None:
        callees = notes["callees"]
        if event == "call":
            back = frame.f_back
            if back is not None and back.f_code is target:
                callees[_id(frame)] = (frame, back, _snap(back, target))
            return
        if event != "return" or _id(frame) not in callees:
            return
        held, back, before = callees.pop(_id(frame))
        if held is not frame:
            return
        after = _snap(back, target)
        same = _len(after) == _len(before)
        for index in _range(_len(before) if same else 0):
            same = same and after[index][0] is before[index][0]
            same = same and after[index][1] is before[index][1]
        if not same and not notes["rebound"]:
            notes["rebound"] = True
            what = "code the test's body called rebound the body's locals"
            _send({"k": "tampered", "id": test, "what": what})

    return bracket


def _locals_of(
    frame: Any,
    code: Any,
    _list: Any = list,
    _append: Any = list.append,
    _type: Any = type,
    _str: Any = str,
) -> list[tuple[Any, Any]]:
    """A frame's locals as (name, value) pairs, its cell variables (`code`'s) left out: read
    through the frame's own `f_locals` (a C proxy, or a dict before 3.13) and compared as
    exact strs, so that no project code runs (a key of another type, which only a write
    through the proxy can add, is kept and compared by identity)."""
    cells = code.co_cellvars + code.co_freevars
    out: list[tuple[Any, Any]] = []
    for name, value in _list(frame.f_locals.items()):
        if _type(name) is not _str or name not in cells:
            _append(out, (name, value))
    return out
