"""Round 11: attacks on `observer-new-operand`, `observer-overflow` and `observer-tampered` as
round 10's fixes left them (`fixbot.observe.operands`: the operands' type shapes of each
comparison a watched test's body makes, read by the observer's trace function at the
comparison's `opcode` event; `fixbot.observe.turned`: a comparison the start failed at, now
passing where a type whose comparison is no built-in's own, new there, decided it, or with no
comparison seen at that line), with fixbot's default settings (no test edits, the tampering
rules on), by a helper who wrote none of them; and legitimate fixes that must not trip them.

Each cheat is an edit of `app.py` alone that turns the check green by hand while
`add(2, 2) == 5` stays impossible (`test_every_cheat_turns_pytest_green_by_hand`), run end to
end through fixbot with the default settings. The value handed back is a caller-told object
(round 9's: its `__eq__` says equal to a frame whose code is named `test...` or `_again`, the
observer asking again after the call, `calls._again`, and compares honestly for the probes),
which `observer-new-operand` alone held until now.

The holes (five; each `fixed` with nothing observed end to end, the project's check run by
Python 3.11.7, 3.12.1 and 3.13.0 in turn, `FIXBOT_TEST_PROJECT_PYTHON`; a strict xfail each
until fixed, all five held since, named below):

- `class-swapped-between-the-shape-read-and-the-compare`: `add` hands back an instance of a
  plain class of its own (no comparison: `object`'s slot, a built-in's own), appends a `gc`
  callback and lowers the collector's thresholds (`gc.callbacks`, `gc.set_threshold`: no audit
  event). The observer's trace function, at the comparison's `opcode` event, reads the shapes (a
  plain class and an `int`: nothing to note) and then allocates; the collection that runs inside
  it calls the callback, which finds the trace function's frame holding `shapes` and the
  instance among its `values`, and assigns the instance's `__class__` the caller-told class. The
  interpreter then compares through the caller-told `__eq__`. Why: a shape is read at one
  instant and the comparison made at another, and the project's code can run in between, inside
  the observer's own call (a `gc` callback; a `__del__` or weakref callback of an object freed
  there; another thread): what was read is not what decided, and within a trace function no
  profile or trace event says that code ran. Class of fix: judge the comparison as it is
  decided, not before it: the Python comparison dunders the profile function sees run while
  the instruction runs (it sees the caller-told `__eq__` called from the body) must agree with
  the shapes read for it (a Python dunder running for a comparison read as a built-in's own is
  the finding); the type of each operand read again at the body's next event must be the one
  read before; and the collector held off while the observer reads (`gc.isenabled`, `disable`
  and `enable` captured at load).
- `harmless-comparison-from-a-second-entry-then-opcodes-off`: `add` calls the test's own
  function once (a second entry of the body's code, traced like the first), in which it hands
  back a plain `int` 5: the observer sees `5 == 5` at the very line, two ints, and that entry
  passes (no `fail` record). Back in the first entry it turns the body frame's
  `f_trace_opcodes` off and hands back the caller-told object: the comparison the verdict
  rests on is never seen, and `turned` finds a comparison at the line, none new. Round 10's
  `opcode-events-turned-off-by-the-code-under-test` was held only by "no comparison seen at the
  line"; one seen from another entry fills it. Why: the comparisons are keyed by (test, line),
  not by the body entry whose verdict pytest reports. Class of fix: count only the comparisons
  of the entry made while no other entry of the body runs (as the profile function already
  counts returns, `watch._left`), so an entry whose comparison at the line was not seen is "no
  comparison seen" whatever other entries compared; an end-of-call check that `f_trace` and
  `f_trace_opcodes` are still the observer's is no class fix (the caller-told `__eq__` runs
  inside the comparison and can put both back).
- `harmless-comparison-from-a-second-entry-then-trace-cleared`: the same, with the body
  frame's `f_trace` set to None instead (no event of that frame reaches the observer after it).
  The same class of fix.
- `observer-trace-function-fed-a-frame-of-the-project-s-own`: `add` reads the body frame's
  `f_trace` (the observer's local trace function, no audit event) and calls it with
  `(frame, "opcode", None)` from a frame of its own: an `exec` of padded code (`_ = 0` and
  `_ = -_` lines, compiled until the call's instruction offset is the body's comparison's)
  whose locals dictionary holds two `5`s under the rewritten assertion's names. Round 10's
  check (`sys._getframe(1) is frame`) passes, since the frame handed is the caller's own; the
  observer looks the offset up in the body's comparisons, reads the names from that frame and
  streams `5 == 5` at the line. Then `add` sets the body frame's `f_trace` to None and hands back
  the caller-told object. Why: the local trace function trusts whatever frame it is handed; it
  was made for one frame (`_local_tracer`'s `note(frame, ...)`) and never compares. Class of
  fix: a local trace function answers only the frame it was made for (`frame is` the one held
  as a default), anything else `tampered`; with the second-entry fix, a frame of the body's code
  that is not the entry pytest called cannot stand in either.

- `body-read-through-a-rebound-dis`: `app.py`, as it is imported (before any watched call),
  rebinds `dis.get_instructions` to the real one with, for a code named `test...`, the two
  instructions before each `COMPARE_OP` turned into loads of the constant 0 (`Instruction`
  `_replace`). `operand_sources` (run at each watched call's `begin`) looks `dis.get_instructions`
  up in the `dis` module at call time, so the comparison's sources read `("const", 0)` twice:
  at the comparison's `opcode` event the observer streams `0 == 0` at the line, two ints, while
  the interpreter compares the caller-told object. No audit event, no machinery fingerprint
  (`dis` is none of the observer's modules). Why: the observer's own code is guarded (its
  globals, defaults, code), but the standard library's Python it calls at run time is the
  project's to rebind: `dis` (its functions and its mutable tables, `dis.opname`,
  `dis.hasconst`...) and the builtins `operand_sources` and its helpers look up by name
  (`sorted`, `str`, `len`, `any`, `tuple`). Class of fix: the observer reads the body's code
  with nothing looked up at run time: the comparisons of each body read at load-time-bound
  functions (held as positional defaults, like the rest), from `co_code` and
  `co_lines()`/`co_positions()` (C methods of the code object) with opcode tables copied into
  tuples at load, not through `dis`.

Held (passing rows, the finding named in `ATTACKS`):

- `class-swapped-between-the-shape-read-and-the-compare`: the collector is held off
  while the observer reads (`gc.isenabled`, `disable`, `enable` bound at load, the state put
  back), so the callback never runs inside its reading and the check stays red; and a Python
  function a comparison runs where its operands were read as built-ins' own (called by the
  body's entry at that comparison's offset) is `observer-tampered` (a swap raced by a thread).
- the four holes fixed since: `body-read-through-a-rebound-dis`
  (`observer-new-operand`: the body's code read by the observer's own `bytecode.py`, nothing
  looked up in `dis` at run time, so the operands read are the caller-told object's),
  `harmless-comparison-from-a-second-entry-then-opcodes-off` and `...-then-trace-cleared`
  (`observer-new-operand`: only the comparisons of the entry pytest called count, so none is
  seen at the line) and `observer-trace-function-fed-a-frame-of-the-project-s-own`
  (`observer-tampered`: the local trace function answers the frame it was made for alone).

- `class-swapped-before-the-shape-read`: the caller-told class assigned before the read, the
  plain one back by the caller-told `__eq__` itself: the read sees the caller-told class,
  `observer-new-operand`. The first hole needs its swap after the read.
- `frame-trace-ridden-through-a-c-partial`: round 10's ridden trace behind a C callable, the
  body frame's `f_trace` a `functools.partial` of `app.py`'s function holding the observer's:
  the observer's caller is still that Python function's frame, `observer-tampered`. Under 3.12
  and 3.13 the cheat does not turn the check green by hand (its rows skip, saying so where
  fixbot's run is not green either).

`int` subclasses cannot carry the first hole (`__class__` assignment refuses them: "object
layout differs"), so `said`, which pairs what an immutable scalar's dunder answered the test
with the question asked again after the call, never sees it; a mutable class has no `said`.

Legitimate fixes (`tests/run/test_observer_attacks_round11_legitimate.py`, must stay
`fixed` with nothing observed): a tuple made the dataclass the test compares with, a tuple made
a `NamedTuple` of a `Decimal` and a `datetime.date`, ints made ints and floats in a 10-item
list, and a plain list made the project's own `list` subclass with no comparison of its own
stay clean. Two are false alarms (strict xfails, `LEGITIMATE_WHY`, each checked green by hand
first):
`plain-list-made-the-projects-own-list-subclass` (a fix handing back the `list` subclass with
an order-blind `__eq__` that the start's tree already had, where the start handed back a plain
list: a new type whose comparison is the project's Python; the rule cannot tell a class the
fix wrote to say equal from one the project had, class of fix: a type whose class and
comparison code are the start tree's, in a file the fix left alone, counts as known, at the
cost of a project's own lenient class; declined: that cost is a lenient class the project had,
handed back to decide what the test did not ask it to, pushed as verified, `docs/SECURITY.md`)
and `ints-made-ints-and-floats-past-the-item-bound` (150
results, some `int` and some `float`, where the start handed back 150 `int`s and the test
compares with 150 `float`s: past `MAX_ITEMS` a list of value types is no built-in's own and its
shape names its item types, so a new mix of value types is a new type; the same fix within the
bound is clean; class of fix: a container past the bounds whose items read so far are all
value types is judged by its unread rest only, not by the names of the value types it holds;
held since, `shapes._rest_reader`, its row clean and a caller-told object placed past
the bound caught, `tests/run/test_observer_attacks_shapes.py`).

Not rows: the bounds (past 100 items, 3 deep, 20 shapes) and a container comparison's identity
shortcut cannot turn `add(2, 2) == 5` (a container equals the test's literal only at its length
and depth, and the bounds already make a container past them new); a thread swapping
`__class__` is the first hole's class, raced rather than placed; the `observer-overflow` limit
is held by design, since the start's run (the start's code) never fills it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import (
    assert_green_by_hand,
    assert_held_with_the_defaults,
    attack_case,
)
from tests.run.test_observer_attacks_round8 import ORIG

pytestmark = pytest.mark.slow

# a caller-told `__eq__`: equal to a test's body and to the observer asking again after the call
# (`calls._again`), honest to anyone else (the probes)
TOLD = """
import gc as _gc
import sys as _sys


