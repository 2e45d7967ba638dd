"""The reproducing command line: every flag comes back, it parses to the same settings."""

from __future__ import annotations

import shlex
from pathlib import Path

from fixbot.cli import build_parser, flags_from
from fixbot.core.config import load_settings
from fixbot.core.settings import Settings
from fixbot.run.invocation import command_line, secret_variables


def test_the_command_reproduces_the_settings(tmp_path: Path) -> None:
    settings = Settings(
        check="pytest -q tests/",
        model="openai/gpt-4o",
        api_base="http://user:pw@127.0.0.1:8000/v1",
        fix_commands=["ruff check --fix .", "ruff format ."],
        fallback_models=["anthropic/claude-sonnet-4-5"],
        review=False,
        max_attempts=4,
        timeout=90,
    )
    line = command_line(settings, tmp_path, {"max_attempts": 7})
    assert "user:pw" not in line and "--api-base" not in line  # read from its variable
    assert secret_variables(settings) == ["FIXBOT_API_BASE"]
    words = shlex.split(line)
    assert words[:4] == ["fixbot", "run", "-C", str(tmp_path)]
    args = build_parser().parse_args(words[1:])
    exported = {"FIXBOT_API_BASE": "http://user:pw@127.0.0.1:8000/v1"}
    again = load_settings(tmp_path, flags_from(args), exported)
    assert again == settings.model_copy(update={"max_attempts": 7})


def test_an_api_base_without_a_credential_is_shown() -> None:
    settings = Settings(check="true", model="openai/x", api_base="http://127.0.0.1:8080/v1")
    assert "--api-base http://127.0.0.1:8080/v1" in command_line(settings)
    assert secret_variables(settings) == []
    for hidden in ["http://127.0.0.1:8080/v1?key=abc", "http://tok@h/v1", "h:8080"]:
        line = command_line(settings.model_copy(update={"api_base": hidden}))
        assert "--api-base" not in line and hidden not in line


def test_defaults_are_left_out() -> None:
    assert command_line(Settings(check="make test")) == "fixbot run --check-command 'make test'"
