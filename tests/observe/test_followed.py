"""The verdict follows the instruction (`fixbot.observe.followed`): after a comparison whose
operands the observer's trace function read as built-ins' own, what the instruction decided
(the result stored, or the way its jump went) is held against what the values read decide, and
the operands' types are read again. Project code run between the read and the instruction (a
signal handler, another thread: here the shape reader itself, then a tracer chained ahead of the
observer's, which gets each event first) that swaps an operand's class to one whose `__eq__` is
a C callable, and back once the instruction ran, is `tampered`."""

from __future__ import annotations

import sys
from typing import Any

from fixbot.observe import bodies, followed, operands, shapes
from tests.observe.test_decided import _Plain, _run

SHAPE = shapes.shape_reader(bodies._code_digest)
TAMPERED = {"k": "tampered", "id": "t::x", "what": followed.TAMPERED}


def _ops(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `op` records of what the trace function streamed."""
    return [r for r in sent if r["k"] == "op"]


def _builtin(record: dict[str, Any]) -> bool:
    """Whether an `op` record's operands were both read as built-ins' own (followed)."""
    return len(record["s"]) == 2 and all(s["c"] is True for s in record["s"])


class _SaysTrue:
    """Says equal from C: `bool` of the other operand answers a `bool` (True for an instance
    of a plain class), and runs no Python frame (no `call` event for `operands._decider`)."""

    __eq__ = staticmethod(bool)  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]


class _SaysId:
    """Says equal from C with no `bool`: `id` of the other operand."""

    __eq__ = staticmethod(id)  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]


def _stored() -> Any:
    """A body as pytest rewrites an assertion: the comparison's result stored, loaded again and
    jumped on."""
    left = _Plain(4)
    right = 5
    result = left == right
    if result:
        return result
    return result


def _stored_alone() -> Any:
    """A body storing a comparison's result and handing it back."""
    left = _Plain(4)
    right = 5
    result = left == right
    return result


def _jumped() -> bool:
    """A body whose comparison's result a conditional jump pops."""
    left = _Plain(4)
    right = _Plain(5)
    if left == right:  # noqa: SIM103 (the jump is what is tested)
        return True
    return False


class _Swapper:
    """The cheat: `read(value, op)` reads the shape, then swaps a `_Plain` operand's class to
    `told` (project code after the read); `chained` is a tracer set before the observer's that
    asks for opcode events and puts the class back at the first event past the comparison
    (before the observer's trace function gets it): the instruction alone saw the swap."""

    def __init__(self, told: type) -> None:
        self.told = told
        self.swapped: list[Any] = []
        self.at = -1

    def read(self, value: Any, op: str) -> dict[str, Any]:
        found = SHAPE(value, op)
        if type(value) is _Plain and not self.swapped:
            self.at = sys._getframe(3).f_lasti  # the body's frame, under `stream` and `held`
            value.__class__ = self.told
            self.swapped.append(value)
        return found

    def chained(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
        if event == "opcode" and self.swapped and frame.f_lasti != self.at:
            self.swapped.pop().__class__ = _Plain
        return self.chained


def test_a_class_swapped_between_the_read_and_the_instruction_and_back_is_tampering() -> None:
    """The read said `object`'s comparison (identity: False), the instruction answered True
    through a C `__eq__`, and the class was put back before the observer's next event: fails
    without the control (no Python frame decided: `_decider` is silent)."""
    for body in (_stored, _jumped):
        cheat = _Swapper(_SaysTrue)
        answer, sent = _run(cheat.read, body, cheat.chained)
        assert answer is True and not cheat.swapped  # the swap decided, and was undone
        assert [s["c"] for s in _ops(sent)[0]["s"]] == [True, True]  # read as built-ins' own
        assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED], body


def _listed() -> bool:
    """A body comparing two lists, one holding an instance of a plain class."""
    left = [_Plain(4)]
    right = [5]
    if left == right:  # noqa: SIM103 (the jump is what is tested)
        return True
    return False


class _ItemSwapper(_Swapper):
    """The cheat of round 14: a `_Plain` item of a list operand swapped after the read and back
    (its container's type, read again, is unchanged)."""

    def read(self, value: Any, op: str) -> dict[str, Any]:
        found = SHAPE(value, op)
        if type(value) is list and value and type(value[0]) is _Plain and not self.swapped:
            self.at = sys._getframe(3).f_lasti
            value[0].__class__ = self.told
            self.swapped.append(value[0])
        return found


def test_an_item_swapped_between_the_read_and_the_instruction_and_back_is_tampering() -> None:
    """What two lists of value types and plain objects compare is computed at the read
    (`followed._flat`: no code of anyone's runs for it): the instruction answered otherwise.
    Fails without the containers' answer (`expected` gave none for two lists)."""
    cheat = _ItemSwapper(_SaysTrue)
    answer, sent = _run(cheat.read, _listed, cheat.chained)
    assert answer is True and not cheat.swapped
    assert [s["c"] for s in _ops(sent)[0]["s"]] == [True, True]
    assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED]
    # an honest one: nothing
    answer, sent = _run(SHAPE, _listed)
    assert answer is False and [r for r in sent if r["k"] == "tampered"] == []
    # what is computed and what is not
    assert followed.expected("==", [[1, (2, "a")], [1, (2, "a")]], (list, list)) is True
    assert followed.expected("in", [3, {1: _Plain(2)}], (int, dict)) is False
    told: list[Any] = [_SaysTrue()]
    assert followed.expected("==", [told, [5]], (list, list)) is None  # its `__eq__` is C
    assert followed.expected("==", [[1] * 200, [1] * 200], (list, list)) is None  # past the bound


