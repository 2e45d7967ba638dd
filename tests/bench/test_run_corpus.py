"""The oracle on the whole shipped corpus, one test a case (slow: the cases' downloads and
environments on the first run, cached afterwards): every case ends `fixed` with its hidden tests
passing, the tampering rules raise no false alarm on a legitimate fix, and fixbot's first request
localizes at least each shard's floor of its cases (the figures measured on this corpus,
bench/RESULTS-bench.md, round 3). The shards are the ecosystems, Python's cases split by part,
and the `test-change` family (real fixes that change a test or the test configuration, whose
claim is that none is refused).

One test a case, so that pytest-xdist balances the corpus over its workers (a shard as one test
was up to 15 minutes on one worker while the other idled). A floor is a share of a whole shard,
so each case test records its localization in a folder the run's pytest processes share
(`records`), and the test that records a shard's last case judges the floor over all of them,
under a lock, once: no test waits for another (xdist orders nothing across its workers, and a
test waiting for cases queued behind it on its own worker would never end). A run that selects
part of a shard (`-k`) judges no floor for it. The cases one pytest process runs share one
spawned worker process (`pool`), as a shard's cases shared `run_all`'s.

`fixbot bench --verify` runs on every case too, each prepared in its test's own folder (the
cases' claims without the engine: the check fails with its `expect` text on the prepared tree,
the reference fix makes it pass, the hidden tests pass on the fixed tree), so that a broken case
is reported as the corpus's problem, not as fixbot's. The oracle's grade holds the same claims on
its own: a case whose check passes before any fix is graded `never-failed`, not `fixed` (judged
by fixbot's own first check, `Options.start_by_engine`: the plain run of the check on the
prepared tree is the `--verify` test's, with its `expect` text, not run a second time here).

A case this machine cannot prepare (no network, no Python 3.8, no Go or cargo for the user)
skips outside CI, saying so, and the rest of its shard runs (the shard's floor is then not
asserted: it is the whole shard's); under `CI=true` it fails, so CI never passes with a corpus
it did not check.

`FIXBOT_CORPUS_SAMPLE=N` runs N cases of each shard (`sample`), judging no floor: `.ci/as-user`'s
run, after the same CI run's root run took the whole corpus.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from fixbot.agent import rustcov
from fixbot.bench.archives import PrepareError
from fixbot.bench.cache import cache_root, locked
from fixbot.bench.corpus import CORPUS, Case, Ecosystem, Family, load_corpus, part_of
from fixbot.bench.environments import rust_variables
from fixbot.bench.localize import Localization
from fixbot.bench.prepare import prepare
from fixbot.bench.releases import download
from fixbot.bench.results import CaseResult
from fixbot.bench.run import Grade, Job, Options, Runner, run_case
from fixbot.bench.verify import verify_case

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it
CACHE = cache_root()  # read before conftest.py gives each test a throw-away HOME
# `FIXBOT_CORPUS_SAMPLE=N`: N cases of each shard (`sample`), no floor judged (a shard's floor is
# the whole shard's). `.ci/as-user` sets it to 2: the same CI run has just run the whole corpus as
# root, and the user's cold caches, Python and tool chains are met by twelve cases as by 119
# (read before conftest.py removes fixbot's variables)
SAMPLE = os.environ.get("FIXBOT_CORPUS_SAMPLE", "")
# each shard: the cases it runs, and its localization floor (a share of its cases with target
# lines), at the figure measured on this corpus, rounded down (bench/RESULTS-bench.md, rounds 3,
# 4, 8 and 10)
SHARDS: dict[str, float] = {
    "python-dev": 0.91,  # 25 of 27 (round 13: Markdown 3.5.2 and tomlkit 0.11.6 added, localized)
    "python-held-out": 0.88,  # 15 of 17 (round 8: 15 of 16 and a new case it misses)
    "npm": 0.9,  # 18 of 20 (round 15: zod 4.3.6 added, a miss; 18 of 19 in round 14)
    "go": 0.8,  # 8 of 10
    "rust": 0.55,  # 6 of 9 under rustup 1.95, 5 of 9 under Debian's rustc 1.63 (semver-1-0-14)
    "test-change": 0.85,  # 18 of 21 (round 29: python-dateutil isoparse added, a miss: 9/19 lines)
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


def sample(cases: list[Case], per_shard: str) -> list[Case]:
    """The cases a run takes: all of them for `per_shard` "", else `per_shard` (a whole number,
    at least 1) of each shard, spread evenly over the shard in the corpus's order (the first,
    then every len/N-th: a shard's cases are sorted by package, so the second is not the
    first's package again where the shard has another). Raises `pytest.UsageError` for any other
    text, naming the variable."""
    if not per_shard:
        return cases
    if not per_shard.isdigit() or int(per_shard) < 1:
        raise pytest.UsageError(
            f"FIXBOT_CORPUS_SAMPLE={per_shard!r}: give a whole number of cases a shard (1 or"
            " more), or unset it for the whole corpus"
        )
    count = int(per_shard)
    taken: list[Case] = []
    for shard in SHARDS:
        mine = [case for case in cases if shard_of(case) == shard]
        taken += [mine[i * len(mine) // count] for i in range(min(count, len(mine)))]
    return [case for case in cases if case in taken]


def test_a_sample_takes_cases_spread_over_every_shard() -> None:
    """Two a shard: each shard's first case and the one half way through it, in the corpus's
    order; "" takes the whole corpus; bad text is refused, naming the variable."""
    cases = load_corpus(CORPUS)
    two = sample(cases, "2")
    assert Counter(shard_of(case) for case in two) == {shard: 2 for shard in SHARDS}
    go = [case for case in cases if shard_of(case) == "go"]
    assert [case for case in two if shard_of(case) == "go"] == [go[0], go[len(go) // 2]]
    assert sample(cases, "") == cases
    for bad in ("0", "two", "-1"):
        with pytest.raises(pytest.UsageError, match="FIXBOT_CORPUS_SAMPLE"):
            sample(cases, bad)


CASES = [pytest.param(case, id=case.id) for case in sample(load_corpus(CORPUS), SAMPLE)]


@pytest.fixture(scope="session")
def pool() -> Iterator[ProcessPoolExecutor]:
    """One spawned worker process for this pytest process's oracle cases, as `run_all` gives a
    shard's (`default_jobs()` on 2 cores): a case runs in a spawned process, never in a forked
    copy of pytest's, and that process's imports (fixbot's, litellm's: about 6 s of CPU) are
    paid once per pytest process, as `run_all` pays them once per shard, not once per case."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as workers:
        yield workers


