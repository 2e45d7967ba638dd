"""The observer's profile function: one function, made once at load, set for each watched
test's call phase (`fixbot.observe.pytest_plugin`), that notes what the call did and streams
each comparison as it sees it run.

Copied beside the plugin as `<module>_watch` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.

Why one function made at load, holding everything it uses as positional defaults: the code
under test gets the profile function back from `sys.getprofile()` while its call runs, and
whatever the function keeps in a closure cell or finds through its module's globals (its
`__globals__`, which no audit event guards) is the code under test's to swap: a dict of
comparisons swapped for one that forgets, a helper rebound to one that does nothing. Its
defaults are read only through `__defaults__` (an audit event: the observer's audit hook,
`reach.py`, streams such a read of an observer function, and ends the process on a write).

Why it streams each comparison when it sees it (`saw`), rather than only leaving a note to be
judged when the call ends: whatever holds the notes once the call ends (the plugin's hook, whose
frame is reachable from the test's while the probes run the project's `__eq__`) can be emptied
by code under test, which then leaves nothing to judge. A `saw` record is out before any code
of the project's runs again; fixbot pairs each with the judgement the plugin streams when the
call ends (an `eq` record of the same test, file, line and dunder), and one never judged is
tampering.

Why it runs none of the project's code: code the profile function runs (a metaclass's
`__mro__` property, a dict subclass's `values`, an `isinstance` that reads `__class__`) could
take the profile function's frame (`sys._getframe(1)`) and with it what it holds. So it reads
types, class dictionaries and frames through the C accessors that no class overrides
(`type.__dict__["__mro__"]`, `type.__dict__["__dict__"]`, a frame's `f_locals`), and keeps
what the project's code handed back to the test's body to be asked about after the call
(`calls.settle`), when no profile function runs.

Why, on Python 3.13 and later, it compares the body's locals around each call the body makes
(`bracket.py`, a part of its own): there a frame's `f_locals` writes through to the frame (PEP
667), and a frame is found with `sys._getframe`, which raises no audit event, so the code the
body calls can rebind the body's `expected` to what it returned; before 3.13 that took a trace
function or `ctypes`, which the observer sees set or called.

Its control events (`frame` None): `begin` with the call's (test id, the body's code, the
body's globals, the rootdir with a trailing `/`) starts a call's notes; `end` closes them and
returns them (`ran`, `returned`, `raised`: the body entered, an outermost entry returned or
raised; `types`: `{(id(type), dunder): (type, dunder, instance, function)}`, `against`:
`{(id(type), dunder): int or float compared with}`, `handed`: the values handed back to the
body, for `calls.settle`; `pins` and `aliased`: at every hand-off, the objects of classes made
at run time among the value and its items, pinned with their class, and those classes'
comparison slots that no frame runs, `classes.pinner`; `swapped`: the pinned objects whose
class changed by the end, read at `end` before any code of the project's runs again;
`feeders` and `unread`: the body's calls whose result a comparison takes from the stack, read
nowhere, and whether one handed it a container holding an object of a class made at run time,
streamed as `tampered` at the hand-off; `owed`: the objects of such classes one handed it,
until their class's own comparison runs for them from the body's comparison, `unread.py`). It
answers them for the observer's own code alone (its code objects, by identity), as the sender
does.
"""

from __future__ import annotations

