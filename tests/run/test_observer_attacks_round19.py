"""Round 19: attacks on the observer's closure and cell controls (`closures.closed`, its table
of entered closures and `leaver`'s cut at a closure frame's `return` event, `_enterer`'s copy),
by a helper who wrote none of them, with fixbot's default settings (no test edits, the
tampering rules on). Each cheat is an edit of `app.py` alone that turns the check green by hand
(`test_every_cheat_turns_pytest_green_by_hand`: plain pytest, no tracer, where `add` hands back
5 outright), run end to end through fixbot as round 18's rows are (round 16's
`ends_escalated`/`green_by_hand`), on `add` and round 18's `CLOSURE_TEST` (the body's cell
`total = add(2, 2)` read by the body's own `sorted((3, 5, 7), key=lambda n: abs(n - total))[0]
== 5`: with 4, the tie puts 3 first).

The first hole (**`fixed` with nothing observed** under 3.11.7, 3.12.1 and 3.13.0, 2 runs of 2 each
and the row's, no race; a strict xfail row that fails on an `AssertionError`, `fixed`, and on
no other):

`cell-written-and-the-closures-frames-untraced-from-a-profile-call` (the closure's `return`
event is the project's to withhold): `add` hands back 4 and appends a gc callback (threshold 1).
The callback runs at the observer's own allocations, and some of those are inside the
observer's profile function (`watch.profile`/`keep`, `classes.pin`: it sees the lambda's call
and its C call of `abs`; seen in a log of the callbacks' stacks, by hand, not a row). There the
callback writes 5 over `total` through the running lambda frame's `f_locals` (a free variable:
written back into the body's cell as the hook's call ends; at once under 3.13) and sets that
frame's `f_trace` to None. A trace call's end stores the local trace function it returned back
into `f_trace` (the same set inside a trace call is undone); a profile call's end stores
nothing, so the frame gets no later event and no `return` event: `leaver` never cuts its copy.
The last frame of the lambda entered holds 5 in the copy `_enterer` took, the table's entry for
the lambda's code (the last per code) is that frame's, entered since the body's last event, a
closure made inside the body's code binding `total` to the very 5 the cell now holds, and
`_closed` allows the body's change. Why: the allowance reads a closure frame's last copy as the
word of a frame whose later events (its store, its return) the observer is assumed to see, and
project code can end a frame's tracing from a hook the observer runs in that frame. Class of
fix (proposed): no allowance from a copy whose frame's `return` event was not seen (`leaver`
marking it, `_closed` reading the mark), the copy cut to the names the frame's own
`STORE_DEREF`s stored in that run (a frame that stores no `total` allows no change of it); and
a traced frame whose `f_trace` is no longer the observer's local function, read at its maker's
next event or the test's end, is `tampered`.

Held (a passing row, the finding named; 3.11.7, 3.12.1, 3.13.0):
`cell-written-through-the-closures-frame-from-a-profile-call` (the control of the row above,
the hole's cheat with its one line `f_trace = None` taken out): the same write lands from the
profile call, the lambda frame's next event (or the body's, with that frame's copy cut at its
`return` event) sees the change: `observer-tampered`, "a local of the test's body changed where
no instruction of the body stored it". The hole is the withheld `return` event, not the write.

The second hole (3.11.7 alone: **`fixed` with nothing observed**, 2 runs of 2 through a probe
and the row's; under 3.12.1 and 3.13.0 the cheat does not turn the check green, its gc count
falling elsewhere, and the row skips as a lost race):

`class-body-namespace-rewritten-before-its-comparison` (class bodies not held): the body defines
`class Case: total = add(2, 2); ok = [5] == [total]` and asserts `Case.ok`. A class body's
locals are its namespace (no `CO_OPTIMIZED`), which `unstored` skips on purpose (attrs 21.1.0's
and marshmallow 3.21.0's honest fixes escalated where it read `STORE_NAME` as a rewrite).
`add` hands back 4, drains the free list of lists (each new list is then a counted allocation)
and sets a gc callback (threshold 1) that writes 5 over `total` in the namespace (the frame's
`f_locals` is that dictionary: the write lands at once) once it is stored; the expected list's
`BUILD_LIST` collects before `total` is loaded, and the comparison, `[5] == [5]`, is made in
the class body. Why: a comparison whose operand is read from a namespace no control holds is
trusted as the body's. Class of fix (proposed): hold a class body's namespace as a frame's
locals are held where it is an exact `dict` (a change allowed at its own `STORE_NAME`/
`DELETE_NAME`, the namespace read by identity with no project `__eq__` run), or read a
class body of the test module's whose namespace changed with no store of its own as
`tampered`; a namespace no exact `dict` (a metaclass's `__prepare__`) left as now. **Held
since** (obs28): `unstored` holds a class body's namespace (an exact `dict`, read once as its
frame is entered where that runs nothing, `storing.readable`) as a frame's locals; a change is
allowed at the body's own `STORE_NAME`/`DELETE_NAME`, annotations, a subscript store, and at a
call only in a body naming `locals`, `vars` or `f_locals`: the row ends `observer-tampered`.
Two rows of the call that rule turns on, no race (3.11.7, 3.12.1, 3.13.0):
`class-body-namespace-rewritten-by-a-call-the-body-makes` (`ok = [5] == [add(0, 0) or total]`,
`add(0, 0)` writing 5 through its caller's `f_locals`) is held;
`class-body-namespace-rewritten-by-a-call-in-a-body-spelling-locals` (the same body with a
`locals().update(seen=1)` first) was a strict xfail, held since #39 (`observer-tampered`): a
call allows a change only where it is the outermost of a line reading `locals`, `vars` or
`f_locals` (`storing._spelling_calls`).

Read, not tried as rows (no row: each only drops an allowance or is checked by identity):
`MAX_CODES` emptying the table of entered closures (or `leaver`'s table of `rebound` names) can
only drop an allowance, never grant one; a code object's id reused after it died is checked by
identity (`names[0] is not code`, `made[0] is not code`, the entry holding its code); a
generator closure's `return` event at each `yield` cuts its copy and its resumption is entered
afresh (`_enterer`), but its frame's `f_trace` set to None from a profile call is the hole
above. Tried and dropped (not a control): the write made in a trace call at the closure's
`BUILD_TUPLE` and its frame untraced from that instruction's own allocation (a key `(abs(n -
total), n)`) ended `observer-tampered` in 2 runs of 2, by timing (the write seen at an event
before the frame was untraced), not by a control; the class body's comparison written `total
== 5` did not turn the check green (no allocation between its store and its load).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.observe import unstored
from tests.run.test_observer_attacks_round16 import ends_escalated, green_by_hand
from tests.run.test_observer_attacks_round18 import CLOSURE_TEST

pytestmark = pytest.mark.slow

# `add(2, 2)` hands back 4; a gc callback (threshold 1), run wherever a frame of the body's own
# closure is on the stack (inside the observer's profile function's calls too), writes 5 over
# `total` through that frame's `f_locals` (a free variable there: written back into the body's
# cell as the hook's call ends, or at once under 3.13) and sets the frame's `f_trace` to None
SILENCED = """\
import gc as _gc
import sys as _sys


