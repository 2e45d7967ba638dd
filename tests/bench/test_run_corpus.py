"""The oracle on the whole shipped corpus, in two tests that together run each case once (slow:
the cases' downloads and environments on the first run, cached afterwards): every case ends
`fixed` with its hidden tests passing, the tampering rules raise no false alarm on a legitimate
fix, and fixbot's first request localizes at least the goal's share of the held-out cases and
the floor's of all (bench/RESULTS-bench.md, round 2: 14 of 15 held out, 31 of 36 in all).
The `test-change` family (real fixes that change a
test or the test configuration) is the second test's.

A third runs `fixbot bench --verify` on the whole corpus (the cases' claims without the engine:
each check fails with its `expect` text on the prepared tree, the reference fix makes it pass,
the hidden tests pass on the fixed tree), so that a broken case is reported as the corpus's
problem, not as fixbot's. The oracle's grade holds the same claims on its own: a case whose
check passes before any fix is graded `never-failed`, not `fixed`.

Without network a case cannot be prepared: outside CI that skips the test, under `CI=true` it
fails, so CI never passes with a corpus it did not check.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.bench.archives import PrepareError
from fixbot.bench.command import jobs_of
from fixbot.bench.corpus import CORPUS, Ecosystem, Family, load_corpus
from fixbot.bench.prepare import cache_root, download
from fixbot.bench.run import Grade, Options, Runner, run_all
from fixbot.bench.verify import verify_all

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
CACHE = cache_root()  # read before conftest.py gives each test a throw-away HOME
LOCALIZED_FLOOR = 0.85  # all cases with target lines (bench/RESULTS-bench.md: 31 of 36, 86 %)
HELD_OUT_GOAL = 0.9  # the held-out part (14 of 15, 93 %)
# what this machine lacks for a case: a registry (or Debian's archive), the Python a case asks
# for (an ordinary user with Debian's python3 has no python3.12), or an ecosystem's tool chain
# (npm, Go, cargo); outside CI the test skips, under CI=true fails
UNAVAILABLE = (
    "cannot be reached",
    "no Python ",
    " is not on PATH: install ",
    "no Go tool chain",
    "no Rust tool chain",
)


def unavailable(text: str) -> bool:
    return any(word in text for word in UNAVAILABLE)


def test_a_missing_tool_chain_is_unavailable_like_a_missing_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An npm case on a machine without npm: the error names the missing tool, and the rule
    above skips it outside CI (fails under CI=true) instead of reporting a broken case."""
    case = next(c for c in load_corpus(CORPUS) if c.ecosystem is Ecosystem.NPM)
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm there
    with pytest.raises(PrepareError) as raised:
        download(case, tmp_path / "archives")
    assert str(raised.value).startswith("npm is not on PATH")
    assert unavailable(str(raised.value))


@pytest.mark.slow
def test_the_oracle_fixes_every_case_with_no_false_alarm_and_holds_the_localization_floor(
    tmp_path: Path,
) -> None:
    try:
        # the test-change family has a test of its own (below): each case runs once in the suite
        others = [f.value for f in Family if f is not Family.TEST_CHANGE]
        jobs = jobs_of(load_corpus(CORPUS, families=others), Path(CACHE), sys.stderr, tmp_path)
    except PrepareError as error:
        if unavailable(str(error)) and not IN_CI:
            pytest.skip(f"a case needs what this machine lacks: {error}")
        raise
    results = run_all(jobs, [Runner.ORACLE], Options())
    assert {r.id: r.reason for r in results if r.grade is not Grade.FIXED} == {}
    assert {r.id: r.false_alarms for r in results if r.false_alarms} == {}
    # over the cases whose fix has target lines (the others are counted apart): the goal on
    # the held-out part, a floor on the whole
    measured = [r for r in results if r.localization and not r.localization.no_target_lines]
    located = [r for r in measured if r.localization and r.localization.localized]
    missed = [r.id for r in measured if r not in located]
    assert len(located) >= LOCALIZED_FLOOR * len(measured), missed
    held = [r for r in measured if r.part == "held-out"]
    assert sum(1 for r in held if r in located) >= HELD_OUT_GOAL * len(held), missed


@pytest.mark.slow
def test_the_oracle_fixes_every_real_test_changing_fix_with_no_refusal(tmp_path: Path) -> None:
    """The `test-change` family alone (about a minute once cached): each real fix that changed a
    test or the pytest configuration ends `fixed`, no edit refused by the guard, no suspected
    cheat (bench/RESULTS-bench.md: refused legitimate fixes, 0 of 7)."""
    try:
        cases = load_corpus(CORPUS, families=["test-change"])
        jobs = jobs_of(cases, Path(CACHE), sys.stderr, tmp_path)
    except PrepareError as error:
        if unavailable(str(error)) and not IN_CI:
            pytest.skip(f"a case needs what this machine lacks: {error}")
        raise
    results = run_all(jobs, [Runner.ORACLE], Options())
    assert len(results) >= 5
    assert {r.id: r.reason for r in results if r.grade is not Grade.FIXED} == {}
    assert {r.id: r.false_alarms for r in results if r.false_alarms} == {}


@pytest.mark.slow
def test_every_case_of_the_corpus_holds_under_verify() -> None:
    try:
        verdicts = verify_all(load_corpus(CORPUS), Path(CACHE))
    except PrepareError as error:  # verify_case keeps a case's own problems in its verdict
        if unavailable(str(error)) and not IN_CI:
            pytest.skip(f"a case needs what this machine lacks: {error}")
        raise
    unreachable = [v for v in verdicts if any(unavailable(p) for p in v.problems)]
    if unreachable and not IN_CI:
        pytest.skip(f"{len(unreachable)} cases need a registry or a Python this machine lacks")
    assert {v.case.id: v.problems for v in verdicts if not v.ok} == {}
