"""The output dialects against a corpus of real summary lines (`tests/data/summaries/`): every
entry gives its expected counts and failing tests through the dialect that owns it, through the
whole registry (no other dialect counts it too) and through the whole-log facts pass."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from fixbot.core.failure import CheckResult, Counts
from fixbot.logs import dialects
from fixbot.logs.classify import classify
from fixbot.logs.digest import digest
from fixbot.logs.evidence import file_of
from fixbot.logs.facts import collect_stream, shape
from fixbot.logs.signature import failing_tests, failure_signature, parse_counts

CORPUS = Path(__file__).parent.parent / "data" / "summaries"


@dataclass
class Entry:
    """One corpus entry: the dialect's file, its title line, the lines, what they must give."""

    dialect: str
    title: str
    lines: list[str] = field(default_factory=list)
    counts: Counts | None = None  # None until the `=>` line is read
    tests: list[str] | None = None
    read_by: str = "both"  # "condensed": a form read in the condensed log only; "log": in the
    # whole-log pass only (a failure block's header, such as mocha's)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


def _expected(spec: str) -> Counts:
    if spec == "none":
        return Counts()
    return Counts(**{k: int(v) for k, v in (pair.split("=") for pair in spec.split())})


def read_corpus(path: Path) -> list[Entry]:
    """The entries of one corpus file (see tests/data/summaries/README.md)."""
    entries: list[Entry] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            entries.append(Entry(path.stem, line[3:]))
        elif line.startswith(("=> tests: ", "=> condensed tests: ", "=> log tests: ")):
            kind, names = line[3:].split(": ", 1)
            entries[-1].tests = sorted(t.strip() for t in names.split("|"))
            entries[-1].read_by = {"tests": "both", "condensed tests": "condensed"}.get(kind, "log")
        elif line.startswith("=> "):
            entries[-1].counts = _expected(line[3:])
        elif entries and entries[-1].counts is None:
            entries[-1].lines.append(line)
        else:
            assert not line.strip() or line.startswith("#"), f"{path.name}: stray line {line!r}"
    return entries


ENTRIES = [entry for path in sorted(CORPUS.glob("*.txt")) for entry in read_corpus(path)]


def test_every_dialect_that_counts_has_a_corpus_and_every_file_a_dialect() -> None:
    counting = {d.name for d in dialects.DIALECTS if d.summary or d.tally}
    files = {path.stem for path in CORPUS.glob("*.txt")}
    assert counting <= files, f"dialects without real summary lines: {counting - files}"
    assert files <= set(dialects.BY_NAME), f"corpus files without a dialect: {files - counting}"
    assert len(ENTRIES) >= 50 and all(e.lines and e.counts is not None for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.dialect}: {e.title}")
def test_every_corpus_entry_gives_its_counts(entry: Entry) -> None:
    own = dialects.merge_counts(dialects.BY_NAME[entry.dialect].counts(entry.text))
    assert own == entry.counts, "the dialect's own parser"
    assert parse_counts(entry.text) == entry.counts, "the registry: counted once, by one dialect"
    facts = collect_stream(io.BytesIO(entry.text.encode()))
    assert facts.counts() == entry.counts, "the whole-log pass keeps the summary lines"


@pytest.mark.parametrize(
    "entry", [e for e in ENTRIES if e.tests], ids=lambda e: f"{e.dialect}: {e.title}"
)
def test_every_corpus_entry_names_its_failing_tests(entry: Entry) -> None:
    assert failing_tests(entry.text) == ([] if entry.read_by == "log" else entry.tests)
    facts = collect_stream(io.BytesIO(entry.text.encode()))
    assert sorted(facts.failing_tests()) == ([] if entry.read_by == "condensed" else entry.tests)


def test_pytest_9_subtests_summary_of_more_itertools_parses() -> None:
    # more-itertools' pytest 9 run printed this (with its timing); were it not parsed, every
    # failure count would be "unknown"
    line = "1 failed, 662 passed, 1 skipped, 8 warnings, 2332 subtests passed in 9.87s\n"
    assert parse_counts(line) == Counts(failed=1, passed=662, skipped=1)
    assert parse_counts("=" * 10 + " " + line.rstrip() + " " + "=" * 10) == parse_counts(line)


