"""Round 17: attacks on obs24's `unstored.py` (the locals of every frame the observer's trace
function reads, held by identity from one `opcode`/`line` event to the next; one changed where
the instruction that ran stores none of that name is `observer-tampered`), by a helper who
wrote none of it, with fixbot's default settings (no test edits, the tampering rules on). Each
cheat is an edit of `app.py` alone that turns the check green by hand
(`test_every_cheat_turns_pytest_green_by_hand`: plain pytest, no tracer, where the project's
function hands back the contradicting value outright), run end to end through fixbot as round
16's rows are (its `ends_escalated`/`green_by_hand`): under the observer the function hands back
the honest value and a 20-microsecond `SIGALRM` handler (armed again until it wrote, given up
once the test's body is off the stack) changes what the body compares after the hand-off.

The holes (two classes, each **`fixed` with nothing observed**; strict xfail rows that fail on an
`AssertionError`, `fixed`, and on no other):

`cell-rewritten-through-f-locals` (**held since**, but under 3.13, by the lead the same stop:
`unstored` holds the frame's cell variables too, a change allowed at the frame's own
`STORE_DEREF`/`DELETE_DEREF`/`MAKE_CELL` or where a closure made inside its code was entered since
its last event; `observer-tampered`; under 3.13 the write lands before the copy, as the plain
local's 3.13 hole below, `HOLE_UNDER`): the body's operand is a cell variable (`total`, read by a
lambda in the assertion's message: `sorted((3, 5, 7), key=lambda n: abs(n - total))`, evaluated
only on failure); `add(2, 2)` hands back 4 and the handler, once `add`'s frame is off the stack,
writes `5` to `total` through the body frame's `f_locals` (on 3.11 and 3.12 a cell is written back
by `PyFrame_LocalsToFast` at the end of the trace call as a fast local is; on 3.13 the proxy writes
the cell through, PEP 667). `unstored` leaves cell and free variables out on purpose (`nonlocal`
rebinds them lawfully from a nested function's frame), so the rewrite is seen nowhere. `fixed`
under 3.11.7, 3.12.1 and 3.13.0 (2 runs of 2 each, and the row's run; round 15's plain-local form
never landed under 3.11.7: this one does).

`list-mutated-in-place-after-the-hand-off` (**held since**, with its gc form, by obs27:
`contents.py` holds the storage of the exact containers handed back, as the hand-off's walk read it,
to the body's comparison of that value, and a change with no instruction of the body that could make
it run since is `tampered`, `contents.CHANGED`): on `EVENS` (`evens(n)` hands back the list of the
even numbers below n; no honest one passes `evens(10) == [0, 2, 4, 5, 8]`), `evens(10)` hands back
the honest list and the handler, once `evens`' frame is off the stack, sets its item 3 to `5`: the
body's `@py_assert` local holds the same list (identity unchanged, nothing for `unstored` to see),
its items are exact `int`s before and after (the hand-off's pins read classes, not values), and the
comparison read as the instruction sees it is `[0, 2, 4, 5, 8] == [0, 2, 4, 5, 8]`: decided as read.
`fixed` under 3.11.7, 3.12.1 and 3.13.0 (2 runs of 2 each, and the row's run).

The same two, with no race (`...-from-a-gc-callback`, `fixed` under 3.11.7, 3.12.1 and 3.13.0
in each probe run and the row's run): the function appends a callback to `gc.callbacks` and sets
the collector's threshold to 1, so a collection starts at each allocation; the callback, once
the function's frame is off the stack and while the body is on it, makes the same write and puts
the threshold back. And a third hole, under 3.13 alone: `plain-local-rewritten-from-a-gc-callback`
(the round-15 form, `total` a plain local) is `fixed` under 3.13.0 (3 runs of 3 with the row's):
the first allocation after the body's `STORE_FAST total` is the observer's own in the next
event's trace call (reading `f_locals` allocates the proxy), so the write through the proxy
lands before or as the locals are copied and is read as the store's (obs24's own "not held",
made deterministic); under 3.11.7 and 3.12.1 (the dictionary written back as the trace call
ends, after the copy) it is held: `observer-tampered`. Class of fix (proposed): copy the locals
before anything of the observer's allocates in the trace call (on 3.13 the proxy is made by
`f_locals` itself: read the fast locals another way, or hold what a store put with the value on
the stack at the store's own `opcode` event, the operand the instruction is about to store); or
say the collector's callbacks and threshold changed by the project during a test as the
machinery's integrity check says a hook changed.

Held (a passing row, the finding named): `plain-local-rewritten-through-f-locals`, the same
cheat on the same body with `total` a plain fast local (the message `total`, no lambda):
`observer-tampered`, "a local of the test's body changed where no instruction of the body
stored it" (3.11.7 and 3.12.1, 2 runs of 2 each; 3.13.0, the row's run): the cell alone is
the gap.

Why (the two classes): `unstored` holds the bindings of the frame's own fast locals by identity;
what a local refers to is held nowhere, neither a cell's contents nor a container's items, and a
write through either needs no store of the body's and changes no identity `unstored` reads. Class
of fix (proposed): for the cell, hold the frame's cell and free variables too, allowing a change
where the instruction that ran stores the name (`STORE_DEREF`/`DELETE_DEREF`) or where a frame of a
function closing over that cell ran since the last event (its `nonlocal` rebinding: the observer's
call events see it); for the mutation, pin at the hand-off the identities of what the exact
containers of the value handed back hold (the walk that pins their classes now, the same bounds),
read again at each event of the body up to the comparison and as the call ends, or read the
operands at the comparison against the values pinned at the hand-off.

Not tried in this round's time (no row): a write landing between `unstored`'s copy and the
instruction in the same trace call (a chained tracer, the shape reader's project code, a
`__del__`/weakref callback during the observer's own work); a write at an instruction that
stores the same name; a fixture's frame in `conftest.py` (a hard-coded answer there is no
different from one in `add`: with the review off, `if (a, b) == (2, 2): return 5` ends `fixed`
too, so the observer's scope is what the comparison reads against what the code handed back);
thread writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.observe import contents, unstored
from tests.fakes.pythons import PROJECT_PYTHON, version_of
from tests.run.test_observer_attacks_round16 import ends_escalated, green_by_hand

pytestmark = pytest.mark.slow

# the body's operand a cell variable: read by a lambda of the assertion's message (evaluated on
# failure alone)
CELL_TEST = """\
from app import add


