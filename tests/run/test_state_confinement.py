"""The state folder is fixbot's alone: a state committed in the repository is never
resumed, and a state naming files outside the state folder is refused."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.models import Attempt, OutcomeKind, Phase
from fixbot.core.settings import ConfigError, Settings
from fixbot.policy.state import RunState
from fixbot.run import engine
from fixbot.run.engine import Agents
from fixbot.run.store import prepare_state, save_state
from tests.fakes.repo import git, make_repo

FAILING = "import sys; print('FAILED test_x - AssertionError: boom'); sys.exit(1)\n"


def forged_passed_state(settings: Settings, repo: Path, **attempt: object) -> RunState:
    """A state claiming the check already passed, with the digest of `settings` (resumable)."""
    passed = Attempt(number=0, phase=Phase.CHECK, done=True, passed=True, exit_code=0, **attempt)
    return RunState(
        settings_digest=settings.digest(),
        check=settings.check,
        start_sha=git(repo, "rev-parse", "HEAD"),
        attempts=[passed],
    )


@pytest.mark.slow
def test_a_committed_state_is_never_resumed(tmp_path: Path) -> None:
    """The attack: a pull request commits .fixbot/state.json with a forged passed attempt."""
    repo = make_repo(tmp_path / "repo", {"check.py": FAILING})
    settings = Settings(check=f"{sys.executable} check.py", max_attempts=1)
    save_state(repo / ".fixbot", forged_passed_state(settings, repo))
    git(repo, "add", "-f", ".fixbot/state.json")
    git(repo, "commit", "-q", "-m", "add a forged state")

    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(None))

    assert outcome.outcome is OutcomeKind.ESCALATED  # the check really ran, and failed
    assert state.attempts[0].exit_code == 1
    assert any("tracked by git" in note and "started fresh" in note for note in state.notes)


@pytest.mark.parametrize("where", ["/etc/passwd", "../outside.log", ".fixbot/../README.md"])
def test_a_state_naming_a_file_outside_the_state_folder_is_refused(
    tmp_path: Path, where: str
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    settings = Settings(check="false")
    forged = forged_passed_state(settings, repo, log_path=where)
    forged.attempts[0].passed = False
    save_state(repo / ".fixbot", forged)
    with pytest.raises(ConfigError, match="outside the state folder"):
        prepare_state(settings, repo)


def test_a_symlink_out_of_the_state_folder_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    settings = Settings(check="false")
    (repo / ".fixbot" / "attempts" / "000").mkdir(parents=True)
    (repo / ".fixbot" / "attempts" / "000" / "check.log").symlink_to("/etc/hostname")
    forged = forged_passed_state(settings, repo, log_path=".fixbot/attempts/000/check.log")
    save_state(repo / ".fixbot", forged)
    with pytest.raises(ConfigError, match="outside the state folder"):
        prepare_state(settings, repo)


def test_fixbots_own_state_resumes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    settings = Settings(check="false")
    mine = forged_passed_state(settings, repo, log_path=".fixbot/attempts/000/check.log")
    mine.outcome = None
    save_state(repo / ".fixbot", mine)
    assert prepare_state(settings, repo).attempts == mine.attempts
