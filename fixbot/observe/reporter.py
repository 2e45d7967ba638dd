"""fixbot's side of the node runners' reporter (`node/reporter.cjs`, loaded into jest and vitest
from the run's observer folder, `fixbot.observe.channel.Channel.reporter`): its stream's ids
made relative to the work tree as the runner's JSON report's are (`relocated`), and the stream
compared with that report (`disagreements`); and of the observer inside unittest
(`unittest_observer.py`): the tests it saw run compared with unittest's own summary in the
check's log (`summarized`, `disagreements`).

The reporter streams `start` (with the `runner`), one `r` record a test as the runner decides
its outcome, and `end` on the channel the pytest plugin uses, in the same wire format
(`fixbot.observe.stream`); `fixbot.observe.judge` then judges it as it judges pytest's stream
(missing where the start's streamed, cut short, forged, a test seen to fail, a test that failed
at the start not seen to pass). What this adds: the runner's report file is written by the
runner's process, which holds the code under test (jest runs a single test file in band), and
can be rewritten after it was written; the stream was sent as each test was decided, so a
report that disagrees with it is not the runner's.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.observed import Observation
from fixbot.logs.dialects.unittest import RAN_RE

DISAGREES = "observer-report"  # the finding's rule


def relocated(seen: Observation, *roots: Path) -> Observation:
    """`seen` with each root in `roots` taken off the ids of its tests that start with it (the
    reporter names a test's file by its absolute path, as the JSON report does:
    `fixbot.run.checkrun.relative`); unchanged for pytest's stream (no `runners`)."""
    if not seen.runners:
        return seen
    for root in roots:
        prefix = f"{root}/"
        seen.tests = {t.removeprefix(prefix): o for t, o in seen.tests.items()}
        seen.called = [t.removeprefix(prefix) for t in seen.called]
        seen.tries = {t.removeprefix(prefix): n for t, n in seen.tries.items()}
        seen.functions = {t.removeprefix(prefix): f for t, f in seen.functions.items()}
        seen.environed = [t.removeprefix(prefix) for t in seen.environed]
        seen.jested = [t.removeprefix(prefix) for t in seen.jested]
    return seen


def summarized(seen: Observation, log: Path, cut: bool = False) -> Observation:
    """`seen` with `said_ran` set, where the observer inside unittest streamed: the tests
    unittest's own `Ran N tests` lines in the check's `log` count, summed (None where the log
    holds none, or cannot be read, or was `cut`: the check wrote more than the log keeps, whose
    dropped middle may have held unittest's own summary while a line the code printed after it
    was kept, round 42)."""
    if "unittest" not in seen.runners:
        return seen
    if cut:
        seen.said_ran = None
        return seen
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return seen
    said = [int(n) for n in RAN_RE.findall(text)]
    seen.said_ran = sum(said) if said else None
    return seen


def _summary(seen: Observation) -> list[str]:
    """The finding where unittest's summary in the log (`Ran N tests`, `said_ran`) counts other
    tests than the observer inside unittest saw `TestCase.run` start (`ran`), its sessions all
    ended (a summary the code under test printed, or tests run past the observer)."""
    if seen.said_ran is None or seen.ended < seen.sessions or seen.said_ran == seen.ran:
        return []
    return [
        f"{DISAGREES}: unittest's summary in the log says {seen.said_ran} test(s) ran;"
        f" fixbot's observer inside unittest saw {seen.ran} run"
    ]


def disagreements(report: dict[str, str] | None, seen: Observation | None) -> list[str]:
    """The finding (`observer-report: ...`) where the runner's JSON report `report` (`{id:
    outcome}`, None: none written) and what the node reporter streamed (`seen`) disagree: a test
    one names and the other does not, or with another outcome (the first five named); or where
    unittest's summary in the log disagrees with its observer's count (`_summary`). [] for a
    stream that is not the node reporter's (pytest's ids are not JUnit's), or where either is
    missing (`fixbot.tamper.reports.disagreements` and `judge`'s `observer-missing` say so)."""
    if seen is not None and "unittest" in seen.runners:
        return _summary(seen)
    if report is None or seen is None or not seen.runners or not seen.sessions:
        return []
    return _differ(_streamable(report, seen), seen) + _function_failed(report, seen)


def _streamable(report: dict[str, str], seen: Observation) -> dict[str, str]:
    """The ids of `report` the stream `seen` can name: all of them, but for go's observer, which
    streams top-level tests alone (`<package>::TestX`: no subtest `TestX/case`, no example
    `ExampleX` or fuzz target `FuzzX`, which `testing.M` keeps apart, no package's own failed
    id) from the packages it streamed from (not those whose own `TestMain` was not folded in:
    `Observation.own_main`)."""
    if "go" not in seen.runners:
        return report
    streamed = {t.partition("::")[0] for t in seen.tests}
    return {t: o for t, o in report.items() if _go_test(t) and t.partition("::")[0] in streamed}


def _go_test(test: str) -> bool:
    """Whether go's report id `test` names a top-level test (`<package>::TestX`)."""
    name = test.partition("::")[2]
    return name.startswith("Test") and "/" not in name


def _differ(report: dict[str, str], seen: Observation) -> list[str]:
    """The test-by-test differences of `report` and the stream `seen` as a finding ([]: none)."""
    differ = sorted(
        f"{test} ({report.get(test, 'absent')} in the report, {seen.tests.get(test, 'absent')}"
        " as streamed)"
        for test in set(report) | set(seen.tests)
        if report.get(test) != seen.tests.get(test)
    )
    if not differ:
        return []
    return [
        f"{DISAGREES}: the runner's report file disagrees with what fixbot's reporter streamed"
        f" from {'/'.join(seen.runners)} as each test was decided: " + "; ".join(differ[:5])
    ]


def _function_failed(report: dict[str, str], seen: Observation) -> list[str]:
    """The finding (`observer-report: ...`) where a test whose function's last run failed, as
    jest-circus dispatched it to fixbot's test environment (`seen.functions`), is passed in the
    report or the stream: the failure was dropped after it happened (the running test's
    `errors` emptied through jest-circus's state on the sandbox's global); and where a test
    of a file that environment was built for (`seen.environed`) is passed with no verdict on
    its function streamed (the environment's handler taken out of jest-circus's list). []
    otherwise."""
    passed = {t for t, o in [*report.items(), *seen.tests.items()] if o == "passed"}
    dropped = sorted(t for t in passed if seen.functions.get(t, ["-"])[-1] == "failed")
    unseen = sorted(
        t for t in passed if t not in seen.functions and t.partition("::")[0] in seen.environed
    )
    found = []
    if dropped:
        found.append(
            f"{DISAGREES}: jest-circus dispatched a failure of the test's function, as fixbot's"
            " test environment streamed it, and the test was reported passed: "
            + ", ".join(dropped[:5])
        )
    if unseen:
        found.append(
            f"{DISAGREES}: the test was reported passed and fixbot's test environment, built for"
            " its file, was dispatched no verdict on its function: " + ", ".join(unseen[:5])
        )
    return found
