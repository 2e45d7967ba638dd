"""The oracle on the whole shipped corpus, in shards that together run each case once (slow:
the cases' downloads and environments on the first run, cached afterwards): every case ends
`fixed` with its hidden tests passing, the tampering rules raise no false alarm on a legitimate
fix, and fixbot's first request localizes at least each shard's floor (the figures measured
on this corpus, bench/RESULTS-bench.md, round 3). The shards are the ecosystems, Python's cases
split by part, and the `test-change` family (real fixes that change a test or the test
configuration, whose claim is that none is refused): one test each, so that pytest-xdist
spreads the corpus over its workers.

`fixbot bench --verify` runs on every shard too (the cases' claims without the engine: each
check fails with its `expect` text on the prepared tree, the reference fix makes it pass, the
hidden tests pass on the fixed tree), so that a broken case is reported as the corpus's
problem, not as fixbot's. The oracle's grade holds the same claims on its own: a case whose
check passes before any fix is graded `never-failed`, not `fixed`.

A case this machine cannot prepare (no network, no Python 3.8, no Go or cargo for the user)
is left out outside CI, saying so, and the rest of its shard runs (the floor is then not
asserted: it is the whole shard's); under `CI=true` it fails, so CI never passes with a corpus
it did not check.
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from fixbot.agent import rustcov
from fixbot.bench.archives import PrepareError
from fixbot.bench.cache import cache_root
from fixbot.bench.corpus import CORPUS, Case, Ecosystem, Family, load_corpus, part_of
from fixbot.bench.environments import rust_variables
from fixbot.bench.prepare import prepare
from fixbot.bench.releases import download
from fixbot.bench.run import Grade, Job, Options, Runner, run_all
from fixbot.bench.verify import verify_all

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
CACHE = cache_root()  # read before conftest.py gives each test a throw-away HOME
# each shard: the cases it runs, and its localization floor (a share of its cases with target
# lines), at the figure measured on this corpus, rounded down (bench/RESULTS-bench.md, rounds 3,
# 4, 8 and 10)
SHARDS: dict[str, float] = {
    "python-dev": 0.91,  # 25 of 27 (round 13: Markdown 3.5.2 and tomlkit 0.11.6 added, localized)
    "python-held-out": 0.88,  # 15 of 17 (round 8: 15 of 16 and a new case it misses)
    "npm": 0.9,  # 18 of 20 (round 15: zod 4.3.6 added, a miss; 18 of 19 in round 14)
    "go": 0.8,  # 8 of 10
    "rust": 0.55,  # 6 of 9 under rustup 1.95, 5 of 9 under Debian's rustc 1.63 (semver-1-0-14)
    "test-change": 0.86,  # 13 of 15 (round 14: uniseg 0.4.2 added, localized)
}
# the rust shard's floor where the Rust spectrum runs (a rustc with the profiler runtime and an
# llvm-profdata of its LLVM, `fixbot.agent.rustcov`): 8 of 9 under rustup 1.95 with Debian's
# llvm-22 (bench/RESULTS-bench.md, "Rust spectrum"), 9 of 10 with textwrap 0.16.0 (round 11);
# Debian's rustc 1.63 has no profiler runtime
RUST_SPECTRUM_FLOOR = 0.88
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


def rust_spectrum_here() -> bool:
    """Whether the cargo the rust cases run (rustup's tool chains found as the bench finds
    them, `rust_variables`) can give the Rust spectrum: `fixbot.agent.rustcov.choose`."""
    env = {**os.environ, **rust_variables(Path(CACHE))}
    done = subprocess.run(
        ["sh", "-c", rustcov.probe_command()], env=env, capture_output=True, text=True, check=False
    )
    return not isinstance(rustcov.choose(rustcov.parse_probe(done.stdout)), str)


def shard_of(case: Case) -> str:
    """The shard a case runs in: its family if `test-change`, else its ecosystem (Python's by
    part as well)."""
    if case.family is Family.TEST_CHANGE:
        return "test-change"
    if case.ecosystem is Ecosystem.PYTHON:
        return f"python-{part_of(case.id).value}"
    return case.ecosystem.value


def test_every_case_is_in_one_shard_and_every_shard_has_cases() -> None:
    shards = Counter(shard_of(case) for case in load_corpus(CORPUS))
    assert set(shards) == set(SHARDS), shards
    assert min(shards.values()) >= 5, shards


def _jobs(shard: str, into: Path) -> tuple[list[Job], list[str]]:
    """The shard's cases prepared under `into`, and (outside CI) why those this machine cannot
    prepare are left out; under CI=true such a case fails the test."""
    jobs, left = [], []
    for case in load_corpus(CORPUS):
        if shard_of(case) != shard:
            continue
        try:
            jobs.append(Job.of(prepare(case, Path(CACHE), into / case.id)))
        except PrepareError as error:
            if unavailable(str(error)) and not IN_CI:
                left.append(f"{case.id}: {error}")
                continue
            raise
    if not jobs:
        pytest.skip(f"no case of {shard} can be prepared here: {left[:3]}")
    return jobs, left


@pytest.mark.slow
@pytest.mark.parametrize("shard", sorted(SHARDS))
def test_the_oracle_fixes_every_case_with_no_false_alarm_and_holds_the_localization_floor(
    tmp_path: Path, shard: str
) -> None:
    """Every case of the shard `fixed`, hidden tests passing, no false alarm (for `test-change`:
    no edit refused by the guard, no suspected cheat); the first request localizes at least the
    shard's floor of its cases with target lines (those without are counted apart)."""
    jobs, left = _jobs(shard, tmp_path)
    results = run_all(jobs, [Runner.ORACLE], Options())
    assert {r.id: r.reason for r in results if r.grade is not Grade.FIXED} == {}
    assert {r.id: r.false_alarms for r in results if r.false_alarms} == {}
    measured = [r for r in results if r.localization and not r.localization.no_target_lines]
    located = [r for r in measured if r.localization and r.localization.localized]
    missed = [r.id for r in measured if r not in located]
    print(f"{shard}: localized {len(located)} of {len(measured)}; missed {missed}; left {left}")
    floor = SHARDS[shard]
    if shard == "rust" and rust_spectrum_here():
        floor = RUST_SPECTRUM_FLOOR
    if not left:
        assert len(located) >= floor * len(measured), missed


@pytest.mark.slow
@pytest.mark.parametrize("shard", sorted(SHARDS))
def test_every_case_of_the_corpus_holds_under_verify(shard: str) -> None:
    cases = [c for c in load_corpus(CORPUS) if shard_of(c) == shard]
    verdicts = verify_all(cases, Path(CACHE))  # a case's own problems stay in its verdict
    if not IN_CI:
        verdicts = [v for v in verdicts if not any(unavailable(p) for p in v.problems)]
    if not verdicts:
        pytest.skip(f"no case of {shard} can be prepared here")
    assert {v.case.id: v.problems for v in verdicts if not v.ok} == {}
