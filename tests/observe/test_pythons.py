"""The observer's parts under the Pythons whose frames and tracing differ from the one running
these tests: Python 3.12's `sys.monitoring` (PEP 669), through which a callback the project
registers runs in any frame's context as a trace function does, and Python 3.13's write-through
`frame.f_locals` (PEP 667), through which code the test's body calls can rebind the body's
locals. Each test runs the observer inside every such interpreter found (`tests.fakes.pythons`:
the project's Python, those named in `FIXBOT_TEST_PYTHONS`, `python3.12` and later on PATH,
each with pytest), and skips, saying so, where there is none."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fixbot.observe import judge
from tests.fakes.pythons import pythons_from
from tests.observe.test_observer import ADD, START, observe

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# the profile function (`watch.watcher`) around a body that calls code rebinding its locals,
# and around one whose closure rebinds a cell of its own (`nonlocal`, lawful): the records
# each streamed, one JSON line per body
REBINDING = """\
import json
import sys

from fixbot.observe import watch


def control(profile, event, arg=None):
    return profile(None, event, arg)


def rebind():
    sys._getframe(1).f_locals["expected"] = 4


def body_rebound():
    expected = 5
    rebind()
    return 4 == expected


def body_nonlocal():
    count = 0

    def bump():
        nonlocal count
        count += 1

    bump()
    return count == 1


for body in (body_rebound, body_nonlocal):
    sent = []
    profile = watch.watcher(sent.append, frozenset({id(control.__code__)}))
    control(profile, "begin", ("t::x", body.__code__, body.__globals__, "/nowhere/"))
    sys.setprofile(profile)
    answer = body()
    sys.setprofile(None)
    notes = control(profile, "end")
    print(json.dumps({"answer": answer, "sent": sent, "returned": notes["returned"]}))
"""


def test_code_the_body_calls_rebinding_its_locals_is_tampering() -> None:
    """On Python 3.13 and later (a write through `f_locals` reaches the frame), a callee that
    rebinds the body's `expected` turns `4 == 5` true with no trace function and no audit
    event; the profile function compares the body's locals around each call it makes. Fails
    without `bracket.bracket` (no record); a closure's `nonlocal` is no finding."""
    found = pythons_from((3, 13))
    if not found:
        pytest.skip("no Python 3.13 or later with pytest here (FIXBOT_TEST_PYTHONS names one)")
    for python, version in found:
        done = subprocess.run(
            [python, "-c", REBINDING],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (version, done.stderr)
        rebound, lawful = (json.loads(line) for line in done.stdout.splitlines())
        assert rebound["answer"] is True and rebound["returned"], (version, rebound)
        what = "code the test's body called rebound the body's locals"
        assert rebound["sent"] == [{"k": "tampered", "id": "t::x", "what": what}], version
        assert lawful["answer"] is True and lawful["sent"] == [], (version, lawful)


# a callback registered with `sys.monitoring` (Python 3.12 and later) runs at each event of the
# frames it asks for, the body's included, as a trace function does
MONITORING = """\
import sys


def _noted(code, offset):
    return None


def add(a, b):
    if hasattr(sys, "monitoring"):
        sys.monitoring.register_callback(3, sys.monitoring.events.PY_START, _noted)
    return a + b
"""


def test_a_monitoring_callback_the_project_registers_is_a_reach(tmp_path: Path) -> None:
    """`sys.monitoring.register_callback` from `app.py` is streamed as a reach, as
    `sys.settrace` is, and is a finding where the start's run did not raise it. Fails without
    the event in `reach.EVENTS`."""
    found = pythons_from((3, 12))
    if not found:
        pytest.skip("no Python 3.12 or later with pytest here (FIXBOT_TEST_PYTHONS names one)")
    for python, version in found:
        check = f"{python} -m pytest -q -p no:cacheprovider tests"
        seen = observe(tmp_path / version, check, {"app.py": MONITORING}, [ADD])
        assert seen.sessions == seen.ended == 1, version
        reached = {(r.event, r.file) for r in seen.reached}
        assert ("sys.monitoring.register_callback", "app.py") in reached, (version, reached)
        found_ = [f for f in judge.findings(START, seen, ["app.py"]) if "reach" in f]
        assert "app.py raised sys.monitoring.register_callback" in found_[0], found_
