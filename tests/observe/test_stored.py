"""Round 15's first class (`tests/run/test_observer_attacks_round15.py`): every comparison of a
watched body read as built-ins' own whose result is stored is followed (`jumps._store`,
`followed._stored`), on every version. pytest's rewrite of a `BoolOp` stores each operand's
result (`@py_assert9`), copies it to the assertion's own (`@py_assert0`) and loads it again
before its jump: the follow walks the copies to the jump. A result stored and not jumped on
(`x = a == b`) is read from its local at the next event (3.11 and 3.12: through the frame's
dictionary, which the observer's `reading._values` already reads for each local operand). Each
such offset is among `follows`, so its `op` owes a `fol` (`comparisons._owes`). A result left on
the stack for another instruction (a call, a return, a display) is not followed: its `op` owes
nothing, as before."""

from __future__ import annotations

from typing import Any

from fixbot.observe import followed
from tests.observe.test_decided import _Plain, _run
from tests.observe.test_followed import SHAPE, TAMPERED, _builtin, _ops, _SaysTrue, _Swapper


def _copied() -> Any:
    """A body as pytest rewrites an operand of an `or`: the comparison's result stored, copied
    to the assertion's own local, loaded again and jumped on."""
    left = _Plain(4)
    right = 5
    first = left == right
    whole = first
    if first:
        return whole
    return whole


def _kept() -> Any:
    """A body storing a comparison's result, kept for later (no jump on it at once)."""
    left = _Plain(4)
    right = 5
    kept = left == right
    found = [kept]
    return found[0]


def _kept_same() -> Any:
    """`_kept` of one object with itself (True)."""
    left = _Plain(4)
    right = left
    kept = left == right
    found = [kept]
    return found[0]


def _passed() -> Any:
    """A body whose comparison's result is passed to a call on the stack: not followed."""
    left = _Plain(4)
    right = 5
    return bool(left == right)


def _compared(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `op` records of the comparisons streamed (a truth test's, op "bool", left out)."""
    return [r for r in _ops(sent) if r["op"] != "bool"]


def _fols(sent: list[dict[str, Any]]) -> list[tuple[int, bool]]:
    return [(r["at"], r["ok"]) for r in sent if r["k"] == "fol"]


def test_a_result_stored_and_copied_before_its_jump_is_followed_to_it() -> None:
    """Round 15's `class-swapped-under-a-comparison-in-an-or`: before it, `followers` knew no
    copy between the store and the jump, the comparison owed no `fol` and its swapped class
    was never checked (fails without `_store`'s walk under 3.11 and 3.12, and without the
    truth test read at the jump, one of the follow's steps, leaving it under way:
    `reading._streamer`)."""
    ((_, kind, (_, _, stored)),) = followed.followers(_copied.__code__).values()
    assert (kind, stored) == ("jump", "first")
    cheat = _Swapper(_SaysTrue)
    answer, sent = _run(cheat.read, _copied, cheat.chained)
    assert answer is True and not cheat.swapped  # the swap decided, and was undone
    (op,) = _compared(sent)
    assert _builtin(op) and op["at"] in sent[0]["at"]  # read as built-ins' own, owing a `fol`
    assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED]
    assert _fols(sent) == [(op["at"], False)]
    # honest: followed and told
    answer, sent = _run(SHAPE, _copied)
    assert answer is False and [r for r in sent if r["k"] == "tampered"] == []
    assert _fols(sent) == [(_compared(sent)[0]["at"], True)]


def test_a_result_stored_and_kept_is_read_from_its_local_at_the_next_event() -> None:
    """`x = a == b`, kept: the stored local read (a `bool`, what the values decided) on every
    version (fails without it under 3.11 and 3.12, where it was not followed)."""
    ((_, kind, stored),) = followed.followers(_kept.__code__).values()
    assert (kind, stored) == ("store", "kept")
    for body, same in ((_kept, False), (_kept_same, True)):
        answer, sent = _run(SHAPE, body)
        assert answer is same and [r for r in sent if r["k"] == "tampered"] == []
        assert _fols(sent) == [(_compared(sent)[0]["at"], True)]
    cheat = _Swapper(_SaysTrue)
    answer, sent = _run(cheat.read, _kept, cheat.chained)
    assert answer is True and not cheat.swapped
    assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED]


def test_a_result_passed_on_the_stack_is_not_followed_and_owes_nothing() -> None:
    """What is held of it is its operands' shapes alone (`op`, read as built-ins' own); its
    offset is not among `follows`, so fixbot pairs no `fol` with it (no false alarm)."""
    assert followed.followers(_passed.__code__) == {}
    answer, sent = _run(SHAPE, _passed)
    (op,) = _compared(sent)
    assert answer is False and _builtin(op) and op["at"] not in sent[0]["at"]
    assert _fols(sent) == [] and [r for r in sent if r["k"] == "tampered"] == []
