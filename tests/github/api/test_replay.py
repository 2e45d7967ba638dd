"""Replaying fixbot's own commits onto a branch that moved (`fixbot.github.api.checkout.replay`) and
telling a moved branch from a refused push, with real git: a bare origin, the Action's clone,
and a human's clone that pushes meanwhile."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixbot.github.api import checkout
from fixbot.process import commits
from fixbot.process import git as fixbot_git
from tests.fakes.repo import git, write_files

HUMAN = ("-c", "user.name=Human", "-c", "user.email=human@example.com")


@dataclass
class Clones:
    """origin, the Action's workspace on `changes` with fixbot's commit on top of `start`, and
    a human's clone of the same branch."""

    origin: Path
    ws: Path
    human: Path
    start: str
    verified: str

    def human_pushes(self, files: dict[str, str], force_from: str | None = None) -> str:
        """The human commits `files` (on a new history from `force_from` when given, pushed
        with --force) and pushes; return the new tip."""
        if force_from:
            git(self.human, "checkout", "-q", "-B", "changes", force_from)
        write_files(self.human, files)
        git(self.human, "add", "-A")
        git(self.human, *HUMAN, "commit", "-q", "-m", "human")
        git(self.human, "push", "-q", "--force", "origin", "HEAD:refs/heads/changes")
        return git(self.human, "rev-parse", "HEAD")


@pytest.fixture
def clones(tmp_path: Path) -> Clones:
    origin, ws, human = tmp_path / "origin.git", tmp_path / "ws", tmp_path / "human"
    git(tmp_path, "init", "-q", "--bare", "-b", "changes", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(human))
    write_files(human, {"app.py": "import os\nprint('hi')\n", "lib.py": "X = 1\n"})
    git(human, "add", "-A")
    git(human, *HUMAN, "commit", "-q", "-m", "start")
    git(human, "push", "-q", "origin", "HEAD:refs/heads/changes")
    git(tmp_path, "clone", "-q", "-b", "changes", str(origin), str(ws))
    start = git(ws, "rev-parse", "HEAD")
    write_files(ws, {"app.py": "print('hi')\n"})  # fixbot's fix, never pushed
    verified = str(commits.commit_all(ws, "fixbot: remove the unused import"))
    return Clones(origin, ws, human, start, verified)


def test_a_clean_replay_puts_only_fixbots_change_on_the_new_tip(clones: Clones) -> None:
    tip = clones.human_pushes({"notes.txt": "meanwhile\n"})

    done = checkout.replay(clones.ws, "changes", clones.start, {})

    assert done.problem == "" and done.tip == tip and done.back == "changes"
    assert done.sha is not None and done.sha == git(clones.ws, "rev-parse", "HEAD")
    assert git(clones.ws, "rev-parse", f"{done.sha}^") == tip
    assert git(clones.ws, "diff", "--name-only", tip, done.sha) == "app.py"
    assert git(clones.ws, "rev-parse", "changes") == clones.verified  # not moved yet
    checkout.restore(clones.ws, done.back)
    assert git(clones.ws, "rev-parse", "HEAD") == clones.verified
    assert git(clones.ws, "rev-parse", "--abbrev-ref", "HEAD") == "changes"


def test_adopt_moves_the_local_branch_to_the_replayed_commit(clones: Clones) -> None:
    clones.human_pushes({"notes.txt": "meanwhile\n"})
    done = checkout.replay(clones.ws, "changes", clones.start, {})

    checkout.adopt(clones.ws, "changes")

    assert git(clones.ws, "rev-parse", "--abbrev-ref", "HEAD") == "changes"
    assert git(clones.ws, "rev-parse", "changes") == done.sha


def test_a_conflict_is_aborted_and_the_workspace_is_back_on_the_verified_fix(
    clones: Clones,
) -> None:
    clones.human_pushes({"app.py": "import os, sys\nprint('hi')\n"})

    done = checkout.replay(clones.ws, "changes", clones.start, {})

    assert done.sha is None and done.conflicts == ("app.py",)
    assert "conflicted in `app.py`" in done.problem
    assert git(clones.ws, "rev-parse", "--abbrev-ref", "HEAD") == "changes"
    assert git(clones.ws, "rev-parse", "HEAD") == clones.verified
    assert git(clones.ws, "status", "--porcelain") == ""
    assert not (clones.ws / ".git" / "rebase-merge").exists()


def test_a_rewritten_branch_is_not_replayed_onto(clones: Clones) -> None:
    git(clones.human, "checkout", "-q", "--orphan", "other")
    git(clones.human, "rm", "-q", "-r", "--cached", ".")
    clones.human_pushes({"app.py": "print('a new history')\n"})

    done = checkout.replay(clones.ws, "changes", clones.start, {})

    assert done.sha is None and "no longer holds the commit fixbot fixed" in done.problem
    assert git(clones.ws, "rev-parse", "HEAD") == clones.verified
    assert "rebase" not in git(clones.ws, "reflog", "--format=%gs")


def test_uncommitted_changes_stop_the_replay_and_are_kept(clones: Clones) -> None:
    clones.human_pushes({"notes.txt": "meanwhile\n"})
    (clones.ws / "lib.py").write_text("X = 2  # left by the check\n", encoding="utf-8")

    done = checkout.replay(clones.ws, "changes", clones.start, {})

    assert done.sha is None and done.problem.startswith("replaying the fix onto it failed")
    assert git(clones.ws, "rev-parse", "--abbrev-ref", "HEAD") == "changes"
    assert git(clones.ws, "rev-parse", "HEAD") == clones.verified
    assert (clones.ws / "lib.py").read_text(encoding="utf-8") == "X = 2  # left by the check\n"


def test_a_replay_that_leaves_nothing_is_not_pushed(clones: Clones) -> None:
    clones.human_pushes({"app.py": "print('hi')\n"})  # the same fix, pushed by the human

    done = checkout.replay(clones.ws, "changes", clones.start, {})

    assert done.sha is None and "left nothing to push" in done.problem
    assert git(clones.ws, "rev-parse", "HEAD") == clones.verified


def test_a_non_fast_forward_push_is_branch_moved_and_a_refusal_is_not(clones: Clones) -> None:
    clones.human_pushes({"notes.txt": "meanwhile\n"})
    with pytest.raises(checkout.BranchMoved, match="moved while fixbot ran"):
        checkout.push(clones.ws, clones.verified, "changes", {})

    hook = clones.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'Permission denied' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    with pytest.raises(fixbot_git.GitError, match="contents: write") as refused:
        checkout.push(clones.ws, clones.verified, "elsewhere", {})
    assert not isinstance(refused.value, checkout.BranchMoved)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give files to another user")
def test_give_back_returns_every_file_to_the_workspaces_owner(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "gitconfig"  # as `checkout.configure` does: trust the workspace
    config.write_text(f"[safe]\n\tdirectory = {clones.ws}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    nobody = 65534
    for path in [clones.ws, *clones.ws.rglob("*")]:
        os.lchown(path, nobody, nobody)
    owner = clones.ws.stat()
    clones.human_pushes({"notes.txt": "meanwhile\n", "new/dir.py": "Y = 1\n"})
    checkout.replay(clones.ws, "changes", clones.start, {})  # git writes as root

    checkout.give_back(clones.ws, owner)

    left = [p for p in clones.ws.rglob("*") if p.lstat().st_uid != nobody]
    assert left == [] and (clones.ws / "new" / "dir.py").exists()
