"""Round 18: attacks on this stop's new observer controls (obs25's `holds.py` walk for
`classes.pinner`, its bounds and `full`; the lead's cell handling in `unstored.py`, `_closed`
and `entered`; the start's excuse of a cut), by a helper who wrote none of them, with fixbot's
default settings (no test edits, the tampering rules on). Each cheat is an edit of `app.py`
alone that turns the check green by hand (`test_every_cheat_turns_pytest_green_by_hand`: plain
pytest, no tracer, where the project's function hands back the contradicting value outright or
round 14's told object compares equal), run end to end through fixbot as round 17's rows are
(round 16's `ends_escalated`/`green_by_hand`), on `add`, on round 16's `RESULT` (`evens(10)`
hands back an `Evens` whose `found` is the list, compared in unittest's `assertEqual`) or on
round 17's `EVENS` (the list itself).

The holes (two classes, each **`fixed` with nothing observed** under 3.11.7, 3.12.1 and 3.13.0,
no race; strict xfail rows that fail on an `AssertionError`, `fixed`, and on no other):

`cell-rewritten-in-the-bodys-closure-as-it-runs` (**held since**, by the lead the same stop:
a frame's free variables are held as its cells are, a change allowed where the frame's own
instruction stores the name or where another closure over it, entered since, bound it in its
own last copy to the very object now there (`closures.closed`); a frame's locals are copied as
the trace function enters it, so a write landing as that trace call ends is seen at its first
event: `observer-tampered`. Under 3.13 that alone was round 17's hole (the write, through the
proxy, lands in the cell before the lambda's next copy, which then binds `5`: allowed); held
there too since 244040e (bisected under 3.13.0: 59fa080 and 2205171 strict xfails, 244040e on):
`closures.leaver` cuts a closure's copy at its frame's `return` event to the free variables
its code rebinds, and the lambda rebinds none, so no copy of its binds `total` when the body's
next event reads the change: `observer-tampered`, the finding named, under 3.11.7, 3.12.1 and
3.13.0; with the cut taken out, 3.13.0 ends `fixed` again, 2 runs of 2) (the cell allowance):
the body's `total = add(2, 2)` is a cell variable read by a closure the body runs before its
comparison (`assert sorted((3, 5, 7), key=lambda n: abs(n - total))[0] == 5`: with 4 the tie
puts 3 first). `add`
hands back 4 and appends a gc callback with the threshold at 1 (a collection at each
allocation); the callback, once `add` returned and while a frame of the body's own lambda (its
code one of the body code's `co_consts`) is on the stack, writes `5` to `total` through that
frame's `f_locals` (a free variable there: 3.11 and 3.12 write the cell back as the lambda
frame's trace call ends, 3.13's proxy writes it through). The lambda's frame leaves its free
variables out of `unstored` on purpose (its maker's cells); the body's frame sees its cell
changed, but a frame of code made inside the body's, closing over `total`, was entered since
its last event (`closures.closed`: read as a `nonlocal`), so the change is allowed; the key
now says 5 is nearest and the comparison, made in the body, passes as read. Why: the allowance
asks whether a closure over the name ran, not whether it stored the name, and the closure's own
frame holds its free variables nowhere. Class of fix (proposed): hold a frame's free variables
as its cell variables are held, a change allowed at that frame's own `STORE_DEREF`/
`DELETE_DEREF` (or where a closure nested in it ran, the same rule a level down), and allow the
body's cell to change only where a frame closing over it stored it (the nested frame's store
of that name seen at its `opcode` event and marked for the body's `held`), not where one ran.

`told-item-in-an-attribute-of-a-class-keyed-by-no-str-compared-in-unittest` (the walk's
silent stop): round 16's told object in `found` (the row round 16 holds), with the `Evens`
handed back made an object of `type('Evens', (Evens,), {0: 0})`, a subclass whose own
dictionary holds the key `0`. `holds.layout_reader` answers None for a class keyed by no `str`
(asking a name there could run a key's `__eq__`), so `opener` reads none of the object's
attributes and `class_values_reader` none of its classes' values, and the walk goes on with
nothing said: not cut, not `full`, no finding (`slot_reader`'s `tampered` is for a class the
observer saw compared; nothing compares the `Evens`). The told object is never pinned and its
C `__eq__` has deleted itself by the call's end. Why: a class the walk cannot read is skipped as
one with nothing to read. Class of fix (proposed): where `layout_reader` or
`class_values_reader` meets a key no `str` in a class made at run time that it was to open,
say so: `tampered` (no honest class holds one: a namespace handed to `type()` by code) or at
least a cut (`full`: `observer-overflow`); the same for a container subclass's class.

Held (passing rows, the finding named; 3.11.7, 3.12.1, 3.13.0 but where said):
`told-item-past-a-cut-the-start-made-too` (the start's excuse): the test's value is cut at the
start too (`evens(300_000)`: 150,000 ints, `holds.MAX_READ` listed, the walk cut) and `evens`
plants the told object as the last item, past the cut, compared in unittest's
`assertEqual(evens(300_000)[-1], 299_999)`. The start's run watches no test, so it never says
`full` (`watch.py`'s `MAX_HANDED` note) and the excuse never applies: `observer-overflow`,
"compared or got back more of the project's values than the observer keeps (the start's run did
not)". No data of the test's can make the start's run cut (an honest test this large is a false
alarm, `observer-overflow`: a human looks).
`told-item-behind-a-decoy-of-its-class-compared-in-unittest` (one pin per (returning code,
class)): an honest object of the told class set as an attribute after `found` is taken first by
the walk's stack and holds the pin, so the told object of the same class is not pinned; but
pinning the decoy counts the class's C `__eq__` (`aliased_reader`): `observer-always-equal`,
"whose `__eq__` ... is a staticmethod, which no profile function sees run" (a told class whose
slot is set only after the hand-off, behind such a decoy: not tried; a swap after the pin is
round 16's open class already).

`cell-rewritten-after-a-closure-of-its-own-made-from-the-bodys-code` (the allowance by code
identity): on round 17's `CELL_TEST` (the lambda runs only on failure), round 17's gc callback
first runs a closure of its own made from the body's nested code object
(`types.FunctionType(code, {...}, None, None, (CellType(0),))`, a cell of its own) and then
writes `5` through the body frame's `f_locals`: `observer-tampered`, "a local of the test's
body changed where no instruction of the body stored it" under 3.11.7 and 3.12.1 (2 runs of 2
and the row's). Why it holds (read from the code, not traced): to count, the closure must be
entered between the write's landing (the end of one of the body's trace calls) and the body's
next event, where no code runs unless an instruction of the body allocates (none from the store
to the comparison here), and a call made inside a trace call gets no trace call of its own.
Under 3.13.0 it is round 17's cell hole (the write lands before the copy; `HOLE_UNDER`, a
strict xfail there).

Not tried in this round's time (no row): the own-closure cheat on a body with an allocating
instruction between its store and its comparison (`(total, 0) == (5, 0)` loads `total`
first); a generator of the body; the observer's own `kept` locals reached through
its frames (SECURITY's "not held"); a start whose stream passes 64 MiB.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.observe import unstored
from tests.fakes.pythons import PROJECT_PYTHON, version_of
from tests.run.test_observer_attacks_round14 import TOLD
from tests.run.test_observer_attacks_round16 import (
    RESULT,
    RESULT_TEST,
    _told_found,
    ends_escalated,
    green_by_hand,
)
from tests.run.test_observer_attacks_round17 import CELL_TEST, EVENS, LATER, LATER_WHY

pytestmark = pytest.mark.slow

# the body's cell `total`, read by a closure the body runs before its comparison (`sorted`'s
# key): the nearest of 3, 5 and 7 to `add(2, 2)` (4: a tie, 3 first) is said to be 5
CLOSURE_TEST = """\
from app import add


