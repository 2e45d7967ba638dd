"""fixbot's observer inside unittest, round 30: the watch on calls (`unittest_watch._watcher`,
`sys.monitoring`, Python 3.12 and later) switched off by the code under test is a finding
(`unittest_watch._off`), and put back on for the tests after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.observe import unittest_asserts as asserts
from fixbot.observe import unittest_watch as watch_part
from tests.fakes.pythons import version_of
from tests.observe.test_unittest_observer import pythons

SWITCHED = '''\
import importlib.util, json, os, sys, unittest

def part(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(sys.argv[1], name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

sys.path.insert(0, sys.argv[1])  # the watch imports `unittest_asserts` beside it by name
asserts, result, watched = part("unittest_asserts"), part("unittest_result"), part("unittest_watch")
APP = """
import sys
watch = sys.monitoring
CALL = watch.events.CALL

def add(a, b, how):
    caller = sys._getframe(1)
    test = caller.f_locals["self"]
    owner = type(test) if how == "class" else test
    tools = [t for t in range(6) if watch.get_tool(t) is not None]
    for tool in tools if how == "local" else ():
        watch.set_local_events(tool, caller.f_code, 0)
    for tool in tools if how == "callback" else ():
        watch.register_callback(tool, CALL, None)
    for tool in tools if how == "freed" else ():
        watch.free_tool_id(tool)
    for tool in tools if how == "taken" else ():
        watch.free_tool_id(tool)
        watch.use_tool_id(tool, "other")
    for tool in tools if how == "undone" else ():  # a limit: put back before the end
        watch.set_local_events(tool, caller.f_code, 0)

    def alike(*args):
        delattr(owner, "assertEqual")
        for tool in tools if how == "undone" else ():
            watch.set_local_events(tool, caller.f_code, CALL)

    setattr(owner, "assertEqual", alike)
    return a - b
"""
space = {}
exec(compile(APP, "/tmp/app.py", "exec"), space)

class Named(unittest.TestCase):
    how = ""

    def test_add(self):
        total = space["add"](2, 2, self.how)
        self.assertEqual(total, 4)

sent, state = [], [True, 0, False, None]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
watch = watched._watcher(sent.append, state, ("u1", (), None, root, asserts._word))
orig = vars(unittest.TestCase)["_callTestMethod"]
for how in sys.argv[2:]:
    test = Named("test_add")
    test.how = how
    result._caller(orig, [[test, 0, 0, 0]], *watch)(test, test.test_add)
    print(json.dumps([n for record in sent for n in record["changed"]]))
    sent.clear()
'''


@pytest.mark.slow  # processes under each Python 3.12 or later found (none: skipped)
def test_a_watch_switched_off_by_the_code_under_test_is_a_finding(tmp_path: Path) -> None:
    """Round 30: `add` switches the watch off (its caller's local events cleared, the `CALL`
    callback set to None, the tool id freed, or taken by another name) before setting round
    27's `assertEqual` that deletes itself as it is called: unseen, the watch off. The watch
    proves itself on at each test's start and end (`_off`): `unittest: the watch on calls
    switched off` streamed once, and the watch put back (the next test's round 27 cheat, on the
    class, is named), but where another name holds the tool id (before 3.14 a tool id freed
    keeps its callback and events: the cheat is seen too). Known limit: local events set back
    before the end are unseen (round 30's strict xfail; a callback set back is audited,
    `reach`)."""
    if sys.version_info < (3, 12):  # in this process: no watch, nothing to switch off
        assert watch_part._watcher(print, [True], ()) == (None, None, None)
    newer = [
        p for p in pythons() if int((version_of(p, ("unittest",)) or "3.0").split(".")[1]) > 11
    ]
    if not newer:
        pytest.skip("no Python 3.12 or later found (sys.monitoring)")
    script = tmp_path / "switched.py"
    script.write_text(SWITCHED)
    folder = os.path.dirname(asserts.__file__)
    seen = [f"unittest: assertEqual of {w} set by /tmp/app.py" for w in ("test", "Named")]
    for python in newer:
        for how in ("local", "callback"):
            lines = _run(python, script, folder, how, "class")
            assert lines == [[watch_part.OFF], seen[1:]], (python, how, lines)
        for how in ("freed", "taken"):  # the tool id's callback and events kept before 3.14
            lines = _run(python, script, folder, how, "class")
            assert lines[0][-1] == watch_part.OFF and lines[0][:-1] in ([], seen[:1]), lines
        assert _run(python, script, folder, "undone") == [[]]  # the limit: unseen


def _run(python: str, script: Path, folder: str, *how: str) -> list[list[str]]:
    done = subprocess.run(
        [python, str(script), folder, *how], capture_output=True, text=True, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines()]