def test_a_failing_go_test_is_a_test_failure_and_a_report_of_its_own() -> None:
    # a permanent phrase inside go's own failure report (go test without -v, as in go.txt) is
    # what the test checked, not the run's failure: the test failure wins
    log = (
        "--- FAIL: TestLogin (0.00s)\n"
        "    auth_test.go:12: got 401 Unauthorized, want 200\n"
        "FAIL\nFAIL\texample.com/auth\t0.004s\nFAIL\n"
    )
    decided = classify(log, exit_code=1, timed_out=False)
    assert decided.error_class.value == "fixable"
    assert "inside the failure report of TestLogin" in decided.note


def test_a_dialect_is_one_module_listed_once() -> None:
    names = [d.name for d in dialects.DIALECTS]
    assert len(names) == len(set(names))
    modules = {p.stem for p in Path(dialects.__file__).parent.glob("*.py")}
    assert set(names) == modules - {"__init__", "base", "paths"}


def test_pytest_9_subtest_progress_is_not_part_of_a_signature() -> None:
    # pytest 9 prints a `u` per subtest in its progress line (`uuuuuF  [100%]`, pytest's own
    # docs for subtests); an unrecognised failure is signed by its last lines, without progress
    first = "uuuuuF                                                   [100%]\nworker lost\n"
    again = "uuuuuuuuuF                                               [ 50%]\nworker lost\n"
    assert failure_signature(first) == failure_signature(again)
    assert failure_signature(first) != failure_signature("worker lost twice\n")


@pytest.mark.parametrize(
    ("test", "path"),
    [
        ("tests/test_x.py::TestX::test_y[a::b]", "tests/test_x.py"),  # pytest
        ("tests.test_x.TestX.test_y", "tests.test_x"),  # unittest
        ("src/x.test.ts > group > name", "src/x.test.ts"),  # vitest
        ("group \u203a inner fails", ""),  # jest names no file
        ("TestSub/b", ""),  # go
        ("src/a.ts:12", "src/a.ts"),  # a diagnostic
    ],
)
def test_each_dialect_says_which_file_its_test_ids_belong_to(test: str, path: str) -> None:
    assert file_of(test) == path


VITEST_COLOURED = (  # vitest 4.1.12 piped to a file still colours words inside its lines
    b"\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m mix.test.js\x1b[2m > \x1b[22mfails\n"
    b"\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m"
    b"\x1b[1m\x1b[32m1 passed\x1b[39m\x1b[22m\x1b[90m (2)\x1b[39m\n"
    b"\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m2 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m"
    b"\x1b[1m\x1b[32m2 passed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[33m1 skipped\x1b[39m"
    b"\x1b[2m | \x1b[22m\x1b[90m1 todo\x1b[39m\x1b[90m (6)\x1b[39m\n"
)


def test_colours_inside_a_line_do_not_hide_its_counts_or_its_test() -> None:
    facts = collect_stream(io.BytesIO(VITEST_COLOURED))
    assert facts.counts() == Counts(failed=2, passed=2, skipped=2)
    assert facts.failing_tests() == ["mix.test.js > fails"]
    assert parse_counts(VITEST_COLOURED.decode()) == facts.counts()


def test_a_red_check_whose_summaries_say_nothing_failed_has_unknown_failures(
    tmp_path: Path,
) -> None:
    # `ruff check . && pytest`: ruff passed (a summary with 0 errors), pytest crashed before its
    # own summary; the run is red, so "0 failing" would be a lie the breaker would believe
    log = tmp_path / "check.log"
    log.write_text("All checks passed!\nFatal Python error: Segmentation fault\n")
    red = CheckResult(command="x", exit_code=139, duration_s=0.1, log_path=log, output_bytes=60)
    assert digest(red).counts.problems is None
    green = red.model_copy(update={"exit_code": 0})
    assert digest(green).counts == Counts(errors=0)
    log.write_text("Found 2 errors.\n")
    assert digest(red).counts.problems == 2


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("FAILED tests/x.py::test_a - assert 1 == 2", "FAILED tests/y.py::test_b - assert 3 == 4"),
        ("FAIL: test_a (m.T.test_a)", "FAIL: test_b (m.T.test_b)"),
        ("--- FAIL: TestA (0.00s)", "--- FAIL: TestB (0.01s)"),
        ("\u25cf Cart \u203a adds", "\u25cf Cart \u203a removes"),
        (" FAIL  a.test.js > adds", " FAIL  b.test.js > group > removes"),
    ],
)
def test_lines_that_differ_only_in_the_test_they_name_have_one_shape(one: str, other: str) -> None:
    assert shape(one) == shape(other)
    assert shape(one) != shape("worker lost")