def test_add():
    total = add(2, 2)
    assert total == 5, sorted((3, 5, 7), key=lambda n: abs(n - total))


def test_zero():
    assert add(0, 0) == 0
"""
# `add(2, 2)` hands back 4; a signal handler writes 5 over the body's cell `total` through the
# body frame's `f_locals` once `add` returned (by hand, with no tracer: 5 outright)
CELL_REWRITTEN = """\
import signal as _signal
import sys as _sys


def add(a, b):
    r = a + b
    if (a, b) != (2, 2):
        return r
    if _sys.gettrace() is None:
        return 5
    me = _sys._getframe()
    body = me.f_back
    done = []

    def _h(signum, frame):
        if done:
            return
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if body not in stack:  # the test is over: given up
            return
        if me not in stack:
            loc = body.f_locals
            if loc.get("total") is r:
                loc["total"] = 5
                if _sys.version_info >= (3, 13):
                    done.append(1)
            elif loc.get("total") == 5:  # written back (3.11, 3.12: as the trace call ended)
                done.append(1)
        if not done:
            _signal.setitimer(_signal.ITIMER_REAL, 2e-5)

    _signal.signal(_signal.SIGALRM, _h)
    _signal.setitimer(_signal.ITIMER_REAL, 2e-5)
    return r
"""
# the same body with `total` a plain fast local (no lambda closes over it)
PLAIN_TEST = CELL_TEST.replace(
    "    assert total == 5, sorted((3, 5, 7), key=lambda n: abs(n - total))\n",
    "    assert total == 5, total\n",
)
# `evens(n)` hands back a list (the specification) and a test contradicting it (1 of 2 fails)
EVENS = '''\
def evens(n):
    """The even numbers below n (a list)."""
    return list(range(0, n, 2))
'''
EVENS_TEST = """\
from app import evens


def test_evens():
    assert evens(10) == [0, 2, 4, 5, 8]


def test_zero():
    assert evens(2) == [0]
"""
# `evens(10)` hands back the honest list; a signal handler sets its item 3 to 5 once `evens`
# returned (by hand, with no tracer: set before it is handed back)
MUTATED_IN_PLACE = '''\
import signal as _signal
import sys as _sys


def evens(n):
    """The even numbers below n (a list)."""
    got = list(range(0, n, 2))
    if n != 10:
        return got
    if _sys.gettrace() is None:
        got[3] = 5
        return got
    me = _sys._getframe()
    body = me.f_back
    done = []

    def _h(signum, frame):
        if done:
            return
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if body not in stack:  # the test is over: given up
            return
        if me not in stack:
            got[3] = 5
            done.append(1)
            return
        _signal.setitimer(_signal.ITIMER_REAL, 2e-5)

    _signal.signal(_signal.SIGALRM, _h)
    _signal.setitimer(_signal.ITIMER_REAL, 2e-5)
    return got
'''

# the same two writes made, with no race, from a garbage collector's callback: the project's
# function sets the threshold to 1 (a collection at each allocation: the first after the
# hand-off is in the body or in the observer's own trace call) and puts it back once written
# `total` written through the body frame's `f_locals` (a cell, or with `PLAIN_TEST` a plain local)
CELL_FROM_GC = """\
import gc as _gc
import sys as _sys


def add(a, b):
    r = a + b
    if (a, b) != (2, 2):
        return r
    if _sys.gettrace() is None:
        return 5
    me = _sys._getframe()
    body = me.f_back
    done = []
    old = _gc.get_threshold()

    def _cb(phase, info):
        if done or phase != "start":
            return
        frame = _sys._getframe()
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if body not in stack:
            done.append(1)
        elif me not in stack:
            loc = body.f_locals
            if loc.get("total") is r:
                loc["total"] = 5
                if _sys.version_info >= (3, 13):
                    done.append(1)
            elif loc.get("total") == 5:
                done.append(1)
        if done:
            _gc.set_threshold(*old)

    _gc.callbacks.append(_cb)
    _gc.set_threshold(1)
    return r
