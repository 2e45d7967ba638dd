"""What decided a comparison the observer's trace function read (`fixbot.observe.operands`):
round 11's `class-swapped-between-the-shape-read-and-the-compare` in this process. A Python
function the body's comparison runs, where its operands were read as built-ins' own (whose
comparison runs no code), is `tampered`; and the collector is held off while the observer
reads, so no project `gc` callback runs inside its reading."""

from __future__ import annotations

import gc
import sys
from typing import Any

from fixbot.observe import bodies, operands, shapes

SHAPE = shapes.shape_reader(bodies._code_digest)
WHAT = "a comparison read as a built-in's own ran Python code as it was decided"


def _control(trace: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the trace function is told is the
    observer's."""
    return trace(None, event, arg)


class _Plain:
    """No comparison of its own: `object`'s, a built-in's own."""

    def __init__(self, v: int) -> None:
        self.v = v


class _Told:
    """Says equal to anything (the class a cheat swaps in after the read)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def _body() -> bool:
    """A test body as pytest rewrites one: compares names it assigned."""
    left = _Plain(4)
    right = 5
    return left == right


def _run(shape: Any, body: Any = _body, chained: Any = None) -> tuple[Any, list[dict[str, Any]]]:
    """What `body()` answered under a fresh trace function of the observer's reading shapes
    with `shape` (chaining the trace function `chained`, as a coverage tool's), and what it
    streamed."""
    sent: list[dict[str, Any]] = []
    trace = operands.tracer(sent.append, shape, frozenset({id(_control.__code__)}))
    _control(trace, "begin", ("t::x", body.__code__, chained))
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        answer = body()
    finally:
        sys.settrace(previous)
    _control(trace, "end")
    return answer, sent


def _swapping(value: Any, op: str) -> dict[str, Any]:
    """The shape, then the value's class swapped: project code run inside the observer's
    reading (a `gc` callback, a finalizer) after the shape was read."""
    found = SHAPE(value, op)
    if type(value) is _Plain:
        value.__class__ = _Told
    return found


def test_a_python_dunder_deciding_a_comparison_read_as_builtins_own_is_tampering() -> None:
    answer, sent = _run(_swapping)
    assert answer is True  # the swapped-in class decided
    ops = [r for r in sent if r["k"] == "op"]
    assert [s["c"] for s in ops[0]["s"]] == [True, True]  # what was read: built-ins' own
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": WHAT}
    ]


def _told_body() -> bool:
    """A body comparing a class whose comparison is its own Python, read as such."""
    left = _Told()
    right = 5
    return left == right


def test_a_python_dunder_read_as_such_is_no_tampering() -> None:
    answer, sent = _run(SHAPE, _told_body)  # returned: not followed (`follows` names none)
    assert answer is True and [r["k"] for r in sent] == ["follows", "op"]
    assert sent[1]["s"][0]["c"] is False  # judged by the new-operand rule instead
    answer, sent = _run(SHAPE)  # nothing swapped: object's comparison, no Python
    assert answer is False and [r["k"] for r in sent] == ["follows", "op"]


def test_the_collector_is_held_off_while_the_observer_reads() -> None:
    seen: list[bool] = []

    def shape(value: Any, op: str) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return SHAPE(value, op)

    assert gc.isenabled()
    _run(shape)
    assert seen and not any(seen) and gc.isenabled()  # held off, then put back
    gc.disable()
    try:
        _run(shape)
        assert not gc.isenabled()  # a collector held off before stays off
    finally:
        gc.enable()


def _fraction_body() -> bool:
    """A body comparing a `fractions.Fraction`, whose comparison is the standard library's
    Python (`library.py`): read as such, that Python decides."""
    import fractions

    left = fractions.Fraction(1, 2)
    right = 0.5
    return left == right


def _fraction_swapping(value: Any, op: str) -> dict[str, Any]:
    """The shape of a `Fraction`, then `Fraction.__eq__` taken by a caller-told function for
    the comparison alone: the library type was read, another Python function decides."""
    import fractions

    found = SHAPE(value, op)
    if type(value) is fractions.Fraction:
        original = fractions.Fraction.__eq__

        def told(self: Any, other: object) -> bool:
            fractions.Fraction.__eq__ = original  # type: ignore[method-assign]
            return True

        fractions.Fraction.__eq__ = told  # type: ignore[method-assign]
    return found


def test_a_library_types_own_comparison_decides_with_no_tampering_and_only_it() -> None:
    answer, sent = _run(SHAPE, _fraction_body)
    assert answer is True  # Fraction(1, 2) == 0.5
    ops = [r for r in sent if r["k"] == "op"]
    assert ops[0]["s"][0]["c"] is True and ops[0]["s"][0].get("py") is True
    assert [r["k"] for r in sent] == ["follows", "op"]  # its own `__eq__` ran: no tampering
    answer, sent = _run(_fraction_swapping, _fraction_body)
    assert answer is True
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": WHAT}
    ]


def _borrowing_swap(value: Any, op: str) -> dict[str, Any]:
    """The shape of a `Fraction`, then its class swapped to one made on the spot that borrows
    `Fraction.__eq__` itself (so the code that decides is the library's, by identity) and says
    5 for its value: round 12's `fraction-swapped-after-the-read-...`, in this process."""
    import fractions

    found = SHAPE(value, op)
    if type(value) is fractions.Fraction:
        borrowing = type(
            "Borrowing",
            (fractions.Fraction,),
            {
                "__eq__": fractions.Fraction.__eq__,
                "_numerator": property(lambda s: 5),
                "_denominator": property(lambda s: 1),
                "__slots__": (),
            },
        )
        value.__class__ = borrowing
    return found


def _fraction_told_body() -> bool:
    """A body comparing `Fraction(4)` with 5: false by the library's own comparison."""
    import fractions

    left = fractions.Fraction(4)
    right = 5
    return left == right


def test_a_library_comparison_borrowed_by_another_class_decides_as_tampering() -> None:
    """The library's own `__eq__` code, run for an instance whose class merely borrowed it, is
    no library type's own: `tampered`. Fails with the excuse by code identity alone."""
    answer, sent = _run(SHAPE, _fraction_told_body)
    assert answer is False and [r["k"] for r in sent] == ["follows", "op"]
    answer, sent = _run(_borrowing_swap, _fraction_told_body)
    assert answer is True  # the borrowed comparison read the properties' 5 and 1
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": WHAT}
    ]