def test_a_result_that_is_no_bool_or_a_class_left_swapped_is_tampering() -> None:
    cheat = _Swapper(_SaysId)  # put back: the stored result is an `int`
    answer, sent = _run(cheat.read, _stored, cheat.chained)
    assert type(answer) is int
    assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED]
    cheat = _Swapper(_SaysTrue)  # left swapped: the type read again is not the one read
    answer, sent = _run(cheat.read, _jumped)
    assert answer is True and cheat.swapped
    assert [r for r in sent if r["k"] == "tampered"] == [TAMPERED]


def _honest() -> list[Any]:
    """Comparisons of built-ins' own, each answered both ways, stored and jumped on."""
    one, two, same = _Plain(1), _Plain(2), _Plain(3)
    other = same
    four, five, text, items = 4, 5, "abc", [1, 2]
    found = [one == two, same == other, one != two, four < five, four >= five]
    found += ["b" in text, "z" in text, items == [1, 2], 4 == 4.0, None == five]  # noqa: E711, SIM300
    if four == five or five == five or "a" not in text or items != [1, 2] or same != other:
        found.append(True)
    if four > five or one == two:
        found.append(False)
    while four < five:
        four += 1
    return found


def test_honest_comparisons_are_followed_with_no_finding() -> None:
    answer, sent = _run(SHAPE, _honest)
    assert answer == [False, True, True, True, False, True, False, True, True, False, True]
    assert len(_ops(sent)) > 10  # each read
    assert [r["k"] for r in sent if r["k"] not in ("op", "fol")] == ["follows"]
    # each comparison read as built-ins' own at an offset followed has its follow, told
    followers = set(sent[0]["at"])
    owed = [r["at"] for r in _ops(sent) if r["at"] in followers and _builtin(r)]
    assert len(owed) > 5
    assert [(r["at"], r["ok"]) for r in sent if r["k"] == "fol"] == [(at, True) for at in owed]


def test_each_comparisons_follower_is_read_from_the_code() -> None:
    stored = followed.followers(_stored.__code__)
    assert [(kind, what[2]) for _, kind, what in stored.values()] == [("jump", "result")]
    alone = followed.followers(_stored_alone.__code__)  # every version since round 15
    assert [(kind, what) for _, kind, what in alone.values()] == [("store", "result")]
    jumped = followed.followers(_jumped.__code__)
    assert [kind for _, kind, _ in jumped.values()] == ["jump"]
    ((steps, _, (after, on_true, _)),) = jumped.values()
    assert min(after) > max(steps)
    assert on_true is (sys.version_info < (3, 11))  # 3.11 and later: a jump if False
    assert followed.followers(operands._compare_once.__code__) == {}  # returned: not followed


def test_what_the_values_read_decide() -> None:
    plain, also = _Plain(1), _Plain(1)
    assert followed.expected("==", [plain, also], (_Plain, _Plain)) is False
    assert followed.expected("!=", [plain, plain], (_Plain, _Plain)) is False
    assert followed.expected("==", [plain, 1], (_Plain, int)) is False  # both NotImplemented
    assert followed.expected("<", [plain, 1], (_Plain, int)) is None  # raises
    assert followed.expected("<", [4, 5.5], (int, float)) is True
    assert followed.expected("in", ["b", "abc"], (str, str)) is True
    assert followed.expected("<", [None, 1], (type(None), int)) is None  # raises: no answer
    assert (
        followed.expected("==", [[1], [1]], (list, list)) is True
    )  # containers of values (round 14)
    assert followed.expected("==", [plain, _SaysTrue()], (_Plain, _SaysTrue)) is None


def _made(same: bool) -> Any:
    """A body whose comparison's jump, and the instruction it falls through to, take
    `EXTENDED_ARG` prefixes (a constant past the 256th, an `if` body past 255 code units),
    comparing one `_Plain` with itself (`same`) or with another."""
    lines = [f"    x = {n + 1000}" for n in range(300)]
    lines += ["    left = _Plain(1)", f"    right = {'left' if same else '_Plain(2)'}"]
    lines += ["    if left == right:", "        found = 9999"]
    lines += [f"        found = {n + 5000}" for n in range(150)]
    lines += ["        return found", "    return 0"]
    space: dict[str, Any] = {"_Plain": _Plain}
    exec(compile("def body():\n" + "\n".join(lines) + "\n", "<made>", "exec"), space)
    return space["body"]


def test_a_jump_or_its_way_on_behind_extended_arguments_is_followed() -> None:
    for same, answer in ((True, 5149), (False, 0)):
        body = _made(same)
        ((_, kind, (after, _, _)),) = followed.followers(body.__code__).values()
        assert kind == "jump" and len(after) == 2  # an `EXTENDED_ARG`, then `LOAD_CONST`
        found, sent = _run(SHAPE, body)
        assert found == answer and [r["k"] for r in sent] == ["follows", "op", "fol"]
        assert sent[2] == {"k": "fol", "id": "t::x", "at": sent[1]["at"], "ok": True}
        cheat = _Swapper(_SaysTrue)
        found, sent = _run(cheat.read, _made(False), cheat.chained)
        assert found == 5149 and [r for r in sent if r["k"] == "tampered"] == [TAMPERED]
