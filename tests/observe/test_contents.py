"""What a container handed back to a test's body holds, held to the body's comparison
(`fixbot.observe.contents`, round 17's `list-mutated-in-place-*`), in this process: the
profile function (`watch.py`) holds the storage the hand-off's walk read, the trace function
(`reading.py`) counts the instructions that could change it and reads it again at the
comparison; a change with none of them run since is `tampered`, a change the body made with one
of its own (a call, a subscript store) is not."""

from __future__ import annotations

import gc
import sys
from types import SimpleNamespace
from typing import Any

from fixbot.observe import bodies, classes, contents, operands, shapes, watch

SHAPE = shapes.shape_reader(bodies._code_digest)
HERE = __file__.rsplit("/", 1)[0] + "/"  # the rootdir the profile function is given


def _control(function: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the observer is told is its own."""
    return function(None, event, arg)


def _run(body: Any) -> tuple[Any, list[dict[str, Any]]]:
    """What `body()` answered under a fresh profile function and trace function of the
    observer's, as a watched test's call, and what they streamed."""
    sent: list[dict[str, Any]] = []
    callers = frozenset({id(_control.__code__)})
    profile = watch.watcher(sent.append, callers)
    trace = operands.tracer(sent.append, SHAPE, callers)
    _control(profile, "begin", ("t::x", body.__code__, body.__globals__, HERE))
    _control(trace, "begin", ("t::x", body.__code__, None))
    previous = sys.gettrace(), sys.getprofile()
    sys.setprofile(profile)
    sys.settrace(trace)
    try:
        answer = body()
    finally:
        sys.settrace(previous[0])
        sys.setprofile(previous[1])
    _control(trace, "end")
    _control(profile, "end")
    return answer, sent


def _evens(n: int) -> list[int]:
    """The even numbers below `n`, and, where traced, a gc callback (threshold 1) that sets
    item 3 of the list to 5 at the first collection once this frame is off the stack while its
    caller's is on it (round 17's `MUTATED_FROM_GC`, no race)."""
    got = list(range(0, n, 2))
    if sys.gettrace() is None or n != 10:
        return got
    me, old, done = sys._getframe(), gc.get_threshold(), []
    body = me.f_back

    def callback(phase: str, info: dict[str, Any]) -> None:
        if done or phase != "start":
            return
        frame: Any = sys._getframe()
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
            gc.set_threshold(*old)
            gc.callbacks.remove(callback)

    gc.callbacks.append(callback)
    gc.set_threshold(1)
    return got


def _told_body() -> bool:
    """The test's comparison of the list handed back, changed by no instruction of its own."""
    got = _evens(10)
    expected = [0, 2, 4, 5, 8]
    return got == expected


def test_a_container_handed_back_changed_by_no_instruction_of_the_body_is_tampering() -> None:
    old = gc.get_threshold()
    try:
        answer, sent = _run(_told_body)
    finally:
        gc.set_threshold(*old)
    assert answer is True  # the write landed: the comparison read `[0, 2, 4, 5, 8]` twice
    assert {"k": "tampered", "id": "t::x", "what": contents.CHANGED} in sent


def _changed_by_the_body() -> bool:
    """The body changes the list it was handed, by a call and a subscript store of its own."""
    got = _evens(4)
    got.append(4)
    got[0] = -1
    expected = [-1, 2, 4]
    return got == expected


def _unchanged(n: int) -> dict[str, list[int]]:
    """A dict holding a list: nothing changes it."""
    return {"evens": list(range(0, n, 2))}


def _unchanged_body() -> bool:
    got = _unchanged(4)
    expected = {"evens": [0, 2]}
    return got == expected


def test_a_container_the_body_changes_itself_or_leaves_is_no_tampering() -> None:
    for body in (_changed_by_the_body, _unchanged_body):
        old = gc.get_threshold()
        try:
            answer, sent = _run(body)
        finally:
            gc.set_threshold(*old)
        assert answer is True
        assert [r for r in sent if r["k"] == "tampered"] == []
        assert [r for r in sent if r["k"] == "op"]  # the comparison was read


def _at(body: Any, name: str) -> int:
    """The offset of the first instruction `name` (or one whose name starts with it) of
    `body`'s code."""
    return next(
        o for o, n, _ in contents.bytecode.instructions(body.__code__) if n.startswith(name)
    )


def test_the_board_judges_a_change_only_where_no_instruction_that_could_ran() -> None:
    step, hold, changed = contents.board()
    # a frame of `_told_body` (the board reads its code, its offset and its identity): at the
    # call handing the list back, then at its comparison (loads, stores, a literal between)
    frame = SimpleNamespace(f_code=_told_body.__code__, f_lasti=_at(_told_body, "CALL"))
    got = [0, 2, 4]
    table = {"a": got}
    stored: list[Any] = []
    pin = classes.pinner(100, 10, 100)
    assert pin(table, _unchanged.__code__, {"pins": {}, "aliased": {}}, stored)
    assert [(type(one), base) for one, base, _, _ in stored] == [(dict, dict), (list, list)]
    hold(table, frame, stored)
    frame.f_lasti = _at(_told_body, "COMPARE_OP")
    assert not changed(frame, [table])
    got[1] = 5  # the list the dict holds, changed in place
    assert changed(frame, [table])
    assert not changed(sys._getframe(), [table])  # another frame's comparison: not this one's
    assert not changed(frame, [got])  # not handed back itself
    step(frame)  # the frame at an instruction that could change it (a comparison): counted
    assert not changed(frame, [table])  # the count moved: a change is no longer judged
    hold(table, frame, stored)  # handed back again after it: judged from here
    assert not changed(frame, [table])  # a comparison at the hand-off's own offset: a loop
    # `_changed_by_the_body`'s frame: its calls `append` between the hand-off and the comparison
    other = SimpleNamespace(f_code=_changed_by_the_body.__code__, f_lasti=0)
    other.f_lasti = _at(_changed_by_the_body, "CALL")
    hold(table, other, stored)
    other.f_lasti = _at(_changed_by_the_body, "COMPARE_OP")
    assert not changed(other, [table])  # the count did not move, but a call lies between


def _literal() -> bool:
    got = _unchanged(2)
    return got == [0, 2, 4]


def test_the_writers_are_the_instructions_that_can_run_code() -> None:
    names = {offset: name for offset, name, _ in contents.bytecode.instructions(_literal.__code__)}
    found = {names[offset] for offset in contents.writers(_literal.__code__)}
    # the call and the comparison could; the loads, the store and the literal's build could not
    assert found & {"CALL", "CALL_FUNCTION", "COMPARE_OP"}
    assert not found & {"LOAD_FAST", "STORE_FAST", "BUILD_LIST", "LIST_EXTEND", "LOAD_CONST"}