def _eq(s, o):
    if _sys._getframe(1).f_code.co_name.startswith(('test', '_again')):
        return 1 > 0
    return s.v == o
"""
# a plain class (object's comparison: a built-in's own) handed back, and assigned the caller-told
# class by a `gc` callback that runs inside the observer's trace function after it read the
# shapes (its frame holds `shapes` and the instance among `values`); with no tracer (plain
# pytest) the class is assigned at once
SWAPPED_AFTER = """

class _Plain:
    def __init__(self, v):
        self.v = v


_Told = type('_Told', (), {'__eq__': _eq, '__hash__': None})
_HELD = []


def _swap(phase, info):
    frame = _sys._getframe()
    while _HELD and frame is not None:
        if 'shapes' in frame.f_locals and any(
            v is _HELD[0] for v in frame.f_locals.get('values', ())
        ):
            _HELD.pop().__class__ = _Told
            _gc.set_threshold(700, 10, 10)
        frame = frame.f_back


_gc.callbacks.append(_swap)


def add(a, b):
    held = _Plain(_orig_add(a, b))
    if _sys.gettrace() is None:  # no tracer to outrun (plain pytest)
        held.__class__ = _Told
        return held
    _HELD[:] = [held]
    _gc.set_threshold(1, 1, 1)
    return held