@pytest.fixture(scope="session")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder this session's case tests record their localization in, one file a case:
    the base temporary folder's parent under pytest-xdist (the run's `pytest-N/`, shared by its
    workers and by no other run), the base folder itself without it."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "corpus-localization"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _record(records: Path, case: Case, result: CaseResult | None, left: str = "") -> None:
    """Write the case's localization (or why it was left out) for its shard's floor."""
    found = result.localization if result else None
    entry = {
        "left": left,
        "measured": bool(found and not found.no_target_lines),
        "located": bool(found and not found.no_target_lines and found.localized),
    }
    folder = records / shard_of(case)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{case.id}.part"
    partial.write_text(json.dumps(entry), encoding="utf-8")
    partial.replace(folder / f"{case.id}.json")  # whole or absent, never half written


def _floor_problem(records: Path, shard: str) -> str | None:
    """The shard's floor judged once, by whichever of its case tests records the last case
    (under a lock: two finishing at once judge it once): None until every case of the shard
    is recorded, when another test already judged it, or when a case was left out (the floor
    is the whole shard's); else None when the floor holds, the shortfall when not."""
    ids = [c.id for c in load_corpus(CORPUS) if shard_of(c) == shard]
    folder = records / shard
    with locked(records / f"{shard}.lock"):
        judged = folder / ".judged"
        if judged.exists() or not all((folder / f"{i}.json").exists() for i in ids):
            return None
        judged.touch()
        entries = {i: json.loads((folder / f"{i}.json").read_text("utf-8")) for i in ids}
    measured = [i for i, e in entries.items() if e["measured"]]
    located = [i for i in measured if entries[i]["located"]]
    missed = [i for i in measured if i not in located]
    left = [e["left"] for e in entries.values() if e["left"]]
    print(f"{shard}: localized {len(located)} of {len(measured)}; missed {missed}; left {left}")
    floor = SHARDS[shard]
    if shard == "rust" and rust_spectrum_here():
        floor = RUST_SPECTRUM_FLOOR
    if left or len(located) >= floor * len(measured):
        return None
    return f"{shard}: localized {len(located)} of {len(measured)}, under {floor}; missed {missed}"


