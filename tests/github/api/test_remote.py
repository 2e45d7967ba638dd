"""The one reading of git remote URLs: which GitHub repository a remote, or a work tree's
origin, names (`fixbot run --pr`, `--from-run`, `fixbot stats`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.errors import ConfigError
from fixbot.github.api.remote import repository_from, repository_from_remote
from tests.fakes.repo import git


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        ("https://github.com/octo/app.git", "octo/app"),
        ("https://github.com/octo/app", "octo/app"),
        ("https://github.com/octo/app/", "octo/app"),
        ("https://x-access-token:t@github.com/octo/app.git", "octo/app"),
        ("git@github.com:octo/app.git", "octo/app"),
        ("ssh://git@github.com/octo/app.git", "octo/app"),
        ("ssh://git@ghe.example.com/octo/app.git", "octo/app"),
        ("https://ghe.example.com/octo/my.app", "octo/my.app"),
        # No GitHub repository: a local path, a group path of another forge, no owner.
        ("/srv/git/app.git", None),
        ("file:///srv/git/octo/app.git", None),
        ("https://gitlab.example.com/group/sub/app.git", None),
        ("https://github.com/app.git", None),
    ],
)
def test_a_remote_url_names_its_repository(remote: str, expected: str | None) -> None:
    assert repository_from_remote(remote) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/octo/app.git",
        "https://github.com/octo/app",
        "git@github.com:octo/app.git",
        "ssh://git@github.example.com/octo/app.git",
    ],
)
def test_the_repository_is_read_from_origin(repo: Path, url: str) -> None:
    git(repo, "remote", "add", "origin", url)
    assert repository_from(repo, None) == "octo/app"
    assert repository_from(repo, "other/name") == "other/name"


def test_without_origin_or_with_a_bad_repo_it_says_to_pass_repo(repo: Path) -> None:
    with pytest.raises(ConfigError, match="pass --repo"):
        repository_from(repo, None)
    with pytest.raises(ConfigError, match="owner/name"):
        repository_from(repo, "just-a-name")
    git(repo, "remote", "add", "origin", "/srv/git/app.git")
    with pytest.raises(ConfigError, match=r"\(/srv/git/app.git\): pass --repo"):
        repository_from(repo, None)
