"""The evidence from large, repetitive logs: facts of the whole log, distinct failures, bounded.

Property-based: hypothesis writes pytest-, unittest- and jest-like logs with 1 to 500 failures,
identical or distinct, with or without captured output; every example must keep the summary,
a failing test id and a repository `file:line` within the bound.
"""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fixbot.core.failure import CheckResult, Failure
from fixbot.logs.condense import condense_stream, condense_text
from fixbot.logs.digest import digest, from_facts
from fixbot.logs.evidence import NAMES_SHARE, render
from fixbot.logs.facts import LogFacts, collect_stream

BOUND = 9_600  # characters: the log's share of the default budget (see fixbot.agent.context)
NOISE = "".join(f"tests/test_misc.py::test_case_{i} PASSED\n" for i in range(300))


def pytest_log(n: int, distinct: bool, captured: bool) -> tuple[str, str, str]:
    """A pytest log with `n` failures through one helper; (log, summary line, a frame)."""
    parts = [NOISE, "=" * 20 + " FAILURES " + "=" * 20 + "\n"]
    for i in range(n):
        value = i if distinct else 1
        parts.append(
            f"{'_' * 10} test_fmt_{i} {'_' * 10}\n\n"
            f"    def test_fmt_{i}():\n>       check(fmt({i}), 'x')\n\n"
            f"tests/test_fmt.py:{10 + i}: \n"
            f"    def check(got, want):\n>       assert got == want\n"
            f"E       AssertionError: {f'column_{value} differs' if distinct else ''}\n\n"
            "tests/helpers.py:7: AssertionError\n"
        )
        if captured:
            parts.append("----- Captured stdout call -----\nExpected:\n  x\nGot:\n  y\n" * 20)
    parts.append("=" * 10 + " short test summary info " + "=" * 10 + "\n")
    parts += [f"FAILED tests/test_fmt.py::test_fmt_{i} - AssertionError\n" for i in range(n)]
    summary = f"==== {n} failed, 300 passed in 3.21s ===="
    return "".join(parts) + summary + "\n", summary, "tests/helpers.py:7"


def unittest_log(n: int, distinct: bool, captured: bool) -> tuple[str, str, str]:
    """A unittest log with `n` failures; (log, summary line, a frame)."""
    parts = ["." * 80 + "\n"]
    for i in range(n):
        message = f"field_{i} differs" if distinct else "'a' != 'b'"
        parts.append(
            "=" * 70 + f"\nFAIL: test_{i} (tests.test_fmt.FmtTest.test_{i})\n" + "-" * 70 + "\n"
            "Traceback (most recent call last):\n"
            f'  File "tests/test_fmt.py", line {20 + i}, in test_{i}\n'
            "    self.assertEqual(fmt(x), y)\n"
            f"AssertionError: {message}\n\n"
        )
        if captured:
            parts.append("Stdout:\n" + "debug: formatting row\n" * 30)
    summary = f"FAILED (failures={n})"
    log = "".join(parts) + "-" * 70 + f"\nRan {n + 50} tests in 0.5s\n\n{summary}\n"
    return log, summary, 'tests/test_fmt.py", line 20'


def jest_log(n: int, distinct: bool, captured: bool) -> tuple[str, str, str]:
    """A jest log with `n` failures; (log, summary line, a frame)."""
    parts = ["FAIL src/fmt.test.ts\n"]
    for i in range(n):
        received = f"row_{i}" if distinct else "2"
        parts.append(
            f"  \u25cf fmt \u203a formats row {i}\n\n"
            "    expect(received).toBe(expected) // Object.is equality\n\n"
            f"    Expected: 1\n    Received: {received}\n\n"
            f"      at Object.<anonymous> (src/fmt.test.ts:{5 + i}:20)\n\n"
        )
        if captured:
            parts.append("  console.log\n" + "    row rendered\n" * 30)
    summary = f"Tests:       {n} failed, 12 passed, {n + 12} total"
    log = "".join(parts) + f"Test Suites: 1 failed, 1 total\n{summary}\nTime: 1.2 s\n"
    return log, summary, "src/fmt.test.ts:5"


MAKERS = {"pytest": pytest_log, "unittest": unittest_log, "jest": jest_log}


