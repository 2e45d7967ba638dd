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
    assert "user:pw" not in line and "--api-base $FIXBOT_API_BASE" in line
    assert secret_variables(settings) == ["FIXBOT_API_BASE"]
    words = shlex.split(line.replace("$FIXBOT_API_BASE", "http://user:pw@127.0.0.1:8000/v1"))
    assert words[:4] == ["fixbot", "run", "-C", str(tmp_path)]
    args = build_parser().parse_args(words[1:])
    again = load_settings(tmp_path, flags_from(args), {})
    assert again == settings.model_copy(update={"max_attempts": 7})


def test_defaults_are_left_out() -> None:
    assert command_line(Settings(check="make test")) == "fixbot run --check-command 'make test'"
