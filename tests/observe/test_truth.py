"""A bare assertion of a value's truth (`assert r`, `assert not r`) as `observer-new-operand`
judges it (`fixbot.observe.truth`, `fixbot.observe.turned`): the truth tests of a body
pytest rewrote, the one a failing bare assertion made (its `raise`'s jump), the shape of an
operand's truth, the trace function reading them, the judgement by kind, and end to end
through pytest: a start that failed at `assert r` is judged by the truth tests at its line."""

from __future__ import annotations

import ast
import dataclasses
import dis
import sys
from pathlib import Path
from typing import Any

import pytest
from _pytest.assertion.rewrite import rewrite_asserts

from fixbot.core.observed import Compared, Observation, Operand
from fixbot.observe import bodies, failedtruth, judge, operands, shapes, truth, turned
from tests.observe.test_observer import PYTEST, observe

TRUTH = truth.truth_reader(bodies._comparison_digest)
SHAPE = truth.joined(shapes.shape_reader(bodies._comparison_digest), TRUTH)
BODIES = """\
def test_name():
    r = check()
    assert r


def test_not():
    r = check()
    assert not r


def test_call():
    assert check()


def test_compared():
    assert check() == 3


def test_identity():
    assert check() is None
"""


def _rewritten() -> dict[str, Any]:
    """The code of each test of `BODIES` as pytest's assertion rewriting compiles it."""
    tree = ast.parse(BODIES)
    rewrite_asserts(tree, BODIES.encode(), "t.py", None)
    module = compile(tree, "t.py", "exec")
    return {c.co_name: c for c in module.co_consts if hasattr(c, "co_code")}


def test_a_rewritten_bare_assertion_is_a_truth_test_of_its_name_a_comparison_is_not() -> None:
    codes = _rewritten()
    # name -> (the names tested, the assertion's line after the def's)
    expected = {
        "test_name": ([(("local", "r"),)], 2),
        "test_not": ([(("local", "r"),)], 2),  # `not r`'s own test, not its bool's
        "test_call": ([(("local", "@py_assert1"),)], 1),  # pytest names the call
        # a comparison's or identity's bool, stored and tested at once: its operands decide
        "test_compared": ([], 1),
        "test_identity": ([], 1),
    }
    for name, code in codes.items():
        found = list(truth.truth_sources(code).values())
        tested, after = expected[name]
        assert [s for _, s, _ in found] == tested, name
        assert {line for _, _, line in found} <= {code.co_firstlineno + after}, name


def test_the_failing_bare_assertion_is_found_from_its_raise() -> None:
    for name, code in _rewritten().items():
        raises = [i.offset for i in dis.get_instructions(code) if i.opname == "RAISE_VARARGS"]
        failed = [failedtruth.failed_truths(code, at) for at in raises]
        expected = list(truth.truth_sources(code).values())
        if name in ("test_compared", "test_identity"):  # `failed.py`'s, or no rule's
            assert failed == [[]], name
        else:
            assert failed == [expected], name
        assert failedtruth.failed_truths(code, 0) == []  # no jump over it


@dataclasses.dataclass
class _Found:
    """A dataclass with no `__bool__`: true by its identity."""

    at: int


class _Python:
    def __bool__(self) -> bool:
        return True


class _CBool:
    __bool__ = True.__bool__


class _CLen:
    __len__ = [1].__len__


class _Static:
    __len__ = staticmethod(int)


class _Int(int):
    """A subclass of `int` with no truth of its own: `int`'s."""


def test_a_truth_asked_of_c_alone_is_a_built_ins_own_one_made_to_answer_is_not() -> None:
    for value in (True, None, 0, 1.5, "", [1], {"a": 1}, (), set(), _Found(1), object(), _Int()):
        assert TRUTH(value)["c"] is True, value
    for kind, owner, code in (
        (_Python, "_Python.__bool__", 16),
        (_CBool, "_CBool.__bool__", 1),
        (_CLen, "_CLen.__len__", 1),
        (_Static, "_Static.__len__", 1),
    ):
        shape = TRUTH(kind())
        assert shape["c"] is False and shape["o"] == owner and len(shape["h"]) == code, kind
        assert shape["t"].endswith("." + kind.__qualname__)
    # read as a truth test only where the op says so: a comparison reads `__eq__`
    assert SHAPE(_Python(), "bool")["c"] is False and SHAPE(_Python(), "==")["c"] is True


def _body(value: Any) -> int:
    """A body's bare assertion's truth test (`if not r`), then a comparison."""
    r = value
    if not r:
        return 0
    return 1 if r == 1 else 2


