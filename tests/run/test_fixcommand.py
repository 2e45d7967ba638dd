"""Fix commands run the one way fixbot runs a project command: own process
group killed on timeout, scrubbed environment, a bounded redacted log per attempt, duration
and exit code in the summary, and only the files they changed reported."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.models import FixContext
from fixbot.process.launcher import Launcher
from fixbot.run.fixcommand import FixCommandFixer
from tests.fakes.paths import ROOT
from tests.fakes.repo import make_repo, running

SECRET = "sk-" + "fixcommand" * 3


def context(repo: Path, attempt: int = 1) -> FixContext:
    return FixContext(repo=repo, attempt=attempt, max_attempts=5, start_sha="HEAD")


def launcher(repo: Path) -> Launcher:
    return Launcher(
        repo,
        {"PATH": os.environ["PATH"]},
        redact=lambda t: t.replace(SECRET, "***"),
        deadline=Deadline.start(None),
    )


def test_each_command_gets_a_log_with_its_output_redacted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", "b.txt": "b\n"})
    fixer = FixCommandFixer(
        [f"echo changing a {SECRET}; echo fixed > a.txt", "echo oops >&2; exit 3"],
        launcher(repo),
    )
    result = fixer.fix(context(repo, attempt=2).model_copy(update={"state_dir": ".fixbot"}))
    logs = repo / ".fixbot" / "attempts" / "002"
    assert (logs / "fix-command-1.log").read_text() == "changing a ***\n"
    assert (logs / "fix-command-2.log").read_text() == "oops\n"
    assert result.files_changed == ["a.txt"]  # the logs under .fixbot/ never count
    assert "exit 0 (" in result.summary and "exit 3 (" in result.summary
    assert "log: .fixbot/attempts/002/fix-command-2.log" in result.summary


@pytest.mark.slow  # waits out a timeout
def test_a_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    pid_file = tmp_path / "grandchild.pid"
    unique = f"1000.{os.getpid()}{time.monotonic_ns() % 100000}"  # a sleep of its own
    command = f"sh -c 'echo $$ > {pid_file}; exec sleep {unique}' & sleep 1000"
    fixer = FixCommandFixer([command], launcher(repo), timeout=0.5)
    start = time.monotonic()
    result = fixer.fix(context(repo))
    assert time.monotonic() - start < 60  # the tree left alone sleeps 1000 s
    assert "timed out after 0.5 s" in result.summary
    assert pid_file.read_text().strip()  # the grandchild ran ...
    assert not running(f"sleep {unique}")  # ... and is gone


def test_the_environment_is_the_scrubbed_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    os.environ["FIXBOT_TEST_SECRET"] = SECRET  # in fixbot's environment, not in the launcher's
    try:
        FixCommandFixer(["env > seen.txt"], launcher(repo)).fix(context(repo))
    finally:
        del os.environ["FIXBOT_TEST_SECRET"]
    assert SECRET not in (repo / "seen.txt").read_text()


def test_no_shell_true_outside_the_runner() -> None:
    root = ROOT / "fixbot"
    found = subprocess.run(
        ["grep", "-rln", "shell=True", str(root)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert found == []  # the runner itself uses /bin/sh -c with an argument list


ESLINT9_NO_CONFIG = ROOT / "tests" / "data" / "fixcommands" / "eslint9-no-config.log"
ESLINT9_SAYS = (
    "Oops! Something went wrong! :( / ESLint: 9.39.5 / "
    "ESLint couldn't find an eslint.config.(js|mjs|cjs) file."
)


def test_a_crashing_fix_command_says_its_exit_code_and_first_lines(tmp_path: Path) -> None:
    """ESLint 9 without an eslint.config (its real output, replayed): exit 2 and what it said,
    not just "changed nothing"; a command that succeeds is no problem."""
    repo = make_repo(tmp_path / "repo", {"a.js": "var a = 1\n"})
    crash = f"cat {ESLINT9_NO_CONFIG}; exit 2"
    fixer = FixCommandFixer(["true", crash], launcher(repo))
    result = fixer.fix(context(repo).model_copy(update={"state_dir": ".fixbot"}))
    assert result.files_changed == []
    assert result.problems == [
        f"`{crash}` exit 2: {ESLINT9_SAYS} (log: .fixbot/attempts/001/fix-command-2.log)"
    ]


def test_the_chain_keeps_a_crashed_command_visible_after_the_next_fixer(tmp_path: Path) -> None:
    from fixbot.run.fixcommand import ChainFixer

    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    crashing = FixCommandFixer(["echo boom >&2; exit 2"], launcher(repo))
    fixing = FixCommandFixer(["echo fixed > a.txt"], launcher(repo))
    result = ChainFixer([crashing, fixing]).fix(context(repo))
    assert result.files_changed == ["a.txt"]
    assert [p.split(" (log:")[0] for p in result.problems] == [
        "`echo boom >&2; exit 2` exit 2: boom"
    ]
