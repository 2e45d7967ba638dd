"""The project's virtual environment is first on the commands' PATH in fixbot's image, and on
theirs only: root's PATH there holds no folder the commands can write, so a `git` they plant
never runs as root."""

from __future__ import annotations

import pytest

from fixbot.process.launcher import commands_environment
from tests.fakes.installation import as_in_the_image

IMAGE = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": "/opt/venv",
    "GITHUB_TOKEN": "ghs_not-for-the-commands-0123456789",
}


def test_in_the_image_the_venv_leads_the_commands_path(monkeypatch: pytest.MonkeyPatch) -> None:
    as_in_the_image(monkeypatch)
    env = commands_environment(dict(IMAGE))
    assert env["PATH"].split(":")[0] == "/opt/venv/bin"
    assert env["PATH"].split(":")[1:] == IMAGE["PATH"].split(":")
    assert "GITHUB_TOKEN" not in env


def test_the_venv_is_not_repeated_when_the_path_already_holds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    as_in_the_image(monkeypatch)
    given = {**IMAGE, "PATH": "/usr/bin:/opt/venv/bin:/bin"}
    assert commands_environment(given)["PATH"] == "/opt/venv/bin:/usr/bin:/bin"


def test_outside_the_image_the_path_is_the_callers() -> None:
    """On the runner and the CLI the commands get the job's (or the user's) PATH as it is: an
    activated venv there is already on it, in the order the user chose."""
    env = commands_environment(dict(IMAGE))
    assert env["PATH"] == IMAGE["PATH"]