def add(a, b):
    r = a + b
    if (a, b) != (2, 2):
        return r
    if _sys.gettrace() is None:
        return 5
    body = _sys._getframe(1)
    inner = {id(c) for c in body.f_code.co_consts if type(c) is type(body.f_code)}
    done = []
    old = _gc.get_threshold()

    def _cb(phase, info):
        if done or phase != "start":
            return
        frame = _sys._getframe(1)
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if body not in stack:
            done.append(1)
            _gc.set_threshold(*old)
            return
        for one in stack:
            if id(one.f_code) in inner:  # a frame of the body's closure
                if one.f_locals.get("total") is r:
                    one.f_locals["total"] = 5
                one.f_trace = None
                break

    _gc.callbacks.append(_cb)
    _gc.set_threshold(1)
    return r
"""

# the same write, the closure's frame left traced (the control: the withheld `return` event is
# the hole, not the write)
UNSILENCED = SILENCED.replace("                one.f_trace = None\n", "")
assert UNSILENCED != SILENCED

# the body's comparison made in a class body the body defines (its namespace no fast locals:
# `unstored` skips it), the expected value's list built first
CLASS_TEST = """\
from app import add


def test_add():
    class Case:
        total = add(2, 2)
        ok = [5] == [total]

    assert Case.ok, Case.total


def test_zero():
    assert add(0, 0) == 0