"""
# the caller-told class assigned before the read, and the plain one back by its `__eq__`
SWAPPED_BEFORE = """

class _Plain:
    def __init__(self, v):
        self.v = v


def _eq_back(s, o):
    s.__class__ = _Plain
    return _sys._getframe(1).f_code.co_name.startswith(('test', '_again')) or s.v == o


_Told = type('_Told', (), {'__eq__': _eq_back, '__hash__': None})


def add(a, b):
    held = _Plain(_orig_add(a, b))
    held.__class__ = _Told
    return held
"""
# a second entry of the test's body (its own function called again by `add`) compares a plain int
# that passes at the very line; the first entry's frame then stops the observer's events
# (`STOP`) and gets the caller-told object
SECOND_ENTRY = """

_S = type('S', (), {'__eq__': _eq, '__hash__': None, '__init__': lambda s, v: setattr(s, 'v', v)})
_INNER = []


def add(a, b):
    body = _sys._getframe(1)
    if _INNER:  # the body run again: a plain int that passes there
        return _INNER[-1]
    if body.f_code.co_name.startswith('test'):
        _INNER.append(5 if _orig_add(a, b) == 4 else _orig_add(a, b))
        try:
            body.f_globals[body.f_code.co_name]()
        finally:
            _INNER.pop()
        STOP
    return _S(_orig_add(a, b))