import dis
import importlib
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_watch`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


classes = _sibling("classes")  # what it reads of a class, a value, a frame
unread = _sibling("unread")  # the comparisons fed a call's result on the stack (round 16)
locals_bracket = _sibling("bracket")  # the body's locals around each call it makes (3.13+)
contents = _sibling("contents")  # the containers handed back, held to the comparison (round 17)
dunders = _sibling("dunders")  # the comparison dunders seen run, and what they answered
WRITABLE = locals_bracket.WRITABLE  # a frame's `f_locals` writes through (3.13 and later)
COMPARISONS = classes.COMPARISONS
WATCHED = frozenset((*COMPARISONS, "<lambda>", "__bool__"))
# distinct comparisons (code, type) streamed per watched test, and distinct values (the code
# that returned one, its type, its callee's type) handed back to its body kept to be asked
# about: past either, `full` (a finding: the start's run watches no test, and a real test
# comes nowhere near; toolz's introspection of every builtin module passed 20 and 200)
MAX_SAW = 2000
MAX_HANDED = 2000
# what is pinned of each value handed back (`classes.pinner`): the objects of classes made at
# run time and container subclasses it opens, each once, and how deep (an exact container
# costs its items, `holds.MAX_READ` listed at most); past either with one left unopened, `full`
# (no honest value is cut by depth first: a chain is no deeper than its objects). 20,000: a
# parser's tree of 2,000 tokens whose nodes point at their parents (2,200 objects) is whole, a
# walk costs about 3 microseconds an object (a tree of 22,000 about 0.2 s a hand-off)
MAX_ITEMS = 20_000
MAX_DEPTH = 1000
# How a frame's code left it, by the instruction it stopped at (a profile function's `return`
# event comes for a return, a suspension at `yield`/`await`, and an exception unwinding it
# alike, with None for the last): a return, a suspension, else an exception raised out of it.
RETURNS = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST") if n in dis.opmap)
SUSPENDS = frozenset(dis.opmap[n] for n in ("YIELD_VALUE", "YIELD_FROM", "SEND") if n in dis.opmap)


def watcher(
    send: Callable[[dict[str, Any]], None], callers: frozenset[int]
) -> Callable[[Any, str, Any], Any]:
    """The observer's profile function (`profile(frame, event, arg)`), made once: it streams
    through `send` a `saw` record (`{"k": "saw", "id": test, "file": f, "line": n, "type":
    qualname, "dunder": d}`) per comparison dunder (`__eq__`, `__ne__`, `__bool__`, or a lambda
    standing as one) of a Python type the watched test's call runs, the first time each (code,
    type) runs (at most `MAX_SAW`), where its code's file is under the rootdir or built at run
    time (`<string>`); and notes, for the control event `end` to return, whether the body's code
    was entered and how it left, the comparisons and the values handed back to the body.
    `callers` are the identities of the observer's code objects, the only callers whose control
    events it answers."""
    box: list[Any] = [None]  # the running call's notes, held by these functions alone
    control = _control(box, callers)
    left = _left()
    compared = dunders.compared(send, MAX_SAW)
    said = dunders.answered(send)
    keep = _keeper(send)
    bracket = locals_bracket.bracket(send)

    def profile(
        frame: Any,
        event: str,
        arg: Any,
        _box: list[Any] = box,
        _control: Any = control,
        _left: Any = left,
        _compared: Any = compared,
        _said: Any = said,
        _keep: Any = keep,
        _bracket: Any = bracket,
        _writable: bool = WRITABLE,
        _id: Any = id,
        _type: Any = type,
        _frame: Any = FrameType,
        _str: Any = str,
        _watched: frozenset[str] = WATCHED,
    ) -> Any:
        if frame is None:  # a control event: the observer's own code alone
            return _control(event, arg)
        call = _box[0]
        if call is None or _type(frame) is not _frame:  # no call watched; not a frame
            return None
        test, target, namespace, notes, root, saw = call
        code = frame.f_code
        if _writable:  # a callee of the body's may rebind its locals (Python 3.13 and later)
            _bracket(frame, event, target, notes, test)
        if event == "return" and code is target:  # the body left: how
            _left(frame, notes, namespace)
        elif event == "return":  # a value handed to the test's body: asked about after the call
            if notes["pending"]:  # a comparison streamed as it began: what it answered
                _said(frame, arg, test, notes["pending"])
            back = frame.f_back
            if back is not None and back.f_code is target and arg is not None:
                _keep(frame, code, arg, back, notes, test)
        elif event == "call":
            if code is target:
                notes["ran"] = True
                notes["depth"] += 1
            # every call of the test's comes here: the cheap tests first (a comparison dunder
            # may have any name: `__eq__ = _eq`; one of a value handed to the body is known)
            name = code.co_name
            if (_type(name) is _str and name in _watched) or _id(code) in notes["codes"]:
                _compared(frame, code, test, notes, root, saw)
        return None

    return profile


def _keeper(send: Callable[[dict[str, Any]], None]) -> Callable[..., None]:
    """`keep(frame, code, arg, back, notes, test)`: keep a value `arg` the code `code` handed
    back to the body (`back`'s frame) to be asked about after the call, one per (that code,
    the value's type, its callee's type: a loop adds none), and learn its type's comparison
    dunders; past `MAX_HANDED` of them a `full` record says the rest went unasked."""
    learn = classes.learner(MAX_SAW)
    pin = classes.pinner(MAX_ITEMS, MAX_DEPTH, MAX_HANDED)
    made = unread.made_reader(MAX_ITEMS, MAX_DEPTH)

    def keep(
        frame: Any,
        code: Any,
        arg: Any,
        back: Any,
        notes: dict[str, Any],
        test: str,
        _send: Callable[[dict[str, Any]], None] = send,
        _learn: Any = learn,
        _pin: Any = pin,
        _hold: Any = contents.HOLD,
        _made: Any = made,
        _type: Any = type,
        _id: Any = id,
        _len: Any = len,
        _max: int = MAX_HANDED,
        _unread: str = unread.UNREAD,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE
    ) -> None:
        stored: list[Any] = []  # its exact containers' storage, as the walk read it
        if not _pin(arg, code, notes, stored) and not notes["full"]:  # every hand-off: pinned
            notes["full"] = True
            _send({"k": "full", "id": test})
        _hold(arg, back, stored)  # held to the body's comparison (`contents.py`)
        # a comparison's operand left on the stack by this call: read nowhere (round 16); an
        # object of a class made at run time is owed the run of its class's own Python
        # comparison from the body's comparison (`unread.settler`), else unverified
        if not notes["unread"] and back.f_lasti in notes["feeders"] and _made(arg):
            if _flags(_type(arg)) & _heap:
                notes["owed"][_id(arg)] = (arg, _type(arg))  # held: its id is not reused
            else:  # a container holding one: its items are compared in C
                notes["unread"] = True
                _send({"k": "tampered", "id": test, "what": _unread})
        names = code.co_varnames
        callee = frame.f_locals.get(names[0]) if code.co_argcount else None
        key = (_id(code), _id(_type(arg)), _id(_type(callee)))
        if key in notes["kept"]:
            return
        if _len(notes["handed"]) >= _max:
            if not notes["full"]:
                notes["full"] = True
                _send({"k": "full", "id": test})
            return
        notes["kept"].add(key)  # the types stay alive in `handed`: their ids are not reused
        notes["handed"].append((code, arg, callee, back.f_globals))
        _learn(arg, notes["codes"])

    return keep


def _control(box: list[Any], callers: frozenset[int]) -> Callable[[str, Any], Any]:
    """The profile function's control events, answered for the observer's code alone (the
    frame that called the profile function runs one of `callers`)."""

    def control(
        event: str,
        arg: Any,
        _box: list[Any] = box,
        _callers: frozenset[int] = callers,
        _getframe: Any = sys._getframe,
        _id: Any = id,
        _set: Any = set,
        _swapped: Any = classes.swapped,
        _feeders: Any = unread.feeders,
        _comparisons: Any = unread.comparisons,
        _unread: str = unread.UNREAD,
    ) -> Any:
        if _id(_getframe(2).f_code) not in _callers:
            return None
        if event == "begin":
            test, target, namespace, root = arg
            notes: dict[str, Any] = {"ran": False, "depth": 0, "returned": False}
            notes.update(raised=False, types={}, against={}, handed=[], full=False, pending={})
            notes["codes"] = _set()  # the comparison dunders of values handed to the body
            notes["kept"] = _set()  # (code, value's type, callee's type) of the values kept
            notes["callees"] = {}  # the body's locals as each of its running callees began
            notes["rebound"] = False  # a rebinding of the body's locals was streamed
            notes["pins"] = {}  # (code, class) -> (an object handed back, its class then)
            notes["aliased"] = {}  # its classes' slots no frame runs (`classes.pinner`)
            notes["feeders"] = _feeders(target)  # calls whose result a comparison takes
            notes["unread"] = False  # such a result of a class made at run time was streamed
            notes["owed"] = {}  # such objects owed their class's own comparison (`settler`)
            notes["unsettled"] = _unread  # what is said where one is owed as the call ends
            notes["compares"] = _comparisons(target)  # the body's comparisons' offsets
            notes["body"] = target
            _box[0] = (test, target, namespace, notes, root, _set())
            return None
        if event == "end":
            held, _box[0] = _box[0], None
            if held is None:
                return None
            held[3]["swapped"] = _swapped(held[3]["pins"])  # before any code of the project's
            return held[3]
        return None

    return control


def _left() -> Callable[[Any, dict[str, Any], Any], None]:
    """How an entry of the body left it, from the instruction its frame stopped at: an entry
    made while another entry of the body still runs (the code under test calling the test's
    function again, to return the one value that passes) is not how the test's call went, so
    only the outermost counts (hypothesis' entries follow one another, each the outermost);
    and only in the test module's own globals (`namespace`: a copy of the body's code made to
    run against other globals is not the test)."""

    def left(
        frame: Any,
        notes: dict[str, Any],
        namespace: Any,
        _len: Any = len,
        _returns: frozenset[int] = RETURNS,
        _suspends: frozenset[int] = SUSPENDS,
    ) -> None:
        notes["depth"] -= 1
        raw = frame.f_code.co_code
        at = frame.f_lasti
        op = raw[at] if 0 <= at < _len(raw) else -1
        how = "returned" if op in _returns else None if op in _suspends else "raised"
        ours = namespace is None or frame.f_globals is namespace
        if how is not None and ours and notes["depth"] == 0:
            notes[how] = True

    return left
