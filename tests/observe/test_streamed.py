"""Facts the observer streams the moment it learns them, compared by fixbot outside the process:
how a watched test's body left each call (paired with the call's own report), and the
fingerprints of the runner's machinery and of the observer itself at load, at registration and
at each check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import integrity, judge
from fixbot.observe.fingerprints import ITSELF, WIDE
from fixbot.observe.stream import parse
from tests.observe.test_observer import ADD, PYTEST, TEST, ZERO, observe

START = Observation(sessions=1, ended=1, tests={ADD: "failed", ZERO: "passed"}, statuses=[1])
NAMES = ["_pytest.python.Function.runtest", "os._exit"]
STEADY = integrity.digest(["f1"])  # a teardown's hash: the session-wide names' fingerprints


def _stream(*records: dict[str, object]) -> Observation:
    """The observation of `records`, each streamed with the nonce `n`, after a session's start
    watching ADD."""
    lines = [{"k": "start", "watch": [ADD]}, *records]
    return parse("\n".join("n\t" + json.dumps(r) for r in lines), "n")


def _call(test: str, outcome: str = "passed", **more: object) -> dict[str, object]:
    return {"k": "r", "id": test, "w": "call", "o": outcome, **more}


def _green(**changes: object) -> Observation:
    values: dict[str, object] = dict(
        sessions=1,
        ended=1,
        tests={ADD: "passed", ZERO: "passed"},
        statuses=[0],
        called=[ADD, ZERO],
        watching=[ADD],
        bodies={ADD: True},
        exits={ADD: ["returned"]},
        known=["first: failed", "end: failed"],
    )
    return Observation.model_validate(values | changes)


def _rules(found: list[str]) -> list[str]:
    return [f.split(":", 1)[0] for f in found]


def test_each_call_report_meets_how_its_body_left_that_call() -> None:
    # two calls of the watched test (a rerun): each report takes the exit streamed before it
    seen = _stream(
        {"k": "exit", "id": ADD, "how": "raised"},
        _call(ADD, "rerun"),
        {"k": "exit", "id": ADD, "how": "returned"},
        _call(ADD),
        {"k": "exit", "id": ZERO, "how": "returned"},  # not watched: not kept
        _call(ZERO),
    )
    assert seen.exits == {ADD: ["returned"]} and seen.called == [ADD, ZERO]
    # a report sent before the body ran meets no exit: missing, not returned
    first = _stream(_call(ADD), {"k": "exit", "id": ADD, "how": "raised"})
    assert first.exits == {ADD: ["missing"]}
    # no exit at all (the call the observer's hook never wrapped)
    assert _stream(_call(ADD)).exits == {ADD: ["missing"]}


def test_a_report_logged_inside_the_call_is_not_the_calls_own() -> None:
    """A subtest's report, logged while the call runs, meets no exit and is no call report; the
    call's own report that follows meets the body's exit."""
    seen = _stream(
        _call(ADD, **{"in": True}),
        {"k": "exit", "id": ADD, "how": "returned"},
        _call(ADD),
    )
    assert seen.exits == {ADD: ["returned"]} and seen.called == [ADD]
    # the call's own report marked as logged inside the call counts as no report of the call
    hidden = _stream({"k": "exit", "id": ADD, "how": "raised"}, _call(ADD, **{"in": True}))
    assert hidden.called == [] and hidden.exits == {}


@pytest.mark.parametrize(
    ("exits", "rules"),
    [
        (["returned"], []),
        (["native"], []),
        (["raised"], ["observer-tampered"]),
        (["unseen"], ["observer-tampered"]),
        (["missing"], ["observer-tampered"]),
        (["returned", "raised"], ["observer-tampered"]),
        (["what"], ["observer-tampered"]),  # anything but returned
        (["unentered"], ["observer-tampered"]),  # whatever the body record said
    ],
)
def test_a_passed_call_whose_body_never_returned_or_left_no_word_is_tampered(
    exits: list[str], rules: list[str]
) -> None:
    assert _rules(judge.findings(START, _green(exits={ADD: exits}))) == rules


def test_a_missing_exit_is_no_finding_where_the_bodies_are_not_observed() -> None:
    missing = {"exits": {ADD: ["missing"]}}
    assert judge.findings(START, _green(**missing, distributed=True)) == []  # xdist's workers
    assert judge.findings(START, _green(**missing, watching=[])) == []  # not watched
    # a test that did not fail at the start is not asked about
    assert judge.findings(START, _green(exits={ZERO: ["missing"]})) == []


def _fingerprints(*checks: dict[str, object]) -> Observation:
    return _stream(
        {"k": "load", "p": "a", "n": NAMES, "m": ["f1", "e1"]},
        {"k": "sealed", "p": "a", "s": "s1"},
        *checks,
        {"k": "end", "status": 0},
    )


def _teardown(steady: str = STEADY, itself: str = "s1") -> dict[str, object]:
    return {"k": "check", "p": "a", "at": "t", "h": steady, "s": itself}


def test_the_fingerprints_streamed_at_load_are_compared_with_each_check() -> None:
    same = _fingerprints(
        _teardown(), {"k": "check", "p": "a", "at": "end", "m": ["f1", "e1"], "s": "s1"}
    )
    assert same.loaded == {"a": {NAMES[0]: "f1", NAMES[1]: "e1", WIDE: STEADY, ITSELF: "s1"}}
    assert judge.moved(same) == []
    # the captured machinery emptied in place: the observer's own comparison finds nothing
    # to compare, the fingerprints it streams say "-"
    cleared = _fingerprints(_teardown(integrity.digest(["-"])))
    assert judge.moved(cleared) == [WIDE]
    ended = _fingerprints({"k": "check", "p": "a", "at": "end", "m": ["-", "e1"], "s": "s1"})
    assert judge.moved(ended) == [NAMES[0]]
    # what the observer's self-check compares changed in place: its hash moved
    itself = _fingerprints(_teardown(itself="s2"))
    assert judge.moved(itself) == [ITSELF]
    found = judge.findings(START, _green(loaded=itself.loaded, checked=itself.checked))
    assert _rules(found) == ["observer-machinery"] and ITSELF in found[0]


def test_a_name_left_out_at_the_end_is_missing_not_unchanged() -> None:
    # a teardown's hash is of the session-wide names alone: a process's exits may be patched
    assert judge.moved(_fingerprints(_teardown())) == []
    end = _fingerprints({"k": "check", "p": "a", "at": "end", "m": ["f1"]})
    assert end.checked["a"][NAMES[1]] == ["missing"]
    assert judge.moved(end) == [NAMES[1], ITSELF]
    # another process's checks are compared with its own load
    other = _fingerprints(
        {"k": "load", "p": "b", "n": NAMES, "m": ["f2", "e2"]},
        {"k": "check", "p": "b", "at": "end", "m": ["f2", "e2"]},
    )
    assert judge.moved(other) == []


def test_a_move_the_start_saw_too_is_an_installed_plugins() -> None:
    moved = _fingerprints({"k": "check", "p": "a", "at": "end", "m": ["f9", "e1"], "s": "s1"})
    values = {"loaded": moved.loaded, "checked": moved.checked}
    start = START.model_copy(update=values)
    assert judge.findings(start, _green(**values)) == []
    assert _rules(judge.findings(START, _green(**values))) == ["observer-machinery"]


SUBTESTS = """\
def test_add(subtests):
    for a in (1, 2):
        with subtests.test(a=a):
            assert a + 0 == a


