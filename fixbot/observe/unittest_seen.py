"""What the code hands back to a unittest test's own code, probed (utcmp3, #39): the observer's
`TestCase._callTestMethod` runs the body under a profile function of its own (`_seer`), which,
at each `return` event of a frame of other code whose caller is a frame of the test module's
(its globals the body's, by identity: the body, a helper of the test file, a generator
expression), takes the value handed back (and, where it is an exact list, tuple, set,
frozenset or dict, its items and keys, `HANDED` at most) and asks each one's `__eq__` and
`__ne__` that a class of the work tree (or made at run time) stands first in its MRO through the
comparison itself, as `assertEqual`'s operands are asked (`unittest_equal._comparer`: its
neighbours where its base is int or float, then a stranger, an instance of a fresh private
class), streaming each as an `eq` record (`always`: it said equal, or `__ne__` not unequal, to
a value its base tells apart or to the stranger), which fixbot judges as the pytest observer's
(`compared.comparisons`: `observer-always-equal` where the type's code is the fix's or built at
run time). Why the value handed back and not the assertion method's arguments: the comparison
that decides `assertTrue(add(2, 2) == 4)`, `assertFalse(x != 4)` or `[x] == [4]` is the body's
own, made before any assert method is called and leaving it a bool; whatever spelling the body
compares a value of the code's with (`assertIn`, `assertAlmostEqual`, `assertListEqual`'s
items), that value came back to the test's code from the code's (rounds 38 and 39).

Only the bodies of the tests that failed at the start are profiled (the settings' `watch`,
the ids fixbot judges the records of: the other tests' bodies run at full speed). The profile
function is set as the body begins, only where no other stands (a profiler's is left alone:
the body unprobed), and put back as it ends. The code under test taking it away, or setting one
before the body, is an audit event (`sys.setprofile`), which the observer's audit hook streams
with the file that did it (`reach.py`: `observer-reach` where the start's run did not raise it
from that file); not named here as well (an honest cProfile helper would be, at every fix).

The body's own comparisons followed (uteq, #39; `_follow`): the same profile function takes
the `call` event of each Python frame of other code that a frame of the test module's, of
unittest's assert methods (`unittest.case`'s globals, held at load: `_baseAssertEqual`'s
`first == second`, round 43), or of any module of the work tree (`unittest_helped._ours`: the
tests' helper modules, a pinned `assert_alike`'s `first != second`, helpereq) calls while it
stands at one of its own comparisons (`f_lasti` at a `COMPARE_OP` or `CONTAINS_OP` of its code:
the dunder it runs, `ASKED`'s (round 44: `>`), a reflected one, a container's item's) and its
two operands, and at that frame's `return` the
answer it gave the test: the same question asked again from the observer's frame answered
otherwise (`_retold`), or its operands asked the probe's questions again after the test's answer
(a `_comparer` of its own, once a test and pair of types), is an `eq` record (`always`), sent
once (`_fresh`). Round 41, each `fixed`: a value made by a C `__new__` (no `return` hands it
back), an `__eq__` telling the test's frame from the probe's, and one honest at its first
question alone. Chosen over an opcode trace of the body (pytest's `operands.py`, which needs
`sys.settrace`, a coverage tool's place, on 3.8 to 3.11): the dunder's own frame carries its
operands and its answer. An honest `__eq__` answers the same twice and no to the questions.

Limits: a value of the code's reached without a Python frame's return to the test's code (a
global, an attribute, a C result or `__new__`), or in another thread, is not probed as it comes
back: its Python `__eq__` is followed as a comparison runs it, a C one (a partial) is not; nor
a library's comparison (`mock`'s), nor `assertTrue(x)`'s `__bool__`; `MAX_PROBED` for each probe.

An observer part: copied beside `unittest_observer.py` as `<module>_unittest_seen`, imported by
it only in a unittest run (its `PARTS`) and taken out of `sys.modules` once loaded; its inner
functions' code is among the sender's callers (`unittest_machinery.CALLERS`). What each uses is
held as positional defaults; it imports the standard library alone and nothing of fixbot's.
"""

