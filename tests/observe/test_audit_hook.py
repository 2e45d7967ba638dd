"""Round 12's way in: an audit hook the project adds (`sys.addaudithook`) is called with the
arguments of every audited function any code calls afterwards, the observer's own among them
(its `sys._getframe` raises `sys._getframe`, 3.10 and later), so it runs inside the observer's
reading of a comparison as a trace function would. Adding one is streamed as a reach
(`fixbot.observe.reach.EVENTS`) and is a finding where the start's run did not add one."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.observe import judge
from tests.observe.test_observer import ADD, PYTEST, START, observe

HOOKED = """\
import sys


def _hook(event, args):
    return None


def add(a, b):
    sys.addaudithook(_hook)
    return a + b
"""


@pytest.mark.slow
def test_an_audit_hook_the_project_adds_is_a_reach(tmp_path: Path) -> None:
    """Fails without `sys.addaudithook` in `reach.EVENTS`: the hook is added with no record."""
    seen = observe(tmp_path, PYTEST, {"app.py": HOOKED}, [ADD])
    assert seen.sessions == seen.ended == 1
    reached = {(r.event, r.file) for r in seen.reached}
    assert ("sys.addaudithook", "app.py") in reached, reached
    found = [f for f in judge.findings(START, seen, ["app.py"]) if "reach" in f]
    assert found and "app.py raised sys.addaudithook" in found[0], found


@pytest.mark.slow
def test_the_observer_adding_its_own_hook_is_no_reach(tmp_path: Path) -> None:
    """The observer's own hook, added at load, raises the event before any hook of its own
    hears it: an honest run reaches nothing."""
    seen = observe(tmp_path, PYTEST, {}, [ADD])
    assert seen.sessions == seen.ended == 1
    assert not [r for r in seen.reached if r.event == "sys.addaudithook"], seen.reached
