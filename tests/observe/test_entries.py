"""Whose comparisons the observer's trace function (`fixbot.observe.operands.tracer`) streams:
those of the body's entry pytest called alone (one made while no other entry of the body runs),
and those its local trace function reads from the frame it was made for alone. Round 11's
`harmless-comparison-from-a-second-entry-*` (a second entry of the body compares two ints at
the line, then the first's events stop) and
`observer-trace-function-fed-a-frame-of-the-project-s-own` (the local trace function called
with a frame of the project's own) in this process."""

from __future__ import annotations

import sys
from typing import Any

from fixbot.observe import bodies, operands, shapes

SHAPE = shapes.shape_reader(bodies._code_digest)
_INNER: list[Any] = []  # what a nested entry's call of `_add` hands back


def _control(trace: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the trace function is told is the
    observer's."""
    return trace(None, event, arg)


def _run(body: Any, *args: Any) -> list[dict[str, Any]]:
    """What a fresh trace function of the observer's streams while `body(*args)` runs, the
    body's code being `_body`'s, but for its truth tests (op "bool": `_body`'s `if how`)."""
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", _body.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        body(*args)
    finally:
        sys.settrace(previous)
    _control(trace, "end")
    return [r for r in sent if r.get("op") != "bool"]


class _Told:
    """Says equal to anything: the value a cheat hands back."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def _add(how: str) -> Any:
    """The code under test: run the body again (a nested entry comparing two ints, which
    pass), then stop the first entry's events (`how`), and hand back what says equal."""
    body = sys._getframe(1)
    if _INNER:
        return _INNER[-1]
    _INNER.append(5)
    try:
        _body(how)
    finally:
        _INNER.pop()
    if how == "opcodes":
        body.f_trace_opcodes = False
    elif how == "cleared":
        body.f_trace = None
    return _Told()


def _body(how: str) -> bool:
    """A test body as pytest rewrites one: compares names it assigned."""
    left = _add(how) if how else 4
    right = 5
    return left == right


def test_a_nested_entrys_comparison_is_not_the_calls() -> None:
    line = _body.__code__.co_firstlineno + 4
    for how in ("opcodes", "cleared"):
        sent = _run(_body, how)
        # the nested entry compared 5 == 5 at the line; the entry pytest called compared
        # unseen: nothing streamed there (turned's "no comparison seen at that line")
        assert [r for r in sent if r["k"] == "op" and r["line"] == line] == [], (how, sent)
    # the entry pytest called is read as before: its comparison is streamed
    assert [r["line"] for r in _run(_body, "") if r["k"] == "op"] == [line]


def _twice() -> None:
    """Entries that follow one another (as hypothesis' do): each the outermost."""
    _body("")
    _INNER.append(4.0)
    try:
        _body("again")
    finally:
        _INNER.pop()


def test_entries_that_follow_one_another_are_each_read() -> None:
    sent = _run(_twice)  # 4 == 5, then 4.0 == 5: both entries' comparisons
    assert [r["s"][0]["t"] for r in sent if r["k"] == "op"] == ["builtins.int", "builtins.float"]


def _fed(how: str) -> Any:
    """The code under test: the body frame's `f_trace` (the observer's local trace function)
    called with a frame of its own, holding two ints under the body's names."""
    body = sys._getframe(1)
    observer = body.f_trace
    left, right = 5, 5  # noqa: F841 (read by name through the frame)
    observer(sys._getframe(), "opcode", None)
    body.f_trace = None
    return _Told()


def _fed_body() -> bool:
    left = _fed("")
    right = 5
    return left == right


def test_the_local_trace_function_answers_its_own_frame_alone() -> None:
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", _fed_body.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _fed_body()
    finally:
        sys.settrace(previous)
    _control(trace, "end")
    # the caller is the frame handed (round 10's check passes): the frame is not its own
    what = "the observer's trace function of its body was called by another's"
    follows = {"k": "follows", "id": "t::x", "at": []}  # its comparison returned: not followed
    assert sent == [follows, {"k": "tampered", "id": "t::x", "what": what}]