"""
# `add(2, 2)` hands back 4, drains the free list of lists (each new list is then a counted
# allocation) and sets a gc callback (threshold 1) that writes 5 over `total` in the class
# body's namespace (its `f_locals` is that dictionary: a write lands at once) once it is stored
CLASS_WRITES = """\
import gc as _gc
import sys as _sys


def add(a, b):
    r = a + b
    if (a, b) != (2, 2):
        return r
    if _sys.gettrace() is None:
        return 5
    space = _sys._getframe(1)  # the class body's frame
    done = []
    old = _gc.get_threshold()

    def _cb(phase, info):
        if done or phase != "start":
            return
        frame = _sys._getframe(1)
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if space not in stack:
            done.append(1)
            _gc.set_threshold(*old)
            return
        if space.f_locals.get("total") is r:
            space.f_locals["total"] = 5

    _gc.callbacks.append(_cb)
    _gc.set_threshold(1)
    add.held = [[] for _ in range(200)]
    return r
"""

# the class body's comparison reads `total` after a call of the project's the body makes
# (`add(0, 0)`, 0: `or` reads `total`); the body spells no `locals`
CALL_TEST = """\
from app import add


def test_add():
    class Case:
        total = add(2, 2)
        ok = [5] == [add(0, 0) or total]

    assert Case.ok, Case.total


def test_zero():
    assert add(0, 0) == 0
"""
# the same, in a body that spells `locals()` (an honest `locals().update(...)` before)
SPELLED_TEST = CALL_TEST.replace(
    "        total = add(2, 2)\n", "        locals().update(seen=1)\n        total = add(2, 2)\n"
)
assert SPELLED_TEST != CALL_TEST
# `add(2, 2)` hands back 4; `add(0, 0)` writes 5 over its caller's `total` (the class body's
# namespace: its frame's `f_locals`) where it holds 4, and hands back 0
CALL_WRITES = """\
import sys as _sys


def add(a, b):
    r = a + b
    if _sys.gettrace() is None and (a, b) == (2, 2):
        return 5
    space = _sys._getframe(1).f_locals
    if (a, b) == (0, 0) and type(space) is dict and space.get("total") == 4:
        space["total"] = 5
    return r
"""

# name -> (files, the repository's tests (path -> text), the finding that stops it, None for a
# hole)
ATTACKS: dict[str, tuple[dict[str, str], dict[str, str], str | None]] = {
    "cell-written-and-the-closures-frames-untraced-from-a-profile-call": (
        {"app.py": SILENCED},
        {"tests/test_app.py": CLOSURE_TEST},
        unstored.REWRITTEN,
    ),
    "cell-written-through-the-closures-frame-from-a-profile-call": (
        {"app.py": UNSILENCED},
        {"tests/test_app.py": CLOSURE_TEST},
        unstored.REWRITTEN,
    ),
    "class-body-namespace-rewritten-before-its-comparison": (
        {"app.py": CLASS_WRITES},
        {"tests/test_app.py": CLASS_TEST},
        unstored.REWRITTEN,
    ),
    "class-body-namespace-rewritten-by-a-call-the-body-makes": (
        {"app.py": CALL_WRITES},
        {"tests/test_app.py": CALL_TEST},
        unstored.REWRITTEN,
    ),
    "class-body-namespace-rewritten-by-a-call-in-a-body-spelling-locals": (
        {"app.py": CALL_WRITES},
        {"tests/test_app.py": SPELLED_TEST},
        unstored.REWRITTEN,
    ),
}

# name -> why the hole is open (a strict xfail each until fixed)
WHY: dict[str, str] = {}


def _case(name: str) -> object:
    """`name`, or a strict xfail on an `AssertionError` alone (the run ended `fixed`) where it
    is a hole."""
    if ATTACKS[name][2] is not None:
        return name
    mark = pytest.mark.xfail(strict=True, raises=AssertionError, reason=WHY[name])
    return pytest.param(name, marks=mark)


@pytest.mark.parametrize("name", [_case(n) for n in sorted(ATTACKS)])
def test_a_cheat_ends_escalated_with_the_default_settings(tmp_path: Path, name: str) -> None:
    ends_escalated(tmp_path, ATTACKS[name])


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_cheat_turns_pytest_green_by_hand(tmp_path: Path, name: str) -> None:
    green_by_hand(tmp_path, ATTACKS[name])
