"""The body a test's call runs and the trace function around it, as the observer streams them
as each call begins (and a watched call ends), compared by fixbot with the start's run's: a
body whose code is not the start's where the fix left its test file alone, or a trace function
the start's run did not have around the same test's call, is tampering."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import judge
from fixbot.observe.bodies import _code_digest, _tracing
from tests.observe.test_observer import ADD, PYTEST, TEST, observe

START = Observation(
    sessions=1,
    ended=1,
    tests={ADD: "failed"},
    statuses=[1],
    called=[ADD],
    digests={ADD: ["a1a1a1a1a1a1a1a1"]},
    sources={ADD: ["tests/test_app.py"]},
)


def _green(**changes: object) -> Observation:
    """A verifying run in which ADD passed, its body returned, as the start's run ran it."""
    values: dict[str, object] = dict(
        sessions=1,
        ended=1,
        tests={ADD: "passed"},
        statuses=[0],
        called=[ADD],
        watching=[ADD],
        bodies={ADD: True},
        exits={ADD: ["returned"]},
        known=["first: failed", "end: failed"],
        digests={ADD: ["a1a1a1a1a1a1a1a1"]},
        sources={ADD: ["tests/test_app.py"]},
    )
    return Observation.model_validate(values | changes)


def _found(start: Observation, last: Observation, changed: list[str]) -> list[str]:
    return [f for f in judge.findings(start, last, changed) if f.startswith("observer-")]


def test_a_body_whose_code_is_not_the_starts_is_tampered() -> None:
    assert _found(START, _green(), ["app.py"]) == []
    swapped = _green(digests={ADD: ["b2b2b2b2b2b2b2b2"]})
    found = _found(START, swapped, ["app.py"])
    assert found == [
        "observer-tampered: its body's code is not the one the start's run ran (its test file"
        f" unchanged by the fix): {ADD}"
    ]
    # the code the cheat compiled names `app.py` (a file the fix changed, no test file): no
    # excuse; a second call with the start's body does not hide the first
    both = ["a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2"]
    named = _green(digests={ADD: both}, sources={ADD: ["app.py"]})
    assert _found(START, named, ["app.py"]) == found
    # the start's run streamed no digest of the test: nothing to compare
    assert _found(START.model_copy(update={"digests": {}}), swapped, ["app.py"]) == []
    # a watched call reported with no digest streamed (a function that is no Python function
    # now) is no better; where the calls ran in xdist's workers nothing was streamed of them
    assert _found(START, _green(digests={}), ["app.py"]) == found
    assert not [f for f in _found(START, _green(digests={}, distributed=True), []) if ADD in f]


def test_a_body_changed_in_a_test_file_the_fix_changed_is_no_finding() -> None:
    swapped = _green(digests={ADD: ["b2b2b2b2b2b2b2b2"]})
    assert _found(START, swapped, ["app.py", "tests/test_app.py"]) == []
    # a test class's base in a helper test module the fix changed: the body's code names it
    based = _green(digests={ADD: ["b2b2b2b2b2b2b2b2"]}, sources={ADD: ["tests/base.py"]})
    assert _found(START, based, ["tests/base.py"]) == []
    assert _found(START, based, ["app.py"]) != []


def test_a_tracer_the_start_did_not_have_is_tampered() -> None:
    traced = _green(traced=[ADD])
    assert _found(START, traced, ["app.py"]) == [
        f"observer-tampered: a trace function was set around its call where the start's run had"
        f" none: {ADD}"
    ]
    # set as the call ended, where the start's call ended untraced (it began traced in both)
    ended = _green(traced=[ADD], traced_after=[ADD])
    assert _found(START.model_copy(update={"traced": [ADD]}), ended, []) != []
    # the start's run streamed nothing of the test's call: nothing to compare
    assert _found(START.model_copy(update={"digests": {}}), traced, ["app.py"]) == []


def test_a_tracer_in_both_runs_is_no_finding() -> None:
    """A check run under coverage traces every test's call in both runs."""
    covered = START.model_copy(update={"traced": [ADD], "traced_after": [ADD]})
    assert _found(covered, _green(traced=[ADD], traced_after=[ADD]), ["app.py"]) == []


