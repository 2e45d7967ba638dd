"""fixbot's own git: planted hooks never run, its environment holds no secret, and only the paths
the fixers changed are committed, with real git in real repositories."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.github_env import GitHubEnv
from fixbot.core.settings import Settings
from fixbot.github.api import checkout
from fixbot.process import commits, git
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git as raw_git
from tests.fakes.repo import make_repo, state_of

TOKEN = "ghs_" + "Tok3n" * 6
MODEL_KEY = "sk-" + "k3y" * 8
HOOKS = ("pre-commit", "commit-msg", "post-commit", "pre-push", "reference-transaction")


def plant_hooks(repo: Path, marker: Path) -> None:
    """Hooks that record that they ran, and the environment they saw, in `marker`."""
    for name in HOOKS:
        hook = repo / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\necho {name} >> {marker}\nenv >> {marker}\nexit 0\n")
        hook.chmod(0o755)


@pytest.fixture
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    monkeypatch.setenv("GIT_SSH_COMMAND", "echo hijacked")


def test_planted_hooks_never_run_on_commit_snapshot_and_push(
    tmp_path: Path, secrets_in_env: None
) -> None:
    origin = tmp_path / "origin.git"
    raw_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    raw_git(repo, "remote", "add", "origin", str(origin))
    marker = tmp_path / "hooks-ran.txt"
    plant_hooks(repo, marker)
    raw_git(repo, "push", "-q", "origin", "main")  # the test's own git runs them: they work
    assert "pre-push" in marker.read_text()
    marker.unlink()

    (repo / "app.py").write_text("x = 2\n")
    commits.snapshot(repo, "refs/fixbot/attempt-1", "attempt 1", paths=["app.py"])
    sha = commits.commit_paths(repo, ["app.py"], "fixbot: fix")
    assert sha is not None
    checkout.push(repo, sha, "main", checkout.auth_env(TOKEN), base="HEAD~1", secrets={})
    assert raw_git(origin, "rev-parse", "main") == sha
    assert not marker.exists()


def test_a_planted_fsmonitor_never_runs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    marker = tmp_path / "fsmonitor-ran"
    raw_git(repo, "config", "core.fsmonitor", f"touch {marker}; true")
    (repo / "app.py").write_text("x = 2\n")
    git.status_lines(repo)
    commits.commit_paths(repo, ["app.py"], "fix")
    assert not marker.exists()


def test_fixbots_git_gets_a_minimal_environment(tmp_path: Path, secrets_in_env: None) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    seen = git.run(repo, "-c", "alias.dump=!env", "dump")
    assert "PATH=" in seen and "HOME=" in seen
    assert TOKEN not in seen and MODEL_KEY not in seen and "hijacked" not in seen
    with_token = git.run(repo, "-c", "alias.dump=!env", "dump", env=checkout.auth_env(TOKEN))
    assert "FIXBOT_GIT_TOKEN_FD=" in with_token  # only for a command that talks to the remote
    assert TOKEN not in with_token  # the token itself is in a pipe, not the environment


def test_commit_paths_commits_exactly_the_given_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n", "old.py": "y = 1\n"})
    (repo / "app.py").write_text("x = 2\n")
    (repo / "old.py").unlink()
    (repo / "new dir").mkdir()
    (repo / "new dir" / "[weird]*.py").write_text("z = 1\n")
    (repo / "build-info.txt").write_text("left behind by the check\n")
    raw_git(repo, "add", "build-info.txt")  # even staged leftovers stay out
    paths = ["app.py", "old.py", "new dir/[weird]*.py", "never-existed.py"]
    sha = commits.commit_paths(repo, paths, "fix")
    assert sha is not None
    files = raw_git(repo, "show", "--name-status", "--format=", sha).splitlines()
    assert sorted(files) == ["A\tnew dir/[weird]*.py", "D\told.py", "M\tapp.py"]
    assert commits.commit_paths(repo, ["app.py"], "again") is None  # nothing left to commit


def test_snapshot_with_paths_leaves_the_checks_files_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    (repo / "app.py").write_text("x = 2\n")
    (repo / "build-info.txt").write_text("token\n")
    sha = commits.snapshot(repo, "refs/fixbot/attempt-1", "a1", paths=["app.py"])
    assert raw_git(repo, "ls-tree", "--name-only", sha).splitlines() == ["app.py"]
    assert raw_git(repo, "show", f"{sha}:app.py") == "x = 2"


CHECK_WRITES_BUILD_INFO = """\
import base64, pathlib, sys
token = {token!r}
pathlib.Path("build-info.txt").write_text(base64.b64encode(token.encode()).decode() + "\\n")
sys.exit(0 if pathlib.Path("value.txt").read_text().strip() == "ok" else 1)
"""


@pytest.mark.slow
def test_the_engine_never_commits_what_the_check_leaves_behind(tmp_path: Path) -> None:
    """The check writes the token, base64-encoded, into build-info.txt, a file it leaves in the
    tree: fixbot commits only what the fixer changed, and its snapshots leave the file out."""
    check = CHECK_WRITES_BUILD_INFO.format(token=TOKEN)
    repo = make_repo(tmp_path / "repo", {"check.py": check, "value.txt": "bad\n"})
    fixer = ScriptedFixer([{"value.txt": "ok\n"}])
    settings = Settings(check=f"{sys.executable} check.py")
    outcome, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
    assert outcome.outcome.value == "fixed" and outcome.commit_sha
    committed = raw_git(repo, "show", "--name-only", "--format=", outcome.commit_sha)
    assert committed.splitlines() == ["value.txt"]
    assert (repo / "build-info.txt").read_text().strip() == base64.b64encode(
        TOKEN.encode()
    ).decode()
    snapshot = state.attempts[-1].snapshot_sha
    clone = state_of(repo).parent  # fixbot's own clone holds the snapshots
    assert snapshot and "build-info.txt" not in raw_git(clone, "ls-tree", "--name-only", snapshot)


def credential_fill(repo: Path, env: dict[str, str], host: str) -> str:
    """What fixbot's credential helper answers git for `host` (git credential fill), the token
    handed over as `git.run` does it (a pipe)."""
    extra = dict(env)
    token = extra.pop(git.CREDENTIAL_TOKEN)
    fd = git.token_pipe(token)
    try:
        done = subprocess.run(
            ["git", "credential", "fill"],
            cwd=repo,
            input=f"protocol=https\nhost={host}\n\n",
            env={
                "PATH": os.environ["PATH"],
                "HOME": str(repo),
                **extra,
                git.CREDENTIAL_FD: str(fd),
            },
            capture_output=True,
            text=True,
            check=False,
            pass_fds=(fd,),
        )
    finally:
        os.close(fd)
    return done.stdout


def test_the_token_is_given_only_to_the_servers_host(tmp_path: Path) -> None:
    """A check that rewrote the remote URL (runner mode shares fixbot's uid) gets no token."""
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    env = checkout.auth_env(
        TOKEN, GitHubEnv.read({"GITHUB_SERVER_URL": "https://ghe.co"}).server_host
    )
    assert f"password={TOKEN}" in credential_fill(repo, env, "ghe.co")
    assert TOKEN not in credential_fill(repo, env, "attacker.example")
    assert f"password={TOKEN}" in credential_fill(repo, checkout.auth_env(TOKEN), "any.host")