def test_zero():
    assert 0 + 0 == 0
"""


@pytest.mark.slow
def test_a_real_session_streams_steady_fingerprints_and_each_exit(tmp_path: Path) -> None:
    """Under a real pytest: the machinery's and the observer's fingerprints at each check are
    those of load and registration, and a watched test with subtests (reports logged inside
    its call) passes with its body's exit paired with its own report."""
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": SUBTESTS}, [ADD])
    assert seen.tests == {ADD: "passed", ZERO: "passed"}, seen.tests
    (process,) = seen.loaded
    assert ITSELF in seen.loaded[process] and len(seen.loaded[process]) > 10
    assert set(seen.checked[process]) == set(seen.loaded[process])
    assert judge.moved(seen) == [] and seen.exits == {ADD: ["returned"]}
    start = seen.model_copy(update={"tests": {ADD: "failed", ZERO: "passed"}})
    assert judge.findings(start, seen) == []


@pytest.mark.slow
def test_a_real_session_streams_a_raised_body_under_a_passed_report(tmp_path: Path) -> None:
    """A conftest that passes every call's report (sparing the known answer by its name):
    the exit streamed when the call ended says the body raised."""
    conftest = (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
        "    if 'known' not in item.name:\n        outcome.get_result().outcome = 'passed'\n"
    )
    test = TEST.replace("assert add(2, 2) == 5", "assert add(2, 2) == 5  # impossible")
    seen = observe(tmp_path, PYTEST, {"conftest.py": conftest, "tests/test_app.py": test}, [ADD])
    assert seen.exits == {ADD: ["raised"]}
    assert "observer-tampered" in _rules(judge.findings(START, seen))


