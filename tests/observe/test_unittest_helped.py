"""fixbot's observer inside unittest, helpereq: the dunder a comparison of a helper module of the
tests' runs (checks.py's `assert_alike`, `if first != second: raise`, called by the test body)
followed from its `call` to its `return` under the observer's profile function, as the body's
own are (`fixbot/observe/unittest_helped.py` `_ours`, read by `unittest_seen._seer`)."""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any

import pytest

from fixbot.observe import unittest_seen as seen
from tests.observe.test_unittest_followed import followed_returns, seer_run
from tests.run.test_runner_attacks_helpereq import HONEST_CLASS_FIXED, NUMBER, PLAIN
from tests.run.test_runner_attacks_round36 import ASSERTS

TESTS = """\
class Tests:
    def test_add(self):
        assert_alike(add(2, 2), 4)
        assert_alike(4, add(2, 2))
"""


def _run(tmp_path: Path, app_source: str) -> tuple[list[dict[str, Any]], list[str]]:
    """(the records the observer's `_callTestMethod` streamed as the test's body called
    checks.py's `assert_alike` on `app_source`'s `add(2, 2)`, fixbot's findings: app.py the
    fix's)."""
    spaces: dict[str, dict[str, Any]] = {}
    for name, source in (("app", app_source), ("checks", ASSERTS)):
        (tmp_path / f"{name}.py").write_text(source)
        spaces[name] = {"__name__": name}
        code = compile(source, str(tmp_path / f"{name}.py"), "exec", dont_inherit=True)
        exec(code, spaces[name])
    space = {"__name__": "test_app", "add": spaces["app"]["add"]}
    space["assert_alike"] = spaces["checks"]["assert_alike"]
    exec(compile(TESTS, str(tmp_path / "test_app.py"), "exec", dont_inherit=True), space)
    return seer_run(type("Helped", (space["Tests"], unittest.TestCase), {}), "test_add", tmp_path)


@pytest.mark.parametrize("app", [PLAIN, NUMBER], ids=["plain class", "int subclass"])
@pytest.mark.parametrize("follow", [True, False], ids=["followed", "control reverted"])
def test_a_lie_told_to_a_helper_modules_comparison_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, follow: bool
) -> None:
    """`__ne__` answering checks.py's frame "not different" (and the observer's honestly) is an
    `always` record, `observer-always-equal`; with `_ours` following no other module's frame
    (the control reverted), nothing is named: round 43's hole."""
    if not follow:
        monkeypatch.setattr(seen.helped, "_ours", lambda *args: lambda *a: False)
    sent, found = _run(tmp_path, app)
    named = [r for r in sent if r["k"] == "eq" and r["always"]]
    if not follow:
        assert named == [] and found == []
        return
    assert {(r["type"], r["dunder"]) for r in named} == {("app._Total", "__ne__")}
    assert found and all(f.startswith("observer-always-equal: ") for f in found)


def test_an_honest_class_compared_by_a_helper_module_is_no_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app.py's class with an honest `__eq__`/`__ne__`, compared by checks.py's `!=` both ways:
    followed to its return (`_follow` answers at least twice), asked again, no finding."""
    returned = followed_returns(monkeypatch)
    sent, found = _run(tmp_path, HONEST_CLASS_FIXED)
    assert len(returned) >= 2
    assert [r for r in sent if r["k"] == "eq" and r["always"]] == []
    assert found == []
