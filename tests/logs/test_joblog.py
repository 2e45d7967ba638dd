"""The job log cleaner: the failing step's output without the runner's timestamps and markers."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixbot.core.failure import ErrorClass
from fixbot.logs import joblog
from fixbot.logs.classify import classify
from fixbot.logs.condense import condense_text
from fixbot.logs.joblog import clean_log, from_text
from tests.fakes.paths import DATA

JOBLOGS = DATA / "joblogs"


def read(name: str) -> str:
    return (JOBLOGS / name).read_text(encoding="utf-8")


def test_a_job_log_is_cut_to_the_failing_step_without_timestamps_or_markers() -> None:
    log = clean_log(read("pytest-failure.log"))

    lines = log.text.splitlines()
    assert lines[0] == "Run python -m pytest -q"  # the step header, its marker gone
    assert lines[-1] == "1 failed, 1 passed in 0.03s"
    assert "E       assert 2 == 3" in lines and "test_calc.py:4: AssertionError" in lines
    assert not any(line[:4].isdigit() and "T10:" in line[:16] for line in lines)
    assert "##[" not in log.text
    # set-up and earlier steps, the runner's exit line and the post-job clean-up are dropped
    for gone in ("Runner Image", "Syncing repository", "Process completed", "Post job cleanup"):
        assert gone not in log.text
    assert (log.command, log.exit_code) == ("python -m pytest -q", 1)
    assert log.dropped_lines == len(read("pytest-failure.log").splitlines()) - len(lines)


def test_the_cleaned_network_failure_classifies_as_transient() -> None:
    log = clean_log(read("network-failure.log"))
    found = classify(condense_text(log.text), exit_code=log.exit_code, timed_out=False)
    assert found.error_class is ErrorClass.TRANSIENT and found.category == "network"


def test_the_exit_line_alone_does_not_make_a_transient_log_look_like_a_code_error() -> None:
    raw = read("network-failure.log")
    kept = "\n".join(
        line.split(" ", 1)[1].replace("##[error]", "Error: ")
        for line in raw.lstrip("\ufeff").splitlines()
    )
    # Left in as "Error: Process completed ...", the runner's line would be an error line.
    assert "Error: Process completed" in kept
    assert "Process completed" not in clean_log(raw).text


def test_gh_run_view_log_failed_columns_give_the_job_and_step() -> None:
    raw = (
        "test\tRun tests\t2026-11-20T10:00:00.0000000Z ##[group]Run pytest -q\n"
        "test\tRun tests\t2026-11-20T10:00:00.1000000Z pytest -q\n"
        "test\tRun tests\t2026-11-20T10:00:00.2000000Z ##[endgroup]\n"
        "test\tRun tests\t2026-11-20T10:00:01.0000000Z E   assert 1 == 2\n"
        "test\tRun tests\t2026-11-20T10:00:01.1000000Z ##[error]Process completed with exit code 2."
    )
    log = clean_log(raw)
    assert log.text == "Run pytest -q\npytest -q\nE   assert 1 == 2"
    assert (log.job, log.step, log.command, log.exit_code) == ("test", "Run tests", "pytest -q", 2)


def test_error_and_warning_messages_keep_their_words() -> None:
    raw = (
        "2026-11-20T10:00:00Z ##[group]Run tsc\n"
        "2026-11-20T10:00:01Z ##[error]src/app.ts(3,5): error TS2322: Type 'string' is not "
        "assignable to type 'number'.\n"
        "2026-11-20T10:00:01Z ##[warning]Node.js 16 actions are deprecated.\n"
        "2026-11-20T10:00:02Z ##[error]Process completed with exit code 2.\n"
    )
    assert clean_log(raw).text.splitlines()[1:] == [
        "src/app.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
        "Node.js 16 actions are deprecated.",
    ]


def test_a_log_without_error_markers_is_kept_whole() -> None:
    raw = "2026-11-20T10:00:00Z Set up\n2026-11-20T10:00:01Z boom: it broke\n"
    log = clean_log(raw)
    assert log.text == "Set up\nboom: it broke" and log.exit_code is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "FAILED tests/test_x.py::test_y - KeyError: 'a'\n1 failed in 0.1s\n",
        "src/main.rs:3:5: error[E0308]: mismatched types  \n\n\n",
        "  indented\ttabbed\tline\nRun not-a-group-header\n[command]kept as is\n",
        "2026 was a year, not a timestamp\nZ 10:00\n",
    ],
)
def test_plain_text_from_anywhere_passes_through(text: str) -> None:
    expected = [line.rstrip() for line in text.splitlines()]
    while expected and not expected[-1].strip():
        expected.pop()
    assert clean_log(text).text == "\n".join(expected)


# A line of text from anywhere: no timestamp in front, no `##[` marker, no byte-order mark.
PLAIN_LINE = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40
).filter(lambda line: not line.startswith(("##[", "\ufeff")) and not line[:1].isdigit())


@given(st.lists(PLAIN_LINE, max_size=20))
def test_any_plain_text_passes_through_but_for_trailing_space(lines: list[str]) -> None:
    text = "\n".join(lines)
    expected = [line.rstrip() for line in text.splitlines()]
    while expected and not expected[-1].strip():
        expected.pop()
    assert clean_log(text).text == "\n".join(expected)


def test_from_text_names_the_source() -> None:
    first = from_text(read("pytest-failure.log"), "ci.log")
    assert first.source == "ci.log" and first.exit_code == 1
    assert first.text.startswith("Run python -m pytest -q")


def test_a_huge_log_is_read_bounded_and_keeps_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `--from-log` file past the bound keeps its last bytes, where the failure is."""
    monkeypatch.setattr(joblog, "MAX_LOG_BYTES", 4096)
    monkeypatch.setattr(joblog, "CHUNK_BYTES", 1000)
    log = tmp_path / "job.log"
    log.write_text("noise line\n" * 5000 + "E   AssertionError: assert 1 == 2\n")
    assert len(joblog.tail_bytes(log.open("rb"), 4096)) == 4096
    first = joblog.read_log(str(log))
    assert "AssertionError: assert 1 == 2" in first.text
    assert len(joblog.tail_bytes(io.StringIO("é" * 5000), 100)) == 100


def test_the_commit_a_job_log_checked_out_is_read() -> None:
    from fixbot.logs.joblog import from_text, same_commit

    sha = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
    raw = (
        "2026-11-27T10:00:01.0000000Z /usr/bin/git checkout --progress --force -B main\n"
        "2026-11-27T10:00:01.1000000Z HEAD is now at 1a2b3c4 Fix the parser\n"
        "2026-11-27T10:00:01.2000000Z /usr/bin/git log -1 --format=%H\n"
        f"2026-11-27T10:00:01.3000000Z {sha}\n"
        "2026-11-27T10:00:02.0000000Z ##[group]Run pytest\n"
        "2026-11-27T10:00:03.0000000Z FAILED test_a.py::test_a - assert 1 == 2\n"
        "2026-11-27T10:00:03.1000000Z ##[error]Process completed with exit code 1.\n"
    )
    first = from_text(raw, "a log")
    assert first.commit == sha and same_commit(first.commit, sha)
    assert from_text(raw.replace(f" {sha}\n", " x\n"), "a log").commit == "1a2b3c4"
    assert not same_commit(None, sha) and not same_commit("1a2b", sha)
