"""The check runner (real /bin/sh, real process groups) and the digest of its result."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.core.failure import ErrorClass
from fixbot.logs.digest import digest
from fixbot.process import spawn
from fixbot.process.spawn import kill_group, run_check
from tests.fakes.paths import ROOT
from tests.fakes.repo import pid_alive

ENV = dict(os.environ)  # the commands' environment, given as every caller of fixbot gives it


def is_dead(pid: int) -> bool:
    """True when `pid` is gone or a zombie (this sandbox's PID 1 does not reap orphans)."""
    return not pid_alive(pid)


def wait_for_file(path: Path, seconds: float = 5.0) -> str:
    """The text of `path` once a process has written a full line to it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path} was never written")


class Interrupted(Exception):
    """Raised by a test's signal handler, like a SIGTERM handler in the fixbot process."""


@pytest.fixture
def alarm() -> Iterator[None]:
    """Stop any pending SIGALRM timer and put the old handler back after the test."""
    old = signal.getsignal(signal.SIGALRM)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


def test_exit_code_output_and_tail(tmp_path: Path) -> None:
    log = tmp_path / "attempts" / "001" / "check.log"
    result = run_check(
        "echo out; echo err >&2; echo last; exit 3", tmp_path, log, timeout=10, env=ENV
    )
    assert result.exit_code == 3
    assert not result.timed_out and not result.passed
    assert log.read_text() == "out\nerr\nlast\n"
    assert result.output_bytes == len("out\nerr\nlast\n")
    assert result.tail == "out\nerr\nlast\n"
    assert 0 < result.duration_s < 5


def test_success_cwd_and_env(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "GREETING": "hello"}
    result = run_check('pwd; echo "$GREETING"', tmp_path, tmp_path / "c.log", 10, env=env)
    assert result.passed
    assert result.tail.splitlines() == [str(tmp_path), "hello"]


def test_tail_is_bounded(tmp_path: Path) -> None:
    result = run_check("seq 1 100000", tmp_path, tmp_path / "c.log", 10, tail_bytes=100, env=ENV)
    assert len(result.tail.encode()) == 100
    assert result.tail.endswith("99999\n100000\n")
    assert result.output_bytes == (tmp_path / "c.log").stat().st_size


def test_non_utf8_output(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    result = run_check(r"printf 'bad \377\376 bytes \303(\n'; exit 1", tmp_path, log, 10, env=ENV)
    assert log.read_bytes() == b"bad \xff\xfe bytes \xc3(\n"
    assert result.tail == "bad \ufffd\ufffd bytes \ufffd(\n"
    assert result.output_bytes == 16


def test_shell_killed_by_signal_is_128_plus_signal(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    result = run_check("echo before; kill -9 $$", tmp_path, log, 10, env=ENV)
    assert result.exit_code == 137
    assert result.output_bytes == len("before\n")
    assert log.read_text().endswith("[fixbot] the command was killed by signal 9 (SIGKILL)\n")


def test_child_killed_by_signal_reported_by_shell(tmp_path: Path) -> None:
    result = run_check("sh -c 'kill -TERM $$'; exit $?", tmp_path, tmp_path / "c.log", 10, env=ENV)
    assert result.exit_code == 143
    assert "signal 15 (SIGTERM)" in result.tail


@pytest.mark.slow
def test_timeout_kills_term_ignoring_grandchild(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = (
        f"sh -c 'trap \"\" TERM; echo $$ > {pid_file}; exec sleep 1000' & echo started; sleep 1000"
    )
    start = time.monotonic()
    result = run_check(command, tmp_path, tmp_path / "c.log", timeout=1.0, grace=0.5, env=ENV)
    elapsed = time.monotonic() - start
    grandchild = int(wait_for_file(pid_file))
    assert result.timed_out and result.exit_code is None
    assert is_dead(grandchild)
    # TERM was ignored, so the KILL after the grace was needed (the lower bound is the claim;
    # the upper one only says the 1000 s sleep did not run out, with room for a loaded machine)
    assert 1.5 <= elapsed < 60
    assert result.tail.startswith("started\n")
    assert "[fixbot] timed out after 1 s" in result.tail


def test_leftover_background_process_is_killed_after_exit(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    result = run_check(
        f"sleep 1000 & echo $! > {pid_file}; exit 0", tmp_path, tmp_path / "l", 10, env=ENV
    )
    assert result.passed
    assert is_dead(int(wait_for_file(pid_file)))


@pytest.mark.parametrize("exception", [Interrupted, KeyboardInterrupt])
def test_exception_while_waiting_kills_the_group(
    tmp_path: Path, alarm: None, exception: type[BaseException]
) -> None:
    def handler(signum: int, frame: object) -> None:
        raise exception

    signal.signal(signal.SIGALRM, handler)
    pid_file = tmp_path / "child.pid"
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    log = tmp_path / "c"
    with pytest.raises(exception):
        run_check(f"sh -c 'echo $$ > {pid_file}; exec sleep 1000'", tmp_path, log, 600, env=ENV)
    assert is_dead(int(wait_for_file(pid_file)))
    # the exception ended the wait: the timeout's own kill never ran
    assert "timed out" not in log.read_text(errors="replace")


def test_kill_group_of_a_vanished_group_returns_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(spawn.time, "sleep", waits.append)
    kill_group(2**22 + 12345, grace=5)  # above the default pid_max: no such group
    assert waits == []  # no grace waited out, no poll


MEMORY_PROBE = """
import json, os, resource, sys
from pathlib import Path
from fixbot.process.spawn import run_check
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = run_check(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[2]) / "big.log", 60,
                   env=dict(os.environ))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"extra_kb": after - before, "bytes": result.output_bytes,
                  "tail": len(result.tail.encode()), "code": result.exit_code}))
"""


@pytest.mark.slow
def test_200_mb_of_output_keeps_memory_and_disk_bounded(tmp_path: Path) -> None:
    size = 200_000_000
    command = f"yes 'E   assert something went wrong here' | head -c {size}; exit 1"
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, command, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    figures = json.loads(done.stdout)
    assert figures == {**figures, "bytes": size, "tail": 64 * 1024, "code": 1}
    assert figures["extra_kb"] < 48 * 1024
    log = tmp_path / "big.log"
    assert 16 * 2**20 <= log.stat().st_size < 16 * 2**20 + 4096  # max-log-bytes, plus the notes
    with log.open("rb") as handle:
        handle.seek(8 * 2**20 - 100)
        middle = handle.read(400).decode()
    note = re.search(r"\n(\[fixbot\] (\d+) bytes of output dropped here[^\n]*\n)", middle)
    assert note is not None
    kept = log.stat().st_size - len(note.group(1)) - 1  # the note and the newline before it
    assert int(note.group(2)) == size - kept  # every byte is either kept or counted


# --- digest: real check runs --------------------------------------------------------------

FAILING_TESTS = textwrap.dedent(
    """
    import os, time

    def total(items):
        return sum(items) + 1

    def test_total():
        print("pid", os.getpid(), "at", time.time(), object())
        assert total([1, 2]) == 3

    def test_empty():
        assert total([]) == 1
    """
)


def pytest_check(repo: Path) -> str:
    """A pytest command line that runs in `repo` with this interpreter and no cache."""
    return f"{sys.executable} -m pytest -q -p no:cacheprovider {repo}"


@pytest.mark.slow
def test_digest_of_a_real_pytest_failure(tmp_path: Path) -> None:
    repo = tmp_path / "one" / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_total.py").write_text(FAILING_TESTS)
    result = run_check(pytest_check(repo), repo, tmp_path / "one.log", 60, env=ENV)
    failure = digest(result, repo)
    assert failure.classification.error_class is ErrorClass.FIXABLE
    assert failure.classification.category == "assertion"
    assert failure.failing_tests == ["tests/test_total.py::test_total"]
    assert (failure.counts.failed, failure.counts.passed) == (1, 1)
    assert ("tests/test_total.py", 9) in [(loc.path, loc.line) for loc in failure.locations]
    assert "E       assert 4 == 3" in failure.condensed

    other = tmp_path / "two" / "checkout"  # the same project in another place, a later run
    shutil.copytree(repo, other)
    again = digest(run_check(pytest_check(other), other, tmp_path / "two.log", 60, env=ENV), other)
    assert again.signature == failure.signature

    (other / "tests" / "test_total.py").write_text(FAILING_TESTS.replace("== 3", "== 5"))
    changed = digest(
        run_check(pytest_check(other), other, tmp_path / "three.log", 60, env=ENV), other
    )
    assert changed.signature != failure.signature


SUBTESTS = """\
def test_windowed(subtests):
    for size in range(12):
        with subtests.test(size=size):
            assert size != 7, "windowed(range(12), 7) lost its last window"


def test_first():
    assert [1][0] == 1
"""


@pytest.mark.slow
def test_digest_of_a_real_pytest_9_run_with_subtests_knows_its_counts(tmp_path: Path) -> None:
    # pytest 9 prints `N subtests passed` in its summary (with -q); were that summary not
    # parsed, every failure count would be unknown
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_more.py").write_text(SUBTESTS)
    result = run_check(pytest_check(repo), repo, tmp_path / "check.log", 60, env=ENV)
    failure = digest(result, repo)
    assert any("subtests passed" in line for line in failure.summary), failure.summary
    # pytest 9.2: `2 failed, 1 passed, 11 subtests passed` (the failing subtest and the test
    # that contains it); the 11 passing subtests are not tests
    assert (failure.counts.failed, failure.counts.passed, failure.counts.problems) == (2, 1, 2)
    assert failure.failing_tests == ["tests/test_more.py::test_windowed"]


@pytest.mark.slow
def test_digest_of_a_timeout_is_stable(tmp_path: Path) -> None:
    command = "echo collected 3 items; echo tests/test_io.py::test_read; sleep 30"
    first = digest(
        run_check(command, tmp_path, tmp_path / "a.log", timeout=0.3, grace=0.2, env=ENV)
    )
    second = digest(
        run_check(command, tmp_path, tmp_path / "b.log", timeout=0.6, grace=0.2, env=ENV)
    )
    assert first.classification.category == "timeout"
    assert first.classification.error_class is ErrorClass.TRANSIENT
    assert first.signature == second.signature
    moved = "echo collected 3 items; echo tests/test_io.py::test_write; sleep 30"
    third = digest(run_check(moved, tmp_path, tmp_path / "c.log", timeout=0.3, grace=0.2, env=ENV))
    assert third.signature != first.signature


def test_digest_of_a_missing_command(tmp_path: Path) -> None:
    result = run_check("no-such-tool-xyz --check", tmp_path, tmp_path / "c.log", 10, env=ENV)
    failure = digest(result)
    assert result.exit_code == 127
    assert failure.classification.error_class is ErrorClass.PERMANENT
    assert failure.classification.category == "command_not_found"


PARENT = """
import os, sys
from pathlib import Path
from fixbot.process.spawn import run_command
run_command(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[2]) / "c.log", 60, env=dict(os.environ))
"""


@pytest.mark.slow
def test_a_sigkilled_fixbot_takes_its_command_with_it(tmp_path: Path) -> None:
    """SIGKILL cannot be handled: the command (in a session of its own) must still not outlive
    fixbot, or a fix command would edit files after the state was saved."""
    pid_file = tmp_path / "command.pid"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, f"echo $$ > {pid_file}; exec sleep 1000", str(tmp_path)],
        cwd=ROOT,
    )
    command = int(wait_for_file(pid_file))
    parent.kill()
    parent.wait(10)
    deadline = time.monotonic() + 5
    while not is_dead(command) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert is_dead(command)


def test_the_command_sees_the_environment_it_is_given_and_nothing_of_fixbots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIXBOT_OWN_ONLY", "fixbot's")  # in fixbot's process, never given
    given = {"PATH": os.environ["PATH"], "GIVEN": "1"}
    result = run_check("env", tmp_path, tmp_path / "env.log", 10, env=given)
    names = {line.split("=", 1)[0] for line in result.tail.splitlines() if "=" in line}
    assert "GIVEN" in names and "FIXBOT_OWN_ONLY" not in names