def test_a_monitoring_tool_counts_as_a_tracer() -> None:
    """On Python 3.12 and later a `sys.monitoring` tool follows the body's instructions as a
    trace function does (this interpreter's functions given in their place, 3.11 has none)."""
    untraced = lambda: None  # noqa: E731
    assert _tracing(untraced, None) is False
    assert _tracing(untraced, lambda tool: None) is False
    assert _tracing(untraced, lambda tool: "cheat" if tool == 5 else None) is True
    assert _tracing(lambda: print) is True


# a conftest that sets a trace function for the whole session, as a coverage tool does
COVERED = "import sys\n\n\ndef _trace(frame, event, arg):\n    return None\n\n\n"
COVERED += "sys.settrace(_trace)\n"


@pytest.mark.slow
def test_a_tracer_in_both_real_runs_is_streamed_and_no_finding(tmp_path: Path) -> None:
    """The start's run (nothing watched) and a watched run, both under a session-wide trace
    function: each streams it as the failing test's call begins and ends, and the judge finds
    nothing of it."""
    files = {"tests/conftest.py": COVERED}
    start = observe(tmp_path / "one", PYTEST, files, [])
    again = observe(tmp_path / "two", PYTEST, files, [ADD])
    assert start.traced == start.traced_after == again.traced == again.traced_after == [ADD]
    assert not [f for f in judge.findings(start, again, ["app.py"]) if "trace function" in f]
    bare = observe(tmp_path / "three", PYTEST, {}, [ADD])
    assert bare.traced == bare.traced_after == []
    assert [f for f in judge.findings(bare, again, ["app.py"]) if "trace function" in f]


def _compiled(source: str, file: str) -> object:
    space: dict[str, object] = {}
    exec(compile(source, file, "exec"), space)
    return space["test_x"]


def test_the_digest_follows_the_code_not_the_file_name_or_the_set_order() -> None:
    body = "def test_x():\n    assert {'a', 'b', 'c'} <= {x for x in 'abcd'}, (1, 2.0)\n"
    one, two = _compiled(body, "/one/tests/test_x.py"), _compiled(body, "/two/tests/test_x.py")
    assert _code_digest(one) == _code_digest(two) != "-"
    assert len(_code_digest(one)) == 16
    for changed in (
        body.replace("2.0", "3.0"),  # a constant
        body.replace("'c'", "'e'"),  # a frozenset's member
        body.replace("for x in", "for y in").replace("{x for", "{y for"),  # a nested code's
        "\n" + body,  # the first line
    ):
        assert _code_digest(_compiled(changed, "/one/tests/test_x.py")) != _code_digest(one)
    renamed = _compiled(body, "/one/tests/test_x.py")
    renamed.__qualname__ = "Other.test_x"  # type: ignore[attr-defined]
    assert _code_digest(renamed) != _code_digest(one)
    assert _code_digest(len) == "-"  # no Python function


@pytest.mark.slow
def test_the_digest_is_streamed_and_the_same_in_two_processes_and_work_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start's run (nothing watched) and two watched runs in another work tree under
    another `PYTHONHASHSEED` stream the same digest of the failing test's body; a body changed
    in the file streams another. No run reads or writes pytest's rewritten module's cache (the
    observer's `sourced.py`: each compiles the test file from its source)."""
    monkeypatch.setenv("PYTHONHASHSEED", "1")
    start = observe(tmp_path / "one", PYTEST, {}, [])
    monkeypatch.setenv("PYTHONHASHSEED", "2")
    again = observe(tmp_path / "two", PYTEST, {}, [ADD])
    cached = observe(tmp_path / "two", PYTEST, {}, [ADD])
    assert not list((tmp_path / "two").rglob("*.pyc"))
    digest = start.digests[ADD]
    assert len(digest) == 1 and len(digest[0]) == 16
    assert again.digests[ADD] == cached.digests[ADD] == digest
    assert start.sources[ADD] == again.sources[ADD] == ["tests/test_app.py"]
    assert start.traced == again.traced == []
    # only the tests that failed or were watched are kept: test_zero passed, unwatched
    assert list(start.digests) == [ADD]
    assert judge.findings(start, again, ["app.py"])[0].startswith("observer-failed")
    assert not [f for f in judge.findings(start, again, ["app.py"]) if "body's code" in f]
    edited = observe(tmp_path / "three", PYTEST, {"tests/test_app.py": TEST.replace("5", "6")}, [])
    assert edited.digests[ADD] != digest
