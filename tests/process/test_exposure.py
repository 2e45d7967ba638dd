"""The runner mode's uid split: the commands' user reads nothing of the runner user's; a token
actions/checkout persisted is found (`fixbot.process.exposure`)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from fixbot.process import exposure
from tests.fakes.repo import git, make_repo


def test_a_credential_file_others_can_read_in_an_open_home_is_found(tmp_path: Path) -> None:
    """The HOME the split needs open (0755, the workspace is under it) with a 0644
    `~/.gitconfig` holding a credential and a readable `~/.docker/config.json`: both are found
    (the run refuses, naming them and the chmod); private files, other files and a closed HOME
    are not."""
    home = tmp_path / "runner"
    (home / ".docker").mkdir(parents=True)
    home.chmod(0o755)
    (home / ".docker").chmod(0o755)
    (home / ".gitconfig").write_text("[http]\n\textraheader = AUTHORIZATION: basic x\n")
    (home / ".gitconfig").chmod(0o644)
    (home / ".docker" / "config.json").write_text("{}")
    (home / ".docker" / "config.json").chmod(0o644)
    (home / ".git-credentials").write_text("https://x:y@github.com\n")
    (home / ".git-credentials").chmod(0o600)
    (home / ".bashrc").write_text("# not a credential\n")
    (home / ".bashrc").chmod(0o644)
    found = exposure.exposed_home(home)
    assert found == [home / ".docker" / "config.json", home / ".gitconfig"]
    (home / ".gitconfig").chmod(0o600)
    assert exposure.exposed_home(home) == [home / ".docker" / "config.json"]
    home.chmod(0o750)
    assert exposure.exposed_home(home) == []


def test_a_token_actions_checkout_persisted_is_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "w", {"a.txt": "a\n"})
    assert not exposure.persisted_credentials(repo)
    git(repo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eA==")
    assert exposure.persisted_credentials(repo)


def test_the_split_falls_back_to_the_list_only_where_homes_cannot_be_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner mode's split: where root may hide the homes (`sandbox.hides_homes`) the run
    goes on whatever the runner's HOME holds; where it may not, the warning names the fallback
    and a 0644 `~/.gitconfig` there refuses the run."""
    from fixbot.github import action
    from fixbot.process import installation, sandbox

    home = tmp_path / "runner"
    (home / "work").mkdir(parents=True)
    for folder in (tmp_path, home):
        folder.chmod(0o755)
    (home / ".gitconfig").write_text("[http]\n\textraheader = AUTHORIZATION: basic x\n")
    (home / ".gitconfig").chmod(0o644)
    monkeypatch.setattr(installation, "split", lambda: True)
    monkeypatch.setattr(action.pwd, "getpwuid", lambda uid: SimpleNamespace(pw_dir=str(home)))
    ctx = SimpleNamespace(workspace=home / "work", out=io.StringIO(), notes=[])

    monkeypatch.setattr(sandbox, "hides_homes", lambda: True)
    assert action._exposed_home(ctx) is None  # type: ignore[arg-type]
    assert ctx.out.getvalue() == ""

    monkeypatch.setattr(sandbox, "hides_homes", lambda: False)
    refused = action._exposed_home(ctx)  # type: ignore[arg-type]
    assert refused is not None and str(home / ".gitconfig") in refused
    assert "the runner's HOME is not hidden" in ctx.out.getvalue()
    assert ctx.notes == [action.NO_COVER]
