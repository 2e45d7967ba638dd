"""Which tests failed when the check ran once more with the start commit's tests
(`fixbot.run.phases.judging.original_tests`), and which of them a fix's change to the tests does
not explain.

The runner's own per-test report names them where it writes one (JUnit, go test -json, jest's
JSON). unittest writes none: there they are the tests fixbot's observer inside unittest streamed
as failed (`Observation.tests`, ids `module.Class.test`), each by the file its class was made in
(`Observation.classes`, the first of its MRO below `TestCase`, captured as the class was made:
`fixbot/observe/unittest_asserts.py` `_class_files`), and the tests unittest's own `FAIL:` and
`ERROR:` lines in the log name that the observer did not stream as failed (a `setUpClass` or
`setUpModule` error, reported outside `TestCase.run`). A run the observer did not see whole (a
session not ended, the stream cut, unittest's `Ran N tests` counting other tests than it saw
run) names none: not verified.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from fixbot.core.observed import Observation
from fixbot.logs.dialects import unittest
from fixbot.tamper.reports import unexpected

MAX_LOG_BYTES = 20_000_000  # a check log longer than this is read up to here (bytes)
UNKNOWN = "?"  # a class's file the observer could not tell (`_class_files`)


def log_text(path: Path) -> str:
    """The check log at `path` (fixbot's, bounded and redacted as written), its first
    `MAX_LOG_BYTES` decoded with replacement; "" where it cannot be read."""
    try:
        with path.open("rb") as log:
            return log.read(MAX_LOG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def failing(
    tests: dict[str, str] | None, observed: Observation | None, log: str
) -> tuple[list[str] | None, dict[str, str]]:
    """(the ids of the tests that failed, sorted, or None where nothing says which; the
    repository-relative file of each failing test whose class fixbot's observer inside unittest
    saw made, `{id: file}`). `tests` is the runner's own report (`{id: outcome}`, None: none),
    `observed` what the observer streamed of the same run (None: unobserved), `log` the run's
    log text. A unittest run the observer did not see whole (`_whole`) names none (None)."""
    failed = {test for test, outcome in (tests or {}).items() if outcome == "failed"}
    if observed is None or "unittest" not in observed.runners:
        return (sorted(failed) if tests is not None else None), {}
    if not _whole(observed):
        return None, {}
    seen = _streamed(observed)
    return sorted(failed | set(seen) | _unseen(log, observed)), _made(observed, seen)


def unexplained(
    failing: Iterable[str],
    made: dict[str, str],
    changed: Iterable[str],
    go_module: str | None = None,
) -> list[str]:
    """The `failing` ids a change of the `changed` files (repository-relative) does not
    explain: a test whose file is known (`made`) where that file is not among `changed`; any
    other by its id (`fixbot.tamper.reports.unexpected`, `go_module` the Go module's path)."""
    changed = list(changed)
    known = [test for test in failing if test in made]
    others = unexpected([test for test in failing if test not in made], changed, go_module)
    return sorted([test for test in known if made[test] not in changed] + others)


def unnamed(observed: Observation | None) -> str:
    """Why nothing names which tests fail against the start's tests (`failing` named none, or
    an empty list): the words of the `original-tests` finding's evidence."""
    if observed is not None and "unittest" in observed.runners and not _whole(observed):
        return "fixbot's observer inside unittest did not see that run whole"
    return "no per-test report names which tests fail"


def _whole(seen: Observation) -> bool:
    """Whether the observer inside unittest saw the run whole: every session it began ended,
    the stream not cut, and unittest's own `Ran N tests` lines count the tests it saw run."""
    ended = seen.sessions > 0 and seen.ended == seen.sessions and not seen.overflow
    return ended and seen.said_ran is not None and seen.said_ran == seen.ran


def _streamed(seen: Observation) -> list[str]:
    """The tests the observer inside unittest streamed as failed: those whose classes it saw
    (its `code` record), or whose id is no pytest node id (no `::`)."""
    return [test for test in seen.failed() if test in seen.classes or "::" not in test]


def _made(seen: Observation, tests: list[str]) -> dict[str, str]:
    """The file each of `tests` was made in: its own class's, the first of `Observation.classes`
    (none where unknown)."""
    files = {test: seen.classes.get(test, [UNKNOWN])[0] for test in tests if seen.classes.get(test)}
    return {test: file for test, file in files.items() if file != UNKNOWN}


def _unseen(log: str, seen: Observation) -> set[str]:
    """The ids unittest's `FAIL:` and `ERROR:` lines in `log` name (`unittest.test_id`: a
    `setUpClass` error as `module.Class.setUpClass`) that the observer did not stream as
    failed."""
    heads = {unittest.test_id(m.groupdict()) for m in re.finditer(unittest.HEAD, log)}
    return heads - set(seen.failed())