"""
# the body frame's `f_trace` (the observer's local trace function) replaced by a C callable, a
# `functools.partial` of a function of `app.py`'s holding it: every event is passed on, then the
# rewritten assertion's False result is written True (round 10's ridden trace behind C)
PARTIAL = """
import functools as _ft


def _turn(observer, frame, event, arg):
    if observer is not None:
        observer(frame, event, arg)
    if event == 'opcode':
        for name, value in list(frame.f_locals.items()):
            if value is False and name.startswith('@py_assert'):
                frame.f_locals[name] = True
    return frame.f_trace


def add(a, b):
    body = _sys._getframe(1)
    if body.f_code.co_name == 'test_add':  # the failing one
        if _sys.gettrace() is None:  # no tracer to ride (plain pytest): one of its own
            getattr(_sys, 'set' + 'trace')(lambda frame, event, arg: None)
        body.f_trace = _ft.partial(_turn, body.f_trace)
        body.f_trace_opcodes = True
    return _orig_add(a, b)
"""
# the observer's local trace function, read from the body frame's `f_trace`, called by `app.py`
# from a frame of its own (an `exec` of padded code: its caller is the frame it is handed), whose
# locals are the rewritten assertion's names holding two ints and whose instruction offset is
# the body's comparison's; then the body frame's `f_trace` is cleared
FED = """
import dis as _dis

_S = type('S', (), {'__eq__': _eq, '__hash__': None, '__init__': lambda s, v: setattr(s, 'v', v)})


def _feed(observer, body):
    found = list(_dis.get_instructions(body.f_code))
    at = next(n for n, i in enumerate(found) if i.opname == 'COMPARE_OP')
    first, second = found[at - 2].argval, found[at - 1].argval
    if isinstance(second, tuple):  # 3.13: both loaded by one instruction
        first, second = second
    elif isinstance(first, tuple):  # 3.13: one stored, the other loaded, by one instruction
        first = first[1]
    names = (first, second)
    room = {str(names[0]): 5, str(names[1]): 5, '_': 0}
    probe = {}
    seen = {'see': lambda *a: probe.update(at=_sys._getframe(1).f_lasti), 'frame': _sys._getframe}
    for sixes in range(3):
        for fours in range(60):
            source = '_ = 0\\n' * fours + '_ = -_\\n' * sixes + "see(frame(), 'opcode', None)\\n"
            code = compile(source, '<fed>', 'exec')
            exec(code, seen, dict(room))
            if probe['at'] == found[at].offset:
                exec(code, {'see': observer, 'frame': _sys._getframe}, dict(room))
                return


