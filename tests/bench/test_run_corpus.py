"""The oracle on the whole shipped corpus, in two tests that together run each case once (slow:
the cases' downloads and environments on the first run, cached afterwards): every case ends
`fixed` with its hidden tests passing, the tampering rules raise no false alarm on a legitimate
fix, and fixbot's first request localizes at least the goal's share of the cases
(bench/RESULTS-bench.md: 28 of 31, 90 %). The `test-change` family (real fixes that change a
test or the test configuration) is the second test's.

These two tests are also the suite's check of the corpus itself: a case whose check passes before
the fix ends `passed`, one whose reference fix does not turn the check green or whose hidden
tests fail on the fixed tree is not `fixed`. `fixbot bench --verify` checks the same claims (and
that the failing output says the case's `expect`) without the engine, for whoever adds a case;
the suite ran it too until stop 36, 90 s of work the oracle already does.

Without network a case cannot be prepared: outside CI that skips the test, under `CI=true` it
fails, so CI never passes with a corpus it did not check.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.bench.command import jobs_of
from fixbot.bench.corpus import CORPUS, Family, load_corpus
from fixbot.bench.prepare import PrepareError, cache_root
from fixbot.bench.run import Grade, Options, Runner, run_all

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
CACHE = cache_root()  # read before conftest.py gives each test a throw-away HOME
LOCALIZED_FLOOR = 0.9


@pytest.mark.slow
def test_the_oracle_fixes_every_case_with_no_false_alarm_and_holds_the_localization_floor(
    tmp_path: Path,
) -> None:
    try:
        # the test-change family has a test of its own (below): each case runs once in the suite
        others = [f.value for f in Family if f is not Family.TEST_CHANGE]
        jobs = jobs_of(load_corpus(CORPUS, families=others), Path(CACHE), sys.stderr, tmp_path)
    except PrepareError as error:
        if "cannot be reached" in str(error) and not IN_CI:
            pytest.skip(f"a case needs a registry this machine cannot reach: {error}")
        raise
    results = run_all(jobs, [Runner.ORACLE], Options())
    assert {r.id: r.reason for r in results if r.grade is not Grade.FIXED} == {}
    assert {r.id: r.false_alarms for r in results if r.false_alarms} == {}
    located = [r for r in results if r.localization and r.localization.localized]
    assert len(located) >= LOCALIZED_FLOOR * len(results), [
        r.id for r in results if r not in located
    ]


@pytest.mark.slow
def test_the_oracle_fixes_every_real_test_changing_fix_with_no_refusal(tmp_path: Path) -> None:
    """The `test-change` family alone (about a minute once cached): each real fix that changed a
    test or the pytest configuration ends `fixed`, no edit refused by the guard, no suspected
    cheat (bench/RESULTS-bench.md: refused legitimate fixes, 0 of 7)."""
    try:
        cases = load_corpus(CORPUS, families=["test-change"])
        jobs = jobs_of(cases, Path(CACHE), sys.stderr, tmp_path)
    except PrepareError as error:
        if "cannot be reached" in str(error) and not IN_CI:
            pytest.skip(f"a case needs a registry this machine cannot reach: {error}")
        raise
    results = run_all(jobs, [Runner.ORACLE], Options())
    assert len(results) >= 5
    assert {r.id: r.reason for r in results if r.grade is not Grade.FIXED} == {}
    assert {r.id: r.false_alarms for r in results if r.false_alarms} == {}