def _measured(case: Case, localized: bool) -> CaseResult:
    shown = 10 if localized else 0
    found = Localization(
        files=["a.go"], files_shown=["a.go"], lines=10, lines_shown=shown, request_chars=1
    )
    return CaseResult(
        id=case.id,
        family=case.family.value,
        ecosystem=case.ecosystem.value,
        runner=Runner.ORACLE,
        grade=Grade.FIXED,
        localization=found,
    )


def test_a_shards_floor_is_judged_once_by_the_test_recording_its_last_case(
    tmp_path: Path,
) -> None:
    """Until every case of the shard is recorded nothing is judged; the one that completes it
    gets the shortfall (3 of the go shard's cases missed: under its floor), and only it."""
    cases = [c for c in load_corpus(CORPUS) if shard_of(c) == "go"]
    for number, case in enumerate(cases[:-1]):
        _record(tmp_path, case, _measured(case, localized=number >= 3))
        assert _floor_problem(tmp_path, "go") is None
    _record(tmp_path, cases[-1], _measured(cases[-1], localized=True))
    shortfall = _floor_problem(tmp_path, "go")
    assert shortfall and shortfall.startswith(f"go: localized {len(cases) - 3} of {len(cases)}")
    assert _floor_problem(tmp_path, "go") is None  # judged once


def test_a_shard_with_a_case_left_out_holds_no_floor_and_one_at_it_passes(tmp_path: Path) -> None:
    cases = [c for c in load_corpus(CORPUS) if shard_of(c) == "go"]
    for number, case in enumerate(cases):
        left = "no Go tool chain" if number == 0 else ""
        _record(tmp_path / "left", case, _measured(case, localized=False), left=left)
        _record(tmp_path / "held", case, _measured(case, localized=number >= 2))
    assert (tmp_path / "left" / "go" / ".judged").exists() is False
    assert _floor_problem(tmp_path / "left", "go") is None
    assert (tmp_path / "left" / "go" / ".judged").exists()  # judged: no floor with a case left
    assert _floor_problem(tmp_path / "held", "go") is None  # 8 of 10: the go floor, 0.8


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_oracle_fixes_the_case_with_no_false_alarm_and_its_shard_holds_the_floor(
    tmp_path: Path, case: Case, pool: ProcessPoolExecutor, records: Path
) -> None:
    """The case `fixed`, hidden tests passing, no false alarm (for `test-change`: no edit
    refused by the guard, no suspected cheat); its localization recorded, and the test that
    records its shard's last case asserts the shard's floor over them all (a share of its cases
    with target lines; those without are counted apart)."""
    try:
        job = Job.of(prepare(case, Path(CACHE), tmp_path / case.id))
    except PrepareError as error:  # outside CI, a case this machine cannot prepare skips
        if IN_CI or not unavailable(str(error)):
            raise
        _record(records, case, None, left=f"{case.id}: {error}")
        pytest.skip(f"{case.id}: {error}")
    # fixbot's own first check judges the start (no plain check of the tree before it): the
    # check failing there, plain, with its `expect` text, is test_the_case_holds_under_verify's
    options = Options(start_by_engine=True)
    result = pool.submit(run_case, job, Runner.ORACLE, options).result()
    _record(records, case, result)
    shortfall = _floor_problem(records, shard_of(case))
    assert result.grade is Grade.FIXED, result.reason
    assert result.false_alarms == []
    assert shortfall is None, shortfall


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_case_holds_under_verify(tmp_path: Path, case: Case) -> None:
    """`fixbot bench --verify` on the case, prepared in this test's own folder."""
    verdict = verify_case(case, Path(CACHE), tmp_path / case.id)  # its problems stay in it
    if not IN_CI and any(unavailable(p) for p in verdict.problems):
        pytest.skip(f"{case.id} cannot be prepared here: {verdict.problems}")
    assert verdict.problems == []