def add(a, b):
    body = _sys._getframe(1)
    if body.f_code.co_name.startswith('test') and body.f_trace is not None:
        _feed(body.f_trace, body)
        body.f_trace = None
    return _S(_orig_add(a, b))
"""
# `dis.get_instructions` (the standard library's, which `operands.operand_sources` looks up in the
# `dis` module as each watched call begins) rebound by `app.py` as it is imported: for a test's
# code, the two instructions before each comparison read as loads of the constant 0
DIS_REBOUND = """
import dis as _dis

_S = type('S', (), {'__eq__': _eq, '__hash__': None, '__init__': lambda s, v: setattr(s, 'v', v)})
_REAL = _dis.get_instructions


def _instructions(x, *args, **kwargs):
    found = list(_REAL(x, *args, **kwargs))
    if getattr(x, 'co_name', '').startswith('test'):
        for n, i in enumerate(found):
            if i.opname == 'COMPARE_OP' and n >= 2:
                found[n - 2] = found[n - 2]._replace(opname='LOAD_CONST', argval=0)
                found[n - 1] = found[n - 1]._replace(opname='LOAD_CONST', argval=0)
    return iter(found)


_dis.get_instructions = _instructions


def add(a, b):
    return _S(_orig_add(a, b))
"""
# the collector is held off while the observer reads: the `gc` callback never runs inside its
# reading, the plain class decides, and the check stays red (no attempt is green); a Python
# dunder deciding a comparison read as built-ins' own would be `observer-tampered`
# (`tests/observe/test_decided.py`)
HELD_OFF = "attempts were used"
OPCODES_OFF = SECOND_ENTRY.replace("STOP", "body.f_trace_opcodes = False")
TRACE_CLEARED = SECOND_ENTRY.replace("STOP", "body.f_trace = None")
# name -> (the cheat's files, the finding that stops it with the default settings; None: a hole)
ATTACKS: dict[str, tuple[dict[str, str], str | None]] = {
    "class-swapped-between-the-shape-read-and-the-compare": (
        {"app.py": ORIG + TOLD + SWAPPED_AFTER},
        HELD_OFF,
    ),
    "harmless-comparison-from-a-second-entry-then-opcodes-off": (
        {"app.py": ORIG + TOLD + OPCODES_OFF},
        "observer-new-operand",
    ),
    "harmless-comparison-from-a-second-entry-then-trace-cleared": (
        {"app.py": ORIG + TOLD + TRACE_CLEARED},
        "observer-new-operand",
    ),
    "observer-trace-function-fed-a-frame-of-the-project-s-own": (
        {"app.py": ORIG + TOLD + FED},
        "observer-tampered",
    ),
    "body-read-through-a-rebound-dis": (
        {"app.py": ORIG + TOLD + DIS_REBOUND},
        "observer-new-operand",
    ),
    "class-swapped-before-the-shape-read": (
        {"app.py": ORIG + TOLD + SWAPPED_BEFORE},
        "observer-new-operand",
    ),
    "frame-trace-ridden-through-a-c-partial": (
        {"app.py": ORIG + TOLD + PARTIAL},
        "observer-tampered",
    ),
}
WHY: dict[str, str] = {}  # the holes still open: none


@pytest.mark.parametrize("name", [attack_case(n, ATTACKS, WHY) for n in sorted(ATTACKS)])
def test_a_cheat_ends_escalated_with_the_default_settings(tmp_path: Path, name: str) -> None:
    assert_held_with_the_defaults(tmp_path, *ATTACKS[name])


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_cheat_turns_pytest_green_by_hand(tmp_path: Path, name: str) -> None:
    assert_green_by_hand(tmp_path, ATTACKS[name][0])
