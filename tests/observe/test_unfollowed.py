"""What decides a verdict leaves on the channel as the observer learns it, and fixbot pairs it
(round 14's `follow-cleared-through-the-observers-frame-locals`): the comparisons of a body the
observer follows are streamed as its call begins (`follows`), each comparison read as built-ins'
own at one of them (`op`, its offset `at`) owes the record of its follow (`fol`), and one never
paid is `observer-tampered`. The note of the comparison being followed lives in a list any frame
of the observer's holds as a local; project code run inside the observer (a signal handler, given
the frame it interrupted and its `f_back`s) clears it, and the follow never runs: what was
streamed before cannot be taken back."""

from __future__ import annotations

import json
import sys
from typing import Any

from fixbot.core.observed import Observation
from fixbot.observe import compared, followed, judge
from fixbot.observe.stream import parse
from tests.observe.test_decided import _run
from tests.observe.test_followed import SHAPE, _jumped, _SaysTrue, _Swapper
from tests.observe.test_streamed import ADD, START, _green

C = {"t": "int", "c": True}  # an operand read as built-ins' own
PY = {"t": "app.S", "c": False, "o": "S.__eq__", "h": "abc"}  # one whose comparison is Python


def _parsed(records: list[dict[str, Any]], test: str = ADD) -> Observation:
    """The observation of `records` (each given the test id `test`), streamed with the nonce
    `n` after a session's start watching `test`."""
    lines = [{"k": "start", "watch": [test]}, *({**r, "id": test} for r in records)]
    return parse("\n".join("n\t" + json.dumps(r) for r in lines), "n")


def _op(at: int, shapes: list[dict[str, Any]], op: str = "==") -> dict[str, Any]:
    return {"k": "op", "at": at, "line": 5, "op": op, "s": shapes}


def _findings(seen: Observation) -> list[str]:
    """What the judge says of a green run whose stream paired its follows as `seen` did."""
    last = _green(follows=seen.follows, unfollowed=seen.unfollowed, tampered=seen.tampered)
    return [f for f in judge.findings(START, last) if f.startswith("observer-tampered")]


def test_an_op_owing_a_follow_that_never_came_is_tampered() -> None:
    owed = _parsed([{"k": "follows", "at": [10, 30]}, _op(10, [C, C])])
    assert owed.unfollowed == {ADD: [(10, 5)]}
    assert _findings(owed) == [
        f"observer-tampered: {ADD}: its comparison at line 5 was read as built-ins' own and"
        " what its instruction decided was never followed (the observer's note of it was"
        " changed while it ran)"
    ]
    # paid: its follow's record came, told
    paid = _parsed([{"k": "follows", "at": [10]}, _op(10, [C, C]), {"k": "fol", "at": 10}])
    assert paid.unfollowed == {ADD: []} and _findings(paid) == []
    # owed nothing: an offset not followed, an operand of Python, a truth test
    # a comparison of the test module's other code (`n`: a generator expression's, at its own
    # code's offset, which the body's `follows` do not name)
    nested = {**_op(10, [C, C]), "n": True}
    for record in (_op(20, [C, C]), _op(10, [C, PY]), _op(10, [C], "bool"), nested):
        assert _parsed([{"k": "follows", "at": [10]}, record]).unfollowed == {}
    # a follow told otherwise is tampering, whatever the observer's once-a-call mark said
    told = _parsed(
        [{"k": "follows", "at": [10]}, _op(10, [C, C]), {"k": "fol", "at": 10, "ok": False}]
    )
    assert told.tampered == {ADD: [followed.TAMPERED]}
    # a stream cut short of what was sent says nothing of what never came
    assert compared.unfollowed(owed.model_copy(update={"overflow": True}), {ADD}) == []


class _Clearer(_Swapper):
    """The cheat, in this process: the class swapped after the read (`_Swapper.read`), and, at
    the first event past the comparison (this tracer is chained ahead of the observer's, and
    gets each event first), the observer's note of the comparison being followed cleared
    through its calling frame's locals (`_notes`, the local trace function's default: what a
    signal handler reaches through `f_locals`) and the class put back."""

    def chained(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode" and self.swapped and frame.f_lasti != self.at:
            notes = sys._getframe(1).f_locals["_notes"]
            notes[7] = None  # nothing followed
        return super().chained(frame, event, arg)


def test_a_follow_cleared_by_project_code_leaves_its_op_unpaid() -> None:
    """Fails without the pairing: the observer itself streams no finding once its note is
    cleared; the `op` it streamed first owes a `fol` that never comes."""
    cheat = _Clearer(_SaysTrue)
    answer, sent = _run(cheat.read, _jumped, cheat.chained)
    assert answer is True and not cheat.swapped  # the swap decided, and was undone
    assert [r["k"] for r in sent] == ["follows", "op"]  # no `tampered`, no `fol`
    assert sent[1]["at"] in sent[0]["at"] and [s["c"] for s in sent[1]["s"]] == [True, True]
    seen = _parsed(sent, "t::x")
    assert [line for _, line in seen.unfollowed["t::x"]] == [sent[1]["line"]]
    assert compared.unfollowed(seen, {"t::x"})[0].startswith("observer-tampered: t::x: its")
    # the same body, nothing swapped nor cleared: its follow paid, told
    answer, sent = _run(SHAPE, _jumped)
    assert answer is False and [r["k"] for r in sent] == ["follows", "op", "fol"]
    assert _parsed(sent, "t::x").unfollowed == {"t::x": []}