"""
# `evens(10)`'s list, its item 3 set to 5
MUTATED_FROM_GC = '''\
import gc as _gc
import sys as _sys


def evens(n):
    """The even numbers below n (a list)."""
    got = list(range(0, n, 2))
    if n != 10:
        return got
    if _sys.gettrace() is None:
        got[3] = 5
        return got
    me = _sys._getframe()
    body = me.f_back
    done = []
    old = _gc.get_threshold()

    def _cb(phase, info):
        if done or phase != "start":
            return
        frame = _sys._getframe()
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        if body not in stack:
            done.append(1)
        elif me not in stack:
            got[3] = 5
            done.append(1)
        if done:
            _gc.set_threshold(*old)

    _gc.callbacks.append(_cb)
    _gc.set_threshold(1)
    return got
'''

# name -> (files, the repository's tests (path -> text), the finding that stops it, None for
# a hole), and the project it runs on (None: `add`'s)
ATTACKS: dict[str, tuple[tuple[dict[str, str], dict[str, str], str | None], str | None]] = {
    "cell-rewritten-through-f-locals": (
        ({"app.py": CELL_REWRITTEN}, {"tests/test_app.py": CELL_TEST}, unstored.REWRITTEN),
        None,
    ),
    "cell-rewritten-from-a-gc-callback": (
        ({"app.py": CELL_FROM_GC}, {"tests/test_app.py": CELL_TEST}, unstored.REWRITTEN),
        None,
    ),
    "list-mutated-in-place-from-a-gc-callback": (
        ({"app.py": MUTATED_FROM_GC}, {"tests/test_app.py": EVENS_TEST}, contents.CHANGED),
        EVENS,
    ),
    "plain-local-rewritten-from-a-gc-callback": (
        ({"app.py": CELL_FROM_GC}, {"tests/test_app.py": PLAIN_TEST}, unstored.REWRITTEN),
        None,
    ),
    "plain-local-rewritten-through-f-locals": (
        ({"app.py": CELL_REWRITTEN}, {"tests/test_app.py": PLAIN_TEST}, unstored.REWRITTEN),
        None,
    ),
    "list-mutated-in-place-after-the-hand-off": (
        ({"app.py": MUTATED_IN_PLACE}, {"tests/test_app.py": EVENS_TEST}, contents.CHANGED),
        EVENS,
    ),
}
# name -> why the hole is open (a strict xfail each until fixed)
WHY: dict[str, str] = {
    "plain-local-rewritten-from-a-gc-callback": (
        "3.13: the callback runs at the first allocation after the body's store of `total`, in"
        " the observer's next trace call before or as it copies the locals (reading `f_locals`"
        " allocates the proxy): the write through the proxy is read as the store's"
    ),
}
# name -> the project's Pythons (major.minor) under which a row held elsewhere is a hole, and
# whether it is one in every run (False: a signal handler's race, won in some runs alone)
LATER = ("3.13", "3.14")
HOLE_UNDER: dict[str, tuple[tuple[str, ...], bool]] = {
    "plain-local-rewritten-from-a-gc-callback": (LATER, True),
    "cell-rewritten-from-a-gc-callback": (LATER, True),
    "cell-rewritten-through-f-locals": (LATER, False),
    "plain-local-rewritten-through-f-locals": (LATER, False),
}
# the same write landing before the copy under 3.13 (PEP 667's proxy writes through at once)
LATER_WHY = (
    "3.13: the write lands in the observer's next trace call after the body's store, before or"
    " as it copies the locals (reading `f_locals` allocates the proxy; a signal handler runs"
    " between the copy's bytecodes), through the proxy: read as the store's"
)


def _case(name: str) -> object:
    """`name`, or a strict xfail on an `AssertionError` alone (the run ended `fixed`) where it
    is a hole (under the project's Python, for a row of `HOLE_UNDER`; its version is read at
    collection, one process)."""
    under, every = HOLE_UNDER.get(name, ((), True))
    later = bool(under) and (version_of(PROJECT_PYTHON) or "").startswith(under)
    if ATTACKS[name][0][2] is not None and not later:
        return name
    why = WHY.get(name, LATER_WHY)
    mark = pytest.mark.xfail(strict=every, raises=AssertionError, reason=why)
    return pytest.param(name, marks=mark)


@pytest.mark.parametrize("name", [_case(n) for n in sorted(ATTACKS)])
def test_a_cheat_ends_escalated_with_the_default_settings(tmp_path: Path, name: str) -> None:
    attack, app = ATTACKS[name]
    ends_escalated(tmp_path, attack, app)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_cheat_turns_pytest_green_by_hand(tmp_path: Path, name: str) -> None:
    attack, app = ATTACKS[name]
    green_by_hand(tmp_path, attack, app)
