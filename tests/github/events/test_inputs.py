"""`--inputs FILE` (`inputs-file`): the check's standard input, end to end through `fixbot run`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.process.spawn import run_check
from tests.fakes.repo import make_repo, run_fixbot, state_of

ENV = dict(os.environ)

# An interactive check: it asks for a confirmation and passes only when it reads "yes".
ASKS = """\
import sys
answer = sys.stdin.readline().strip()
print(f"confirm? got {answer!r}")
if answer != "yes":
    print("FAILED test_confirm.py::test_confirm - AssertionError: no confirmation")
    sys.exit(1)
"""


NO_OP_FIX = ("--fix-command", "true")  # a fixer that changes nothing (the run needs one)


@pytest.mark.slow
def test_the_inputs_file_feeds_the_check_and_without_it_stdin_is_closed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"ask.py": ASKS, "answers.txt": "yes\n"})
    check = f"{sys.executable} ask.py"
    fed = run_fixbot(
        "run", "--check", check, *NO_OP_FIX, "--inputs", "answers.txt", "-C", str(repo), "--json"
    )
    assert fed.code == 0 and fed.json["outcome"] == "passed", fed.stdout + fed.stderr
    log = (state_of(repo) / "attempts" / "000" / "check.log").read_text()
    assert "got 'yes'" in log
    closed = run_fixbot("run", "--check", check, *NO_OP_FIX, "--fresh", "-C", str(repo), "--json")
    assert closed.json["outcome"] == "escalated"
    assert "got ''" in (state_of(repo) / "attempts" / "000" / "check.log").read_text()


@pytest.mark.slow
def test_a_missing_inputs_file_is_a_configuration_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"ask.py": ASKS})
    check = f"{sys.executable} ask.py"
    result = run_fixbot(
        "run", "--check", check, *NO_OP_FIX, "--inputs", "nope.txt", "-C", str(repo)
    )
    assert result.code == 2
    assert "inputs-file nope.txt: no such file" in result.stderr and "--inputs" in result.stderr


def test_run_check_reads_stdin_from_the_file(tmp_path: Path) -> None:
    answers = tmp_path / "in.txt"
    answers.write_text("one\ntwo\n")
    result = run_check("cat", tmp_path, tmp_path / "log", 10, stdin_path=answers, env=ENV)
    assert result.passed and (tmp_path / "log").read_text() == "one\ntwo\n"
    empty = run_check("cat", tmp_path, tmp_path / "log2", 10, env=ENV)
    assert empty.passed and (tmp_path / "log2").read_text() == ""