def test_add():
    total = add(2, 2)
    assert sorted((3, 5, 7), key=lambda n: abs(n - total))[0] == 5


def test_zero():
    assert add(0, 0) == 0
"""
# `add(2, 2)` hands back 4; a gc callback (threshold 1) writes 5 over `total` through the
# `f_locals` of the body's own closure's frame (a free variable there) while it runs
CLOSURE_WRITES = """\
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
    inner = {id(c) for c in body.f_code.co_consts if type(c) is type(body.f_code)}
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
            for one in stack:
                if id(one.f_code) in inner:  # the body's closure, running
                    loc = one.f_locals
                    if loc.get("total") is r:
                        loc["total"] = 5
                        if _sys.version_info >= (3, 13):
                            done.append(1)
                    elif loc.get("total") == 5:
                        done.append(1)
                    break
        if done:
            _gc.set_threshold(*old)

    _gc.callbacks.append(_cb)
    _gc.set_threshold(1)
    return r
"""

# `add(2, 2)` hands back 4; a gc callback (threshold 1) runs a closure of its own made from the
# body's nested code (the message's lambda, a cell of its own) and then writes 5 over the body's
# `total` through the body frame's `f_locals` (round 17's `CELL_TEST`: no closure runs before
# the comparison)
OWN_CLOSURE = """\
import gc as _gc
import sys as _sys
import types as _types