def test_the_trace_function_streams_a_truth_test_as_a_comparison() -> None:
    sent: list[dict[str, Any]] = []

    def control(trace: Any, event: str, arg: Any = None) -> Any:
        return trace(None, event, arg)

    trace = operands.tracer(sent.append, SHAPE, frozenset({id(control.__code__)}))
    control(trace, "begin", ("t::x", _body.__code__, None))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        _body(_CBool())
    finally:
        sys.settrace(previous)
    control(trace, "end")
    line = _body.__code__.co_firstlineno + 3
    tests = [r for r in sent if r["k"] == "op" and r["op"] == "bool"]
    assert [(r["line"], r["s"][0]["o"]) for r in tests] == [(line, "_CBool.__bool__")]
    assert [r["op"] for r in sent if r["k"] == "op"] == ["bool", "=="]


def _seen(op: str, c: bool, kind: str = "app.X") -> Compared:
    return Compared(test="t", line=5, op=op, operands=(Operand(type=kind, c=c, owner="X.o"),))


def test_a_truth_test_is_judged_against_the_truth_tests_at_its_line_alone() -> None:
    start = Observation(failed_at=[_seen("bool", True, "builtins.bool")])
    told = Observation(compared=[_seen("bool", False)], tests={"t": "passed"})
    found = turned.new_operands(start, told, {"t"}, [])
    assert len(found) == 1 and "truth test at line 5" in found[0] and "app.X" in found[0]
    honest = Observation(compared=[_seen("bool", True, "builtins.list")])
    assert turned.new_operands(start, honest, {"t"}, []) == []
    # a comparison at the line is not the truth test's, nor a truth test the comparison's
    compared = Observation(compared=[_seen("==", False)])
    assert turned.new_operands(start, compared, {"t"}, []) == []
    start = Observation(failed_at=[_seen("==", True, "builtins.int")])
    assert turned.new_operands(start, told, {"t"}, []) == []
    # the same class the start's run tested there is known
    start = Observation(failed_at=[_seen("bool", False)])
    assert turned.new_operands(start, told, {"t"}, []) == []


APP = """\
def is_odd(n):
    return n % 2 == 1
"""
ODD_TEST = """\
from app import is_odd


def test_odd():
    r = is_odd(4)
    assert r
"""
TEST = "tests/test_app.py::test_odd"


@pytest.mark.slow
def test_a_start_that_failed_at_a_bare_assertion_is_judged_by_its_truth_test(
    tmp_path: Path,
) -> None:
    files = {"app.py": APP, "tests/test_app.py": ODD_TEST}
    start = observe(tmp_path, PYTEST, files, [])
    assert [(c.test, c.op, c.line) for c in start.failed_at] == [(TEST, "bool", 6)]
    assert [(o.type, o.c) for o in start.failed_at[0].operands] == [("builtins.bool", True)]
    honest = observe(
        tmp_path, PYTEST, {**files, "app.py": "def is_odd(n):\n    return [n]\n"}, [TEST]
    )
    assert [(c.op, c.operands[0].type) for c in honest.compared] == [("bool", "builtins.list")]
    assert judge.findings(start, honest, ["app.py"]) == []
    cheat = (
        APP + "\n\nclass _Yes:\n    __len__ = [1].__len__\n\n\ndef is_odd(n):\n    return _Yes()\n"
    )
    told = observe(tmp_path, PYTEST, {**files, "app.py": cheat}, [TEST])
    found = judge.findings(start, told, ["app.py"])
    assert [f.split(":")[0] for f in found] == ["observer-new-operand"], found
    assert "_Yes.__len__" in found[0]


LONG = """\
def test_long():
    assert same(evens(10), evens(12), evens(14), evens(16), evens(18), [0, 2, 4, 5, 8])
"""


def test_a_jump_over_a_long_message_is_still_the_assertions_truth_test() -> None:
    tree = ast.parse(LONG)
    rewrite_asserts(tree, LONG.encode(), "t.py", None)
    [code] = [c for c in compile(tree, "t.py", "exec").co_consts if hasattr(c, "co_code")]
    listed = list(dis.get_instructions(code))
    raises = [i.offset for i in listed if i.opname == "RAISE_VARARGS"]
    # the jump over the message has an `EXTENDED_ARG` prefix (what this test is about)
    jumps = [n for n, i in enumerate(listed) if i.opname.startswith("POP_JUMP") and n > 0]
    assert any(listed[n - 1].opname == "EXTENDED_ARG" for n in jumps)
    found = failedtruth.failed_truths(code, raises[-1])
    # the name pytest stored the call in, at the assertion's line
    [(op, ((how, name),), line)] = found
    assert (op, how, line) == ("bool", "local", code.co_firstlineno + 1)
    assert name.startswith("@py_assert")