from __future__ import annotations

import importlib
import operator
import sys
from itertools import islice
from types import FrameType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_seen`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_seen")] + name
    )


equal = _sibling("unittest_equal")  # `_comparer`: a value's comparison asked through itself
helped = _sibling("unittest_helped")  # `_ours`: the frames followed beyond the test module's
CASE = vars(importlib.import_module("unittest.case"))  # its assert methods' globals, at load
# unittest leaves this module's frames out of a failure's traceback, as unittest_result's: its
# `_callTestMethod` frame, first in every test's traceback, otherwise ends the traceback unittest
# prints there (`_count_relevant_tb_levels` stops at the next frame of unittest's own), and the
# test's own frames and the code's are lost from the log fixbot reads (markdown 3.4.3's held-out
# case lost its excerpt)
__unittest = True
DUNDERS = ("__eq__", "__ne__")  # what the body's `==`, `!=`, `in` and the assert methods ask
HANDED = 32  # the items of a container handed back that are probed, at most
CONTAINERS = (list, tuple, set, frozenset)  # exact types whose items are read in C
WRAPPED = 8  # decorators `_globals` unwraps, at most


def _globals(
    method: Any,
    _type: Any = type,
    _method: Any = MethodType,
    _function: Any = FunctionType,
    _func: Any = MethodType.__dict__["__func__"].__get__,
    _globals: Any = FunctionType.__dict__["__globals__"].__get__,
    _vars: Any = vars,
    _wrapped: int = WRAPPED,
) -> Any:
    """The globals of the test module's code `method` (the body `_callTestMethod` is handed, a
    bound method) runs, read through the C accessors: its function's, or, past decorators that
    name the function they wrap (`__wrapped__`, `WRAPPED` deep: `mock.patch`), the innermost
    one's; None where it is no function."""
    func = _func(method) if _type(method) is _method else method
    found = None
    for _ in range(_wrapped):
        if _type(func) is not _function:
            break
        found = _globals(func)
        func = _vars(func).get("__wrapped__")
    return found


def _handed(
    value: Any,
    _type: Any = type,
    _containers: tuple[Any, ...] = CONTAINERS,
    _dict: Any = dict,
    _most: int = HANDED,
    _slice: Any = islice,
    _items: Any = dict.items,
) -> list[Any]:
    """`value`, and where it is an exact list, tuple, set or frozenset its items, an exact dict
    its keys and values (`HANDED` at most, read by the containers' own C iteration: no code of
    an item's run)."""
    kind = _type(value)
    if kind in _containers:
        return [value, *_slice(value, _most)]
    if kind is _dict:
        return [value, *[v for kv in _slice(_items(value), _most) for v in kv]]
    return [value]


def _named(test: Any, _str: Any = str) -> Any:
    """`test.id()` as a str, or None where it raises."""
    try:
        return _str(test.id())
    except Exception:
        return None


# the instructions of a body's own comparison whose dunders a Python frame of other code runs
SITES = helped.SITES
CODES = 4_096  # code objects whose bytecode `_at_comparison` keeps, at most
ASKED = {f"__{n}__": getattr(operator, n) for n in ("eq", "ne", "lt", "le", "gt", "ge")}


def _at_comparison(
    back: FrameType,
    codes: dict[Any, Any],
    _sites: frozenset[int] = SITES,
    _id: Any = id,
    _len: Any = len,
    _most: int = CODES,
) -> bool:
    """Whether the frame `back` stands at one of its own comparisons (`f_lasti`, a byte offset,
    at a `COMPARE_OP` or `CONTAINS_OP` of its `co_code`, kept in `codes` by code: 3.11 builds
    it at each read; `CODES` at most)."""
    code = back.f_code
    kept = codes.get(_id(code))
    if kept is None or kept[0] is not code:
        kept = (code, code.co_code)
        if _len(codes) < _most:
            codes[_id(code)] = kept
    at = back.f_lasti
    return 0 <= at < _len(kept[1]) and kept[1][at] in _sites


def _operands(frame: FrameType, _type: Any = type, _tuple: Any = tuple) -> list[Any] | None:
    """The first two positional arguments a frame was called with, at its `call` event (its
    `f_locals`, built in C), a `*args` tuple's after the named ones; None where fewer."""
    code = frame.f_code
    names, count, local = code.co_varnames, code.co_argcount, frame.f_locals
    found = [local.get(name) for name in names[:count]]
    if code.co_flags & 0x04:  # CO_VARARGS: its tuple is named after the keyword-only ones
        rest = local.get(names[count + code.co_kwonlyargcount])
        found += [*rest] if isinstance(rest, tuple) and _type(rest) is _tuple else []
    return found[:2] if len(found) >= 2 else None


def _answered(
    frame: FrameType,
    value: Any,
    memo: dict[Any, Any],
    _deciding: Any = equal._deciding,
    _type: Any = type,
    _id: Any = id,
    _function: Any = FunctionType,
    _code: Any = FunctionType.__dict__["__code__"].__get__,
) -> str | None:
    """Which of `value`'s `ASKED` dunders (a Python function a class of the work tree or
    made at run time stands first) the frame's code is, or None (another dunder, a partial's
    function, a reflected operand's); kept in `memo` by the type and the code, both held."""
    kind, code = _type(value), frame.f_code
    kept = memo.get(("a", _id(kind), _id(code)))
    if kept is not None and kept[0] is kind and kept[1] is code:
        told: str | None = kept[2]
        return told
    found = None
    for dunder in ASKED:
        standing = _deciding(value, dunder)
        if standing and _type(standing[1]) is _function and _code(standing[1]) is code:
            found = dunder
    if len(memo) < CODES:
        memo[("a", _id(kind), _id(code))] = (kind, code, found)
    return found


def _retold(
    test: Any,
    held: list[Any],
    answer: Any,
    root: str,
    _asked: dict[str, Any] = ASKED,
    _bool: Any = bool,
    _type: Any = type,
    _deciding: Any = equal._deciding,
    _place: Any = equal._place,
    _record: Any = equal.calls._eq_record,
) -> list[Any]:
    """The `eq` record (`always`) of a body's comparison whose dunder (`held`: frame, operands,
    dunder) answered the test `answer`, a bool, where the same question asked from the
    observer's frame is answered otherwise; [] where it answers the same, raises or no bool."""
    _, value, other, dunder = held
    if dunder is None or _type(answer) is not bool:
        return []
    try:
        again = _asked[dunder](value, other)
    except Exception:
        return []
    if _type(again) is not bool or again is answer:
        return []
    owner, found = _deciding(value, dunder)
    where = _place(_type(value), owner, found, root, (), {})
    record = _record(_named(test) or "?", _type(value), dunder, where[0], where[1], True, root)
    return [record]


def _follow(
    frame: FrameType,
    back: FrameType,
    event: str,
    arg: Any,
    test: Any,
    pending: list[Any],
    codes: dict[Any, Any],
    after: Any,
    root: str,
    _at: Any = _at_comparison,
    _operands: Any = _operands,
    _answered: Any = _answered,
    _retold: Any = _retold,
    _first: Any = helped._first,
) -> list[Any] | None:
    """At a profile event of `frame`, called by the test's code `back`: its `call` where `back`
    stands at its own comparison notes it, its operands and dunder in `pending` ([]); its
    `return`, the last noted, the `eq` records of its answer (`_retold`) and of its operands
    asked again (`after`); None for any other event (the probe of a value handed back)."""
    if event == "call":
        pair = _operands(frame) if _at(back, codes) else None
        if pair is None:
            return None
        pending.append([frame, pair[0], pair[1], _answered(frame, pair[0], codes)])
        return []
    if event != "return" or not pending or pending[-1][0] is not frame:
        return None
    _, value, other, _ = held = pending.pop()
    records: list[Any] = _retold(test, held, arg, root)
    if _first(codes, (test, type(value), type(other))):  # once a test and pair of types
        records += after(test, value, other)
    return records


def _watched(watch: Any) -> frozenset[str] | None:
    """The test ids of the settings' `watch` (a list: its exact str items), None where it is
    None (every test watched)."""
    listed = watch if type(watch) is list else []
    return None if watch is None else frozenset(w for w in listed if type(w) is str)


def _seer(orig: Any, send: Any, state: list[Any], held: tuple[Any, ...], watch: Any = None) -> Any:
    """`_callTestMethod(test, method)`: `orig` (the one captured at load) with the body of each
    test `watch` names (the settings' list of the ids of the tests that failed at the start,
    whose records fixbot judges; None: every test) under the observer's profile function
    (`sys.setprofile`, set as the body begins where none stands, put back as it ends): each
    value a frame of other code hands back to a frame of the test module's (`_globals`) is
    probed (`_handed`, `unittest_equal._comparer` with `DUNDERS`: `eq` records streamed while a
    run of the observer's goes on, `state`); where another profile function stands as the body
    begins, it is left alone and the body unprobed."""
    compared = equal._comparer(held[3], DUNDERS)
    watched = _watched(watch)
    now: list[Any] = [None, None]  # the test whose body runs, its module's globals
    # the body's comparisons followed: asked again after the test's own answer, each dunder
    # once a test, type and function (`unittest_equal._comparer`'s own count, not the probe's)
    after = equal._comparer(held[3], DUNDERS)
    pending: list[Any] = []  # [frame, value, other, dunder] of each comparison's dunder running
    codes: dict[Any, Any] = {}  # `_at_comparison`'s bytecode of the test's code, by code
    streamed: set[Any] = set()  # the records sent, each once (`_fresh`)
    ours = helped._ours(held[3], CASE)  # another module's frame's event followed?

    def profile(
        frame: FrameType,
        event: str,
        arg: Any,
        _now: list[Any] = now,
        _send: Any = send,
        _state: list[Any] = state,
        _compared: Any = compared,
        _handed: Any = _handed,
        _heap: int = equal.HEAP,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _type: Any = type,
        _containers: tuple[Any, ...] = (*CONTAINERS, dict),
        _pending: list[Any] = pending,
        _codes: dict[Any, Any] = codes,
        _follow: Any = _follow,
        _fresh: Any = helped._fresh,
        _ours: Any = ours,
        _streamed: set[Any] = streamed,
        _after: Any = after,
        _root: str = held[3],
    ) -> None:
        back = frame.f_back
        if frame.f_globals is _now[1] or back is None or not _state[0]:
            return
        mine = back.f_globals is _now[1]  # else unittest's or a work-tree module's comparison
        if not mine and not _ours(frame, back, event, _pending):
            return  # another module's frame: followed only at a comparison (`_follow`)
        told = _follow(frame, back, event, arg, _now[0], _pending, _codes, _after, _root)
        if told is None and event == "return" and mine:  # a value handed back (no answer)
            kind = _type(arg)
            if not _flags(kind) & _heap and kind not in _containers:
                return  # a built-in's value: no class of the project's to ask
            told = [r for value in _handed(arg) for r in _compared(_now[0], value, None)]
        for record in _fresh(told or (), _streamed):
            _send(record)

    def _callTestMethod(  # unittest's own name
        self: Any,
        method: Any,
        _orig: Any = orig,
        _now: list[Any] = now,
        _profile: Any = profile,
        _globals: Any = _globals,
        _get: Any = sys.getprofile,
        _set: Any = sys.setprofile,
        _watched: Any = watched,
        _named: Any = _named,
        _pending: list[Any] = pending,
    ) -> Any:
        if _watched is not None and _named(self) not in _watched:
            return _orig(self, method)  # a test that passed at the start: its records unjudged
        was, before = _now[:], _get()
        mine = before is None or before is _profile
        if mine:
            _pending.clear()
            _now[:] = [self, _globals(method)]
            _set(_profile)
        try:
            return _orig(self, method)
        finally:
            _now[:] = was
            if mine:
                _set(before)

    return _callTestMethod