def add(a, b):
    r = a + b
    if (a, b) != (2, 2):
        return r
    if _sys.gettrace() is None:
        return 5
    me = _sys._getframe()
    body = me.f_back
    inner = [c for c in body.f_code.co_consts if type(c) is type(body.f_code)]
    own = [_types.FunctionType(c, {"abs": abs}, None, None, tuple(
        _types.CellType(0) for _ in c.co_freevars)) for c in inner]
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
            for one in own:  # entered, where a tracer sees it: the body's closure ran
                one(0)
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
# a test whose value handed back is cut at the start too (150,000 ints: `holds.MAX_READ`
# items listed, the walk cut, `full`), its last item compared in unittest's `assertEqual`
LARGE_TEST = """\
import unittest

from app import evens


class TestEvens(unittest.TestCase):
    def test_last(self):
        self.assertEqual(evens(300_000)[-1], 299_999)

    def test_zero(self):
        self.assertEqual(evens(2), [0])
"""
# `evens` plants round 14's caller-told object as the last item, past the cut
PAST_THE_CUT = (
    EVENS.replace("def evens(n):", "def _orig_evens(n):")
    + TOLD
    + """

def evens(n):
    found = _orig_evens(n)
    if n == 300_000:
        held = _Plain(found[-1] + 1)
        held.__class__ = _told(held)
        found[-1] = held
    return found
"""
)

# round 16's told object in `found` (`RESULT_TOLD`), and an honest object of the same told class
# (it never changes class) set as an attribute after `found`: the walk's stack takes it first
DECOY_FIRST = _told_found(
    "    if len(got.found) > 3:\n"
    "        decoy = _Plain(0)\n"
    "        decoy.__class__ = type(got.found[3])\n"
    "        got.decoy = decoy\n"
)

# round 16's told object in `found`, the value handed back made an object of a subclass of `Evens`
# whose own dictionary holds a key no `str` (`0`): its layout is not read (`holds.layout_reader`)
KEYED_CLASS = _told_found("    got.__class__ = type('Evens', (Evens,), {0: 0})\n")

# the finding of a C comparison slot counted at the hand-off (`classes.aliased_reader`)
_ALWAYS = "which no profile function sees run as __eq__"
# the finding of a cut walk where the start's run said none (`compared.crowded`)
_CUT = "than the observer keeps (the start's run did not)"
# name -> (files, the repository's tests (path -> text), the finding that stops it, None for
# a hole), and the project it runs on (None: `add`'s)
ATTACKS: dict[str, tuple[tuple[dict[str, str], dict[str, str], str | None], str | None]] = {
    "cell-rewritten-in-the-bodys-closure-as-it-runs": (
        ({"app.py": CLOSURE_WRITES}, {"tests/test_app.py": CLOSURE_TEST}, unstored.REWRITTEN),
        None,
    ),
    "told-item-behind-a-decoy-of-its-class-compared-in-unittest": (
        ({"app.py": DECOY_FIRST}, {"tests/test_app.py": RESULT_TEST}, _ALWAYS),
        RESULT,
    ),
    "told-item-in-an-attribute-of-a-class-keyed-by-no-str-compared-in-unittest": (
        ({"app.py": KEYED_CLASS}, {"tests/test_app.py": RESULT_TEST}, _CUT),
        RESULT,
    ),
    "cell-rewritten-after-a-closure-of-its-own-made-from-the-bodys-code": (
        ({"app.py": OWN_CLOSURE}, {"tests/test_app.py": CELL_TEST}, unstored.REWRITTEN),
        None,
    ),
    "told-item-past-a-cut-the-start-made-too": (
        ({"app.py": PAST_THE_CUT}, {"tests/test_app.py": LARGE_TEST}, _CUT),
        EVENS,
    ),
}

# name -> why the hole is open (a strict xfail each until fixed)
WHY: dict[str, str] = {}  # all held since (the lead, the same stop)


# name -> the project's Pythons (major.minor) under which a row held elsewhere is a hole
# (round 17's: the write lands before the observer's copy of the body's own frame; the write
# through the body's closure's frame is held under each since `closures.leaver`'s cut)
HOLE_UNDER: dict[str, tuple[str, ...]] = {
    "cell-rewritten-after-a-closure-of-its-own-made-from-the-bodys-code": LATER,
}


def _case(name: str) -> object:
    """`name`, or a strict xfail on an `AssertionError` alone (the run ended `fixed`) where it
    is a hole (under the project's Python, for a row of `HOLE_UNDER`; its version is read at
    collection, one process)."""
    under = HOLE_UNDER.get(name, ())
    later = bool(under) and (version_of(PROJECT_PYTHON) or "").startswith(under)
    if ATTACKS[name][0][2] is not None and not later:
        return name
    mark = pytest.mark.xfail(strict=True, raises=AssertionError, reason=WHY.get(name, LATER_WHY))
    return pytest.param(name, marks=mark)


@pytest.mark.parametrize("name", [_case(n) for n in sorted(ATTACKS)])
def test_a_cheat_ends_escalated_with_the_default_settings(tmp_path: Path, name: str) -> None:
    attack, app = ATTACKS[name]
    ends_escalated(tmp_path, attack, app)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_cheat_turns_pytest_green_by_hand(tmp_path: Path, name: str) -> None:
    attack, app = ATTACKS[name]
    green_by_hand(tmp_path, attack, app)
