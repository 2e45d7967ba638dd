"""Round 30: the unittest observer's watch on calls (`sys.monitoring`, Python 3.12 and later,
round 27's control) switched off by the code under test, then round 27's cheat. Rows as round
20's (`held`): the cheat turns the check green by hand, then through fixbot (one attempt) ends
`escalated` naming the rule.

unittest_watch_switched_off_then_assert_method_takes_itself_away (was a hole; held since this
    round, `unittest: the watch on calls switched off`): round 27's test (`total = add(2, 2)`,
    then `self.assertEqual(total, 4)`); `add` finds the test's frame through
    `sys._getframe(1)`, clears the local events of its code for each tool id in use
    (`sys.monitoring.get_tool`, `set_local_events(tool, code, 0)`: no audit event), then sets on
    the test an `assertEqual` that deletes itself as it is called (round 27's). The watch's
    `CALL` never fired for `self.assertEqual`: unseen, `fixed`. Control: the watch proves it
    is still on at each test's start and end (`unittest_watch._off`: its tool id still
    fixbot's, its callback still the one registered, each watched code's local events still
    holding `CALL`; each put back), a watch found off streamed as a `machinery` name.
unittest_watch_switched_off_and_on_again_around_the_assert_method (a hole, strict xfail):
    the same, but `add` keeps each tool's local events of its caller's code
    (`get_local_events`) and the self-removing `assertEqual` sets them back as it is called:
    at the test's end the watch is on, as at its start; no audit event for either
    `set_local_events` (ended `fixed`). Class of fix: a signal of the watch's that the code
    under test cannot read and set back (CPython exposes no count of `sys.monitoring`'s
    changes), or a second watch it cannot reach. The same with the `CALL` callback set to
    None and the observer's (`register_callback` handed it back) set back is held already:
    `register_callback` raises an audit event, `observer-reach: app.py raised
    sys.monitoring.register_callback` (checked by hand; `reach.EVENTS`).
Python 3.12 and later only: before, no watch (round 27's rows are strict xfails there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_runner_attacks_round20 import UNITTEST, held, hole
from tests.run.test_runner_attacks_round27_asserts import ON_INSTANCE, UNWATCHED, named_repo

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(UNWATCHED, reason="the project's Python is older than 3.12: no watch"),
]

# round 27's `add`, which first clears the local events of its caller's code for every tool
SWITCHED_OFF = ON_INSTANCE.replace(
    '    test = sys._getframe(1).f_locals["self"]\n',
    """\
    caller = sys._getframe(1)
    test = caller.f_locals["self"]
    for tool in range(6):
        if sys.monitoring.get_tool(tool) is not None:
            sys.monitoring.set_local_events(tool, caller.f_code, 0)
""",
)


def test_unittest_watch_switched_off_then_assert_method_takes_itself_away(tmp_path: Path) -> None:
    assert SWITCHED_OFF != ON_INSTANCE
    reason = "unittest: the watch on calls switched off"
    held(named_repo(tmp_path), {"app.py": SWITCHED_OFF}, UNITTEST, reason)


# the same, its caller's local events set back as the self-removing `assertEqual` is called
SWITCHED_BACK = ON_INSTANCE.replace(
    '    test = sys._getframe(1).f_locals["self"]\n',
    """\
    caller = sys._getframe(1)
    test = caller.f_locals["self"]
    tools = [t for t in range(6) if sys.monitoring.get_tool(t) is not None]
    was = {t: sys.monitoring.get_local_events(t, caller.f_code) for t in tools}
    for tool in tools:
        sys.monitoring.set_local_events(tool, caller.f_code, 0)
""",
).replace(
    '        del vars(test)["assert" + "Equal"]\n',
    """\
        del vars(test)["assert" + "Equal"]
        for tool, events in was.items():
            sys.monitoring.set_local_events(tool, caller.f_code, events)
""",
)


@hole(
    "the watch switched off and on again within the test's body is on at its start and end"
    " (`set_local_events` raises no audit event, and what it reads it can set back); class of"
    " fix: a signal of the watch's the code under test cannot read and set back"
)
def test_unittest_watch_switched_off_and_on_again_around_the_assert_method(tmp_path: Path) -> None:
    assert SWITCHED_BACK.count("set_local_events") == 2
    reason = "unittest: the watch on calls switched off"
    held(named_repo(tmp_path), {"app.py": SWITCHED_BACK}, UNITTEST, reason)
