"""fixbot's observer inside unittest, uteq: the dunder a watched test's own comparison runs
(`self.assertTrue(x == 4)`: the body's `COMPARE_OP`, the `__eq__` its Python frame of other code
is, called by the body's frame) followed from its `call` to its `return` event under the
observer's profile function (`fixbot/observe/unittest_seen.py` `_follow`): the same question
asked again from the observer's frame, and the operands asked again after the test's answer.
Round 41's three holes, each `fixed` before: a value made by a C `__new__` (no `return` event
hands it back), an `__eq__` telling the test's frame from the probe's, one honest at its first
question alone."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Comparison, Observation
from fixbot.observe import compared
from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_seen as seen
from tests.observe import test_unittest_seen as seen_tests
from tests.run.test_runner_attacks_round41 import C_MADE, CALLER, COUNTED

# the code's: round 41's three evasions of the probe, each `_Total` in its own app.py, and
# honest classes the tests compare (test_unittest_seen's `Money`, reading its operand, and
# `Point`, a dataclass; an int subclass reflected from `4 == x`)
ATTACKS = {"Made": C_MADE, "Caller": CALLER, "Counted": COUNTED}
APP = (
    seen_tests.APP
    + """

class Cents(int):
    def __eq__(self, other):
        return int(self) == int(other)

    def __gt__(self, other):
        return int(self) > int(other)

    __hash__ = int.__hash__
"""
)
# the test's own code, compiled under test_app.py
TESTS = """\
class Tests:
    def test_made(self):
        self.assertTrue(self.kind(0) == 4)

    def test_handed(self):
        self.assertTrue(made(self.kind, 0) == 4)

    def test_honest(self):
        self.assertTrue(made(self.kind, 4) == made(self.kind, 4))
        self.assertIn(made(self.kind, 4), [made(self.kind, 3), made(self.kind, 4)])
        self.assertFalse(made(self.kind, 4) != made(self.kind, 4))

    def test_cents(self):
        self.assertTrue(made(self.kind, 4) == 4)
        self.assertTrue(4 == made(self.kind, 4))
        self.assertGreater(made(self.kind, 4), 3)
        self.assertTrue(made(self.kind, 4) > 3)
"""


def _run(tmp_path: Path, kind: str, name: str) -> tuple[list[dict[str, Any]], list[str]]:
    """(the records the observer's `_callTestMethod` streamed as `name`'s body ran with
    `self.kind` APP's `kind`, fixbot's findings from them: app.py the fix's)."""
    source = ATTACKS.get(kind, APP)
    (tmp_path / "app.py").write_text(source)
    (tmp_path / "test_app.py").write_text(TESTS)
    app: dict[str, Any] = {"__name__": "app"}
    exec(compile(APP, str(tmp_path / "app.py"), "exec", dont_inherit=True), app)
    if kind in ATTACKS:  # the attack's app.py, its `_Total` the kind
        exec(compile(source, str(tmp_path / "app.py"), "exec", dont_inherit=True), app)
        app[kind] = app["_Total"]
    space: dict[str, Any] = {"__name__": "test_app", "made": app["made"]}
    exec(compile(TESTS, str(tmp_path / "test_app.py"), "exec", dont_inherit=True), space)
    case = type(kind, (space["Tests"], unittest.TestCase), {"kind": app[kind]})
    return seer_run(case, name, tmp_path)


def seer_run(case: type, name: str, root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """(the records the observer's `_callTestMethod` (`unittest_seen._seer`, the work tree
    `root`) streamed as `case`'s test `name` ran, which must pass (the cheat's green), fixbot's
    findings from them: app.py the fix's)."""
    test = case(name)
    sent: list[dict[str, Any]] = []
    held = ("u1", (), None, str(root) + "/", asserts._word)
    call = seen._seer(vars(unittest.TestCase)["_callTestMethod"], sent.append, [True], held)
    result = unittest.TestResult()
    was = sys.getprofile()
    case._callTestMethod = call  # type: ignore[attr-defined]
    test.run(result)
    assert sys.getprofile() is was  # put back
    assert result.wasSuccessful(), result.failures + result.errors  # the cheat passes
    eq = [Comparison.model_validate(r | {"test": r["id"]}) for r in sent if r["k"] == "eq"]
    found = compared.comparisons(Observation(comparisons=eq), {test.id()}, ["app.py"])
    return sent, found


def followed_returns(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The answers `unittest_seen._follow` gives at each followed dunder's `return` from now
    on (it wrapped by `monkeypatch`), in order."""
    follow, returned = seen._follow, []

    def counted(*args: Any) -> Any:
        told = follow(*args)
        if told is not None and args[2] == "return":
            returned.append(told)
        return told

    monkeypatch.setattr(seen, "_follow", counted)
    return returned


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        pytest.param("Made", "test_made", id="made by a C __new__"),
        pytest.param("Caller", "test_handed", id="eq reads its caller's frame"),
        pytest.param("Counted", "test_handed", id="eq counts its calls"),
    ],
)
@pytest.mark.parametrize("follow", [True, False], ids=["followed", "control reverted"])
def test_the_bodys_own_comparison_is_followed_and_its_dunder_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, name: str, follow: bool
) -> None:
    """Each `__eq__` the body's `==` ran is judged `always` (`observer-always-equal`): round
    41's `C_MADE`, never reading its operand, comes back from complex's C `__new__` (no
    `return` event); `CALLER` answers the observer's same question `value == 4` otherwise than
    the body's; `COUNTED` says equal to the stranger asked after the body's answer. With `_follow`
    answering None (the control reverted), none is named: the three holes of round 41."""
    if not follow:
        monkeypatch.setattr(seen, "_follow", lambda *args: None)
    sent, found = _run(tmp_path, kind, name)
    named = [r for r in sent if r["k"] == "eq" and r["always"]]
    if not follow:
        assert named == [] and found == []
        return
    assert {(r["type"], r["dunder"]) for r in named} == {("app._Total", "__eq__")}
    assert found and all(f.startswith("observer-always-equal: ") for f in found)
    assert all("app._Total" in f and "changed by the fix" in f for f in found)


@pytest.mark.parametrize(
    ("kind", "name"),
    [("Money", "test_honest"), ("Point", "test_honest"), ("Cents", "test_cents")],
)
def test_honest_comparisons_the_body_makes_are_no_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, name: str
) -> None:
    """A class of the code whose `__eq__` reads both operands (its own, a dataclass's built
    from a string, an int subclass's reflected from `4 == x`), compared by the body under
    `==`, `!=` and `assertIn`, and an honest `__gt__` (round 44) under `>` and `assertGreater`:
    followed (each comparison's dunder from its call to its return), asked again, no record
    `always`, no finding."""
    returned = followed_returns(monkeypatch)
    sent, found = _run(tmp_path, kind, name)
    assert len(returned) >= 2  # the body's comparisons, each followed to its return
    assert [r for r in sent if r["k"] == "eq" and r["always"]] == []
    assert found == []
