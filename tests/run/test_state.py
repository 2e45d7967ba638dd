"""The state file: atomic writes, version checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixbot.core.models import Attempt, Finding, Phase, ReviewRound, Severity
from fixbot.core.settings import ConfigError, Settings
from fixbot.policy.state import STATE_VERSION, RunState
from fixbot.run.store import load_state, prepare_state, save_state
from tests.fakes.repo import make_repo


def test_round_trip_and_no_temp_files_left(tmp_path: Path) -> None:
    state = RunState(settings_digest="d", check="pytest", start_sha="abc")
    state.attempts.append(Attempt(number=0, done=True, exit_code=1, signature="s"))
    blocker = Finding(path="a.py", severity=Severity.MAJOR, message="m")
    state.reviews.append(ReviewRound(after=0, blocking=[blocker]))
    save_state(tmp_path, state)
    assert load_state(tmp_path) == state
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_newer_state_version_is_a_config_error(tmp_path: Path) -> None:
    data = RunState(settings_digest="d", check="c", start_sha="s").model_dump(mode="json")
    data["version"] = 99
    (tmp_path / "state.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        load_state(tmp_path)
    assert "newer fixbot" in caught.value.problems[0] and "--fresh" in caught.value.problems[0]


def test_corrupt_state_says_fresh(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{not json")
    with pytest.raises(ConfigError) as caught:
        load_state(tmp_path)
    assert "--fresh" in caught.value.problems[0]


def test_counts_are_derived_from_the_attempts() -> None:
    attempts = [
        Attempt(number=0, phase=Phase.CHECK, done=True),
        Attempt(number=1, phase=Phase.FIX, done=True),
        Attempt(number=2, phase=Phase.REVIEW, done=True),
        Attempt(number=3, phase=Phase.THREADS, done=True),
    ]
    state = RunState(settings_digest="d", check="c", start_sha="s", attempts=attempts)
    assert [a.number for a in state.fix_attempts] == [1, 2, 3]  # every attempt a fixer made
    assert state.review_rounds == 1


def test_an_unfinished_run_of_an_older_state_version_starts_fresh(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "x\n"})
    settings = Settings(check="true")
    old = RunState(settings_digest=settings.digest(), check="true", start_sha="0" * 40)
    old.version = STATE_VERSION - 1
    old.attempts.append(Attempt(number=0, phase=Phase.CHECK))
    save_state(repo / ".fixbot", old)
    state = prepare_state(settings, repo)
    assert state.version == STATE_VERSION and state.attempts == []
    assert state.notes == ["an unfinished run of an older fixbot was discarded"]
    old.version = STATE_VERSION  # the same run from this fixbot resumes
    save_state(repo / ".fixbot", old)
    assert prepare_state(settings, repo) == old


@pytest.mark.parametrize("untracked", [False, True])
def test_the_suggested_commit_command_commits_every_change(tmp_path: Path, untracked: bool) -> None:
    """`git commit -am` leaves an untracked file behind: the message's command, pasted, leaves
    the tree clean either way."""
    import re
    import subprocess

    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    if untracked:
        (repo / "new.py").write_text("y = 1\n")
    with pytest.raises(ConfigError) as raised:
        prepare_state(Settings(check="true"), repo)
    message = str(raised.value)
    command = re.search(r"commit them \((.+?)\), stash", message)
    assert command is not None, message
    subprocess.run(command.group(1), shell=True, cwd=repo, check=True, capture_output=True)
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # the state folder is excluded, every change committed
