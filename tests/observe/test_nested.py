"""Round 14's class (`fixbot.observe.operands.tracer`): every frame of other code of the test
module's run while a watched body runs (a generator expression's, a helper's) is read as the
body's, each comparison streamed at the body's line that ran it (`"n": True`), and
`fixbot.observe.turned` counts it towards the comparison the start failed at on that line: a
type whose comparison is C code that is no built-in's own is new there, one a Python function
decides is left to the profile function."""

from __future__ import annotations

import dataclasses
import functools
import sys
from typing import Any

import pytest

from fixbot.core.observed import Compared, Observation, Operand
from fixbot.observe import operands, turned
from tests.observe.test_observer import ADD
from tests.observe.test_unreachable import SHAPE


def _control(trace: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the trace function is told is the
    observer's."""
    return trace(None, event, arg)


# a class whose comparison is C code no built-in's own (`bool(other)`: no Python frame)
_Told = type("_Told", (), {"__eq__": staticmethod(bool), "__hash__": None})


@dataclasses.dataclass
class _Point:
    x: int
    y: int


def _same(got: Any, want: Any) -> bool:
    """A helper of the test module's comparing in its own frame."""
    return bool(got == want)


def _genexpr_body() -> bool:
    """A body comparing in a generator expression's frame alone."""
    got = [0, 2, _Told()]
    return all(a == b for a, b in zip(got, [0, 2, 4], strict=True))


def _helper_body() -> bool:
    """A body comparing in a helper's frame alone."""
    got = [0, 2, _Told()]
    return _same(got, [0, 2, 4])


def _traced(body: Any) -> list[dict[str, Any]]:
    """What a fresh trace function of the observer's streams around one call of `body`."""
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, SHAPE, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", body.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        body()
    finally:
        sys.settrace(previous)
    _control(trace, "end")
    return sent


def _told_in(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["k"] == "op" and "_Told" in str(r["s"])]


def test_a_generator_expressions_comparison_is_read_at_the_bodys_line() -> None:
    sent = _traced(_genexpr_body)
    line = _genexpr_body.__code__.co_firstlineno + 3
    [told] = _told_in(sent)
    assert told["n"] is True and told["line"] == line and told["op"] == "=="
    assert told["s"][0]["c"] is False and told["s"][0]["h"] == "-"
    # the plain items were read there too, built-ins' own
    assert {"t": "builtins.int", "c": True} in [r["s"][0] for r in sent if r["k"] == "op"]


def test_a_helpers_comparison_is_read_at_the_line_of_the_body_that_called_it() -> None:
    sent = _traced(_helper_body)
    [told] = _told_in(sent)
    assert told["n"] is True and told["line"] == _helper_body.__code__.co_firstlineno + 3
    assert told["s"][0]["t"].startswith("builtins.list[") and " @-" in told["s"][0]["t"]


def test_a_lambda_of_the_test_modules_called_from_c_is_read() -> None:
    sent = _traced(_reduced)
    assert [(r["op"], r.get("n")) for r in sent if r["k"] == "op"] == [("==", True)]


def _reduced() -> Any:
    """A body whose comparison is a lambda's, called by C code (`functools.reduce`)."""
    return functools.reduce(lambda a, b: a == b, [1, 1])


def test_code_of_another_module_is_not_read() -> None:
    assert [r for r in _traced(_calls_elsewhere) if r["k"] == "op"] == []


def _calls_elsewhere() -> Any:
    """A body calling a helper of another module (pytest's `approx`), which compares."""
    return pytest.approx(1.0) == 1.0


def test_past_the_codes_it_reads_the_trace_function_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(operands.reading, "MAX_OPS", 0)
    # the body's followed comparisons (none) streamed as the call begins, then `full` alone
    assert _traced(_helper_body) == [
        {"k": "follows", "id": "t::x", "at": []},
        {"k": "full", "id": "t::x"},
    ]


def _operand(value: Any) -> Operand:
    shape = SHAPE(value, "==")
    return Operand(type=shape["t"], c=shape["c"], owner=shape.get("o", ""), code=shape.get("h", ""))


def _judged(*nested: Compared) -> list[str]:
    """`observer-new-operand` findings where the start failed at a truth test at line 9."""
    body = Compared(test=ADD, line=9, op="bool", operands=(Operand(type="builtins.bool"),))
    start = Observation(sessions=1, ended=1, tests={ADD: "failed"}, failed_at=[body])
    last = Observation(
        sessions=1, ended=1, tests={ADD: "passed"}, watching=[ADD], compared=[body, *nested]
    )
    return turned.new_operands(start, last, {ADD}, [])


def _nested(line: int, left: Any, right: Any) -> Compared:
    operands_ = (_operand(left), _operand(right))
    return Compared(test=ADD, line=line, op="==", operands=operands_, nested=True)


def test_a_nested_comparison_decided_by_c_code_no_built_ins_own_is_new_at_the_failing_line() -> (
    None
):
    [found] = _judged(_nested(9, _Told(), 4))
    assert found.startswith("observer-new-operand") and "_Told" in found
    assert _judged(_nested(9, [0, _Told()], [0, 4]))  # an item of a list
    assert _judged(_nested(8, _Told(), 4)) == []  # another line: not the one the start failed at


def test_a_nested_comparison_decided_by_python_or_built_ins_is_not_new() -> None:
    assert _judged(_nested(9, _Point(1, 2), _Point(1, 2))) == []
    assert _judged(_nested(9, [_Point(1, 2)], [_Point(1, 2)])) == []
    assert _judged(_nested(9, [0, 2], [0, 2])) == []


def _branching(got: Any, want: Any) -> bool:
    """A helper of the test module's whose comparison's result a jump pops (followed)."""
    if got == want:  # noqa: SIM103 (the jump is the point)
        return True
    return False


def _branching_body() -> bool:
    """A body comparing two `int`s in a helper's frame alone."""
    return _branching(2, 2)


def test_a_nested_comparison_is_followed_but_owes_fixbot_no_fol() -> None:
    """The `follows` offsets fixbot pairs an `op` with are the body's code's: a nested `op` at
    its own code's offset is not paired (`comparisons._owes`), so its follow streams no `fol`
    (one would pay, or fail to pay, a body `op` at the same offset)."""
    sent = _traced(_branching_body)
    assert [(r["k"], r.get("n")) for r in sent] == [("follows", None), ("op", True)]
    assert sent[1]["s"] == [{"t": "builtins.int", "c": True}] * 2