def test_an_exit_record_no_call_took_is_another_codes_line() -> None:
    """One call, one record of how its body left it: a second before the call's report (a line
    with the nonce written from inside the body, ahead of the observer's own) or one after the
    last report is someone else's, and the test is tampered with."""
    ahead = _stream(
        {"k": "exit", "id": ADD, "how": "returned"},  # forged from inside the body
        {"k": "exit", "id": ADD, "how": "raised"},  # the observer's own
        _call(ADD),
    )
    assert ahead.doubled == [ADD]
    after = _stream({"k": "exit", "id": ADD, "how": "raised"}, _call(ADD), _exit_line())
    assert after.doubled == [ADD]
    # a rerun: two calls, two exits, each taken by its own report
    rerun = _stream(_exit_line("raised"), _call(ADD, "rerun"), _exit_line(), _call(ADD))
    assert rerun.doubled == []
    found = judge.findings(START, _green(doubled=[ADD]))
    assert _rules(found) == ["observer-tampered"] and "more records" in found[0]
    assert judge.findings(START, _green(doubled=[ADD], distributed=True)) == []
    assert judge.findings(START, _green(doubled=[ZERO])) == []  # not a test that failed


def _exit_line(how: str = "returned") -> dict[str, object]:
    return {"k": "exit", "id": ADD, "how": how}


def test_a_stream_past_what_fixbot_reads_is_a_finding_where_the_starts_was_not() -> None:
    found = judge.findings(START, _green(overflow=True))
    assert "observer-overflow" in _rules(found)
    overflowed = START.model_copy(update={"overflow": True})
    assert "observer-overflow" not in _rules(judge.findings(overflowed, _green(overflow=True)))


# `app.py` registering a plugin of its own on the Config it finds in the frames of the code
# importing it (pytest's collection), with no word a rule reads (no `pluginmanager` spelled)
REGISTERS = """\
import sys


class Helper:
    def pytest_runtestloop(self, session):
        pass


frame = sys._getframe(1)
while frame is not None:
    config = frame.f_locals.get('config') or getattr(frame.f_locals.get('self'), 'config', None)
    manager = getattr(config, 'plugin' + 'manager', None)
    if manager is not None:
        getattr(manager, 'regis' + 'ter')(Helper(), 'helper')
        break
    frame = frame.f_back


def add(a, b):
    return a + b
"""


@pytest.mark.slow
def test_a_plugin_the_projects_code_registers_is_named_with_its_file(tmp_path: Path) -> None:
    """Every plugin pytest holds is streamed with the work tree's file it comes from: the
    conftest's and the one `app.py` registered at run time; pytest's own have none."""
    conftest = "def pytest_configure(config):\n    pass\n"
    plain = observe(tmp_path / "a", PYTEST, {"tests/conftest.py": conftest}, [ADD])
    assert plain.plugins and "app.Helper" not in plain.plugins
    assert [f for f in plain.plugins.values() if f] == ["tests/conftest.py"], plain.plugins
    files = {"tests/conftest.py": conftest, "app.py": REGISTERS}
    cheated = observe(tmp_path / "b", PYTEST, files, [ADD])
    assert cheated.plugins.get("app.Helper") == "app.py", cheated.plugins
    found = judge.findings(plain, cheated)
    assert [f for f in found if f.startswith("observer-plugin")], found
    assert "observer-plugin" not in " ".join(judge.findings(cheated, cheated))  # a habit


def test_a_new_plugin_counts_only_from_the_projects_code() -> None:
    start = START.model_copy(update={"plugins": {"_pytest.python": ""}})
    new = {"_pytest.python": "", "tests.conftest": "tests/conftest.py", "lib.Plug": ""}
    assert "observer-plugin" not in _rules(judge.findings(start, _green(plugins=new)))
    ours = _green(plugins={**new, "app.Helper": "app.py"})
    assert _rules(judge.findings(start, ours)) == ["observer-plugin"]
    # a start that streamed no plugin (an older observer's) counts none new
    assert judge.findings(START, ours) == []
