"""`fixbot run --pr`: the token, the repository and the flags, checked before any request."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.cli import main
from fixbot.core.errors import ConfigError
from fixbot.core.github_env import GitHubEnv
from fixbot.github.events.data import PullRequest
from fixbot.github.local import _pushable


def test_the_token_comes_from_github_token_or_gh_token() -> None:
    assert GitHubEnv.read({"GH_TOKEN": " gho_x "}).require_token("--pr") == "gho_x"
    assert GitHubEnv.read({"GITHUB_TOKEN": "a", "GH_TOKEN": "b"}).token == "a"
    assert GitHubEnv.read({"GITHUB_TOKEN": " ", "GH_TOKEN": "b"}).token == "b"
    with pytest.raises(ConfigError, match=r"--pr needs a GitHub token: .*gh auth token"):
        GitHubEnv.read({}).require_token("--pr needs a GitHub token")


def test_push_without_pr_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "-C", str(repo), "--check", "true", "--push"])
    assert code == 2 and "--push needs --pr N" in capsys.readouterr().err


def test_pr_without_a_token_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GH_TOKEN", raising=False)
    code = main(["run", "-C", str(repo), "--check", "true", "--pr", "3", "--repo", "o/r"])
    assert code == 2 and "GH_TOKEN" in capsys.readouterr().err


def _pull_request(head_repo: str | None) -> PullRequest:
    return PullRequest(
        number=7,
        state="open",
        head_ref="fix-it",
        head_sha="a" * 40,
        head_repo=head_repo,
        base_ref="main",
    )


def test_push_is_refused_for_a_fork_or_another_branch() -> None:
    _pushable(_pull_request("Owner/Repo"), 7, "owner/repo", "fix-it")  # same repository, its branch
    with pytest.raises(ConfigError, match="comes from a fork: fixbot never pushes there"):
        _pushable(_pull_request("someone/repo"), 7, "owner/repo", "fix-it")
    with pytest.raises(ConfigError, match="comes from a fork"):
        _pushable(_pull_request(None), 7, "owner/repo", "fix-it")  # the fork was deleted
    with pytest.raises(ConfigError, match=r"branch `fix-it` checked out, not `main`.*checkout 7"):
        _pushable(_pull_request("owner/repo"), 7, "owner/repo", "main")
