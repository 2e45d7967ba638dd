"""`fixbot run --pr`: the token, the repository and the flags, checked before any request."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.cli import main
from fixbot.core.errors import ConfigError
from fixbot.github.local import token_from


def test_the_token_comes_from_github_token_or_gh_token() -> None:
    assert token_from({"GH_TOKEN": " gho_x "}) == "gho_x"
    assert token_from({"GITHUB_TOKEN": "a", "GH_TOKEN": "b"}) == "a"
    with pytest.raises(ConfigError, match="gh auth token"):
        token_from({})


def test_push_without_pr_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "-C", str(repo), "--check", "true", "--push"])
    assert code == 2 and "--push needs --pr N" in capsys.readouterr().err


def test_pr_without_a_token_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GH_TOKEN", raising=False)
    code = main(["run", "-C", str(repo), "--check", "true", "--pr", "3", "--repo", "o/r"])
    assert code == 2 and "GH_TOKEN" in capsys.readouterr().err
