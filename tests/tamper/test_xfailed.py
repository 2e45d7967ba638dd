"""A test the start's run REPORTED xfailed, every item, is the fix's to remove
(`fixbot/tamper/xfailed.py`): python-dateutil 2.8.2's isoparse fix removes two such tests as it
adds their rows to the real ones (bench/corpus/test-change/), which `test-removed`, the counts
and the edit guard refused. The excuse is what pytest reported, never the mark's text: the same
marked test run under `--runxfail` (reported failed), a removed test that passed or was
skipped, or a function one item of which did not xfail, stays a cheat; and each count rule
leaves out exactly the excused items."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.agent.fixer import start_report
from fixbot.agent.guard import tampering
from fixbot.core.failure import Counts
from fixbot.core.models import Attempt, FixContext, Phase
from fixbot.logs.dialects import report_for
from fixbot.logs.dialects.base import junit_outcomes
from fixbot.tamper.changes import Change
from fixbot.tamper.cheats import detect
from fixbot.tamper.reports import counted, disagreements
from fixbot.tamper.xfailed import excuse

PATH = "tests/test_parse.py"
START = """\
import pytest

from app import parse


def test_parse():
    assert parse("1") == 1


@pytest.mark.xfail
@pytest.mark.parametrize("text", ["1:2", "3:4"])
def test_parse_known_bug(text):
    with pytest.raises(ValueError):
        parse(text)
    assert text
"""
FIXED = START.split("\n\n\n@pytest.mark.xfail")[0] + "\n"
ITEMS = (
    "tests.test_parse::test_parse_known_bug[1:2]",
    "tests.test_parse::test_parse_known_bug[3:4]",
)
LAST = {"tests.test_parse::test_parse": "passed"}


def _start(*outcomes: str) -> dict[str, str]:
    """The start's report: test_parse failed, the known-bug items with `outcomes`."""
    return {"tests.test_parse::test_parse": "failed", **dict(zip(ITEMS, outcomes, strict=True))}


def _judged(start: dict[str, str]) -> list[str]:
    """Every rule the final rules name for the fix `FIXED` against the start's report `start`."""
    changes = [Change(PATH, START, FIXED)]
    pardon = excuse(changes, start, LAST)
    was = Counts(failed=1, skipped=2)
    first, last = counted((was, start), (Counts(passed=1), LAST), pardon.ids)
    found = detect(changes, first, last, excused=pardon.functions)
    found += disagreements(start, LAST, [PATH], pardon.ids)
    return sorted({cheat.rule for cheat in found})


def test_a_removed_test_every_item_of_which_xfailed_is_no_cheat() -> None:
    assert _judged(_start("xfailed", "xfailed")) == []


@pytest.mark.parametrize(
    "outcomes",
    [
        ("failed", "failed"),  # `--runxfail`, or `raises=` another exception: a real test
        ("passed", "xfailed"),  # one item XPASSed (a conditional mark false for it)
        ("skipped", "skipped"),  # skipped is not xfailed: the skip may be the project's choice
        ("xfailed", "skipped"),  # every item, or none
    ],
)
def test_a_removed_test_not_reported_xfailed_whole_stays_a_cheat(
    outcomes: tuple[str, str],
) -> None:
    judged = _judged(_start(*outcomes))
    assert "test-removed" in judged and "report-disagrees" in judged, judged


def test_without_the_excuse_each_rule_fires() -> None:
    """The control, rule by rule: the same removal, the same reports, nothing excused."""
    start, changes = _start("xfailed", "xfailed"), [Change(PATH, START, FIXED)]
    first, last = counted((None, start), (None, LAST))
    assert [c.rule for c in detect(changes, first, last)] == ["test-removed", "assert-weakened"]
    assert first is not None and last is not None and first.skipped == 2
    found = disagreements(start, LAST, [PATH])
    assert [c.rule for c in found] == ["report-disagrees"], found
    assert "tests collected: 3 at the start, 1 in the verifying run" in str(found[0])


