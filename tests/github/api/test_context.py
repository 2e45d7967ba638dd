"""The Action's context: what the run needs of the step's environment, built once."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest

from fixbot.core.errors import GitError
from fixbot.github.api.context import make_context
from fixbot.github.api.rest import GitHub
from fixbot.process import worlds

TOKEN = "ghs_" + "t0ken" * 8
KEY = "sk-" + "m0delkey" * 4


def _env(tmp_path: Path, workspace: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "octo/repo",
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_MAX-ATTEMPTS": "2",
        "FIXBOT_HINT": "look at the parser",
        "OPENAI_API_KEY": KEY,
        "PROJECT_VARIABLE": "kept for the commands",
    }


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "a.txt").write_text("a\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(workspace), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(workspace), "commit", "-qm", "a"], check=True)
    return workspace


def test_the_clone_missing_is_an_error_never_the_workspace(tmp_path: Path) -> None:
    """No clone of fixbot's: the publish step's repository is an error naming where it should
    be, not the workspace (whose `.git` an earlier step may have prepared)."""
    workspace = _workspace(tmp_path)
    ctx = make_context(_env(tmp_path, workspace), io.StringIO(), GitHub.connect)
    with pytest.raises(GitError, match="clone of the workspace is missing"):
        _ = ctx.repo


def test_the_clone_is_where_the_run_makes_it(tmp_path: Path) -> None:
    """The context's clone is the one path `worlds.clone_path` makes, under the private folder
    the run uses (its parent), and `repo` is it once it holds a repository."""
    workspace = _workspace(tmp_path)
    env = _env(tmp_path, workspace)
    ctx = make_context(env, io.StringIO(), GitHub.connect)
    base = worlds.state_base(os.geteuid(), env)
    assert ctx.state_base == base
    assert ctx.clone == worlds.clone_path(workspace, base)
    assert ctx.clone.parent == worlds.private_folder(workspace, base)
    worlds.clone(workspace, ctx.clone)
    assert ctx.repo == ctx.clone
    assert worlds.clone_of(workspace, env) == ctx.clone


def test_what_the_run_gets_of_the_environment(tmp_path: Path) -> None:
    """The settings see the `INPUT_*` and `FIXBOT_*` variables only; the run's environment is
    all of it, read-only; the secrets are named and redacted."""
    workspace = _workspace(tmp_path)
    ctx = make_context(_env(tmp_path, workspace), io.StringIO(), GitHub.connect)
    assert sorted(ctx.settings_variables) == [
        "FIXBOT_HINT",
        "INPUT_GITHUB-TOKEN",
        "INPUT_MAX-ATTEMPTS",
    ]
    assert ctx.environment["PROJECT_VARIABLE"] == "kept for the commands"
    with pytest.raises(TypeError):
        ctx.environment["PROJECT_VARIABLE"] = "changed"  # type: ignore[index]
    assert ctx.gates().max_runs_per_day >= 0
    assert ctx.secrets["OPENAI_API_KEY"] == KEY
    assert ctx.secrets["github_token"] == TOKEN
    assert ctx.redactor.redact(f"key {KEY} token {TOKEN}") == "key [REDACTED] token [REDACTED]"