def evidence(log: str) -> tuple[Failure, str]:
    """The `Failure` and the evidence text, built as the engine and the fixer build them."""
    data = log.encode()
    result = CheckResult(
        command="check", exit_code=1, duration_s=1.0, log_path=Path("x"), output_bytes=len(data)
    )
    facts = LogFacts()
    condensed = condense_text(log)
    condense_stream(io.BytesIO(data), max_bytes=0, on_diagnostic=facts.add_diagnostic)
    failure = from_facts(result, condensed, collect_stream(io.BytesIO(data), facts))
    return failure, render(failure, BOUND)


FAST = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow],
    "phases": [Phase.explicit, Phase.generate],  # shrinking 500-failure logs takes minutes
}


@settings(max_examples=30, **FAST)
@given(
    runner=st.sampled_from(sorted(MAKERS)),
    n=st.integers(min_value=1, max_value=500),
    distinct=st.booleans(),
    captured=st.booleans(),
)
def test_the_evidence_keeps_summary_test_and_frame_within_the_bound(
    runner: str, n: int, distinct: bool, captured: bool
) -> None:
    log, summary, frame = MAKERS[runner](n, distinct, captured)
    failure, text = evidence(log)
    assert summary.strip() in text
    assert any(test in text or test.rsplit("::", 1)[-1] in text for test in failure.failing_tests)
    assert frame in text
    assert len(text) <= BOUND
    assert failure.failing_total == n


@settings(max_examples=12, **FAST)
@given(
    runner=st.sampled_from(sorted(MAKERS)),
    n=st.integers(min_value=4, max_value=500),
    captured=st.booleans(),
)
def test_n_identical_failures_are_no_larger_than_three(runner: str, n: int, captured: bool) -> None:
    _, many = evidence(MAKERS[runner](n, False, captured)[0])
    _, three = evidence(MAKERS[runner](3, False, captured)[0])
    # only the list of failing test names grows (to its bound of 30 names or NAMES_SHARE)
    assert len(many) <= len(three) + NAMES_SHARE * BOUND
    assert f"the same failure in {n - 1} other tests" in many


def test_counts_come_from_the_whole_log_not_the_condensed_text(tmp_path: Path) -> None:
    log, summary, _ = pytest_log(400, False, True)
    log = log.replace(summary, summary + "\n" + "trailing output line\n" * 2000)
    path = tmp_path / "check.log"
    path.write_text(log)
    result = CheckResult(
        command="pytest", exit_code=1, duration_s=1.0, log_path=path, output_bytes=len(log)
    )
    failure = digest(result, tmp_path)
    assert summary not in failure.condensed  # the condensed text lost it...
    assert failure.counts.failed == 400 and failure.counts.passed == 300  # ...the facts did not
    assert failure.summary == [summary]
    assert failure.failing_total == 400
    assert [(g.count, g.test) for g in failure.groups] == [(400, "tests/test_fmt.py::test_fmt_0")]
    assert failure.locations[0].path == "tests/helpers.py"  # the frame every failure shares


def test_distinct_failures_are_shown_once_each_and_cuts_are_counted() -> None:
    log, _, _ = pytest_log(50, True, True)
    failure, text = evidence(log)
    assert len(failure.groups) == 20  # MAX_GROUPS kept, the rest counted
    assert failure.other_groups == 30
    assert "[1] tests/test_fmt.py::test_fmt_0" in text
    assert "further kind(s) of failure not shown" in text
    assert "Failing tests: 50 in 1 file" in text and "… and 20 more" in text
    assert "\n...\n" not in text and " lines cut" in text


def test_diagnostics_of_checkers_are_grouped_by_file(tmp_path: Path) -> None:
    message = "error: Incompatible types in assignment (expression has type str) " + "x" * 80
    lines = [f"src/app/mod_{i % 3}.py:{10 + i}: {message}" for i in range(90)]
    log = "\n".join(lines) + "\nFound 90 errors in 3 files (checked 12 source files)\n"
    path = tmp_path / "check.log"
    path.write_text(log)  # over 12 KB: condensed, not returned whole
    result = CheckResult(
        command="mypy", exit_code=1, duration_s=1.0, log_path=path, output_bytes=len(log)
    )
    failure = digest(result, tmp_path)
    assert failure.diagnostics[:2] == ["src/app/mod_0.py:10", "src/app/mod_1.py:11"]
    assert failure.diagnostics_total == 90
    assert failure.counts.errors == 90
    text = render(failure, BOUND)
    assert "Diagnostics: 90 in 3 files" in text and "… and 60 more in 3 files" in text
    assert "Found 90 errors in 3 files" in text