def test_the_counts_leave_out_exactly_the_excused_items() -> None:
    """An xfailed item of another test that the fix did not remove still counts: the verifying
    run collects one test fewer than the start's minus the excused items."""
    start = {**_start("xfailed", "xfailed"), "tests.test_other::test_x": "xfailed"}
    changes = [Change(PATH, START, FIXED)]
    pardon = excuse(changes, start, LAST)
    assert pardon.ids == frozenset(ITEMS)
    found = disagreements(start, LAST, [PATH], pardon.ids)
    assert [str(c) for c in found] == [
        "report-disagrees: tests collected: 2 at the start, 1 in the verifying run"
    ]
    first, last = counted((None, start), (None, LAST), pardon.ids)
    assert (first.skipped, last.skipped) == (1, 0)  # type: ignore[union-attr]


def test_an_item_still_reported_in_the_verifying_run_is_not_excused() -> None:
    """A function renamed away while its items still run elsewhere is no removal to excuse."""
    last = {**LAST, ITEMS[0]: "xfailed"}
    assert excuse([Change(PATH, START, FIXED)], _start("xfailed", "xfailed"), last).ids == set()


def test_the_guard_lets_the_removal_through_only_by_the_starts_report() -> None:
    assert tampering(PATH, START, FIXED, start=_start("xfailed", "xfailed")) is None
    for start in (None, _start("failed", "failed"), _start("skipped", "xfailed")):
        reason = tampering(PATH, START, FIXED, start=start)
        assert reason is not None and "test_parse_known_bug" in reason, start


def test_the_guard_still_counts_the_assertions_of_the_tests_kept() -> None:
    weaker = FIXED.replace('    assert parse("1") == 1\n', '    parse("1")\n')
    reason = tampering(PATH, START, weaker, start=_start("xfailed", "xfailed"))
    assert reason is not None and "removes assertions" in reason


@pytest.mark.slow
@pytest.mark.parametrize(("addopts", "outcome"), [("", "xfailed"), ("--runxfail", "failed")])
def test_pytests_report_tells_xfailed_from_skipped_and_from_runxfail(
    tmp_path: Path, addopts: str, outcome: str
) -> None:
    """A real pytest run, asked as fixbot asks it: an xfailed test is "xfailed", a skipped one
    "skipped", and under `--runxfail` the same marked test is "failed"."""
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n\n@pytest.mark.xfail\ndef test_bug():\n    assert 1 == 2\n\n\n"
        "@pytest.mark.skip\ndef test_skipped():\n    pass\n\n\n"
        "@pytest.mark.xfail\ndef test_xpass():\n    pass\n",
        encoding="utf-8",
    )
    report = report_for(["pytest"])
    assert report is not None
    path = tmp_path / "out" / report.file_name
    env = {**os.environ, **report.ask(str(path), {"PYTEST_ADDOPTS": addopts})}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py"]
    subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, check=False)
    assert junit_outcomes(path.read_text(encoding="utf-8")) == {
        "test_x::test_bug": outcome,
        "test_x::test_skipped": "skipped",
        "test_x::test_xpass": "passed",
    }


def test_the_guard_is_given_the_initial_checks_report_never_a_fix_attempts() -> None:
    """The fix attempts' runs are the model's tests: their xfails excuse nothing."""
    start, other = _start("xfailed", "xfailed"), {ITEMS[0]: "xfailed"}
    check = Attempt(number=0, phase=Phase.CHECK, done=True, tests=start)
    fix = Attempt(number=1, done=True, tests=other)
    ctx = FixContext(repo=Path("."), attempt=2, max_attempts=3, start_sha="0" * 40)
    ctx.history = [check, fix]
    assert start_report(ctx) == start
    ctx.history = [fix]  # a run from a failure log of elsewhere: no initial check here
    assert start_report(ctx) is None
