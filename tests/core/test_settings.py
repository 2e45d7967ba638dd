"""Settings layering and configuration errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.config import load_settings
from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings


def test_precedence_flags_beat_env_beat_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.fixbot]\ncheck = 'pytest'\nmax-attempts = 7\ntimeout = 30\nbackoff = 2\n"
    )
    (tmp_path / ".fixbot.toml").write_text("timeout = 40\nbackoff = 3\n")
    env = {"FIXBOT_BACKOFF": "4", "FIXBOT_FIX_COMMANDS": "ruff check --fix .\nruff format ."}
    settings = load_settings(tmp_path, {"check": "pytest -q"}, env)
    assert settings.check == "pytest -q"  # flag beats file
    assert settings.max_attempts == 7  # pyproject
    assert settings.timeout == 40  # .fixbot.toml beats pyproject
    assert settings.backoff == 4  # env beats files
    assert settings.fix_commands == ["ruff check --fix .", "ruff format ."]


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.fixbot]\nmax_atempts = 3\n")
    env = {"FIXBOT_TIMEOUT": "-5"}
    with pytest.raises(ConfigError) as caught:
        load_settings(
            tmp_path,
            {"check": "pytest", "max_attempts": "0"},
            env,
            {"max_attempts": "--max-attempts"},
        )
    problems = caught.value.problems
    assert len(problems) == 3, problems
    assert any("unknown key 'max_atempts'" in p for p in problems)
    assert any(
        p.startswith("--max-attempts:") and "greater than or equal to 1" in p for p in problems
    )
    assert any(p.startswith("FIXBOT_TIMEOUT:") for p in problems)


def test_no_check_is_left_to_the_inference_and_a_blank_one_is_refused(tmp_path: Path) -> None:
    assert load_settings(tmp_path, {}, {}).check == ""
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {"check": "  "}, {})
    assert "blank" in caught.value.problems[0] and "infer" in caught.value.problems[0]


def test_invalid_toml_is_reported(tmp_path: Path) -> None:
    (tmp_path / ".fixbot.toml").write_text("timeout = = 3\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {"check": "true"}, {})
    assert "not valid TOML" in caught.value.problems[0]


def test_lists_in_env_are_json_or_one_item_a_line(tmp_path: Path) -> None:
    ok = load_settings(tmp_path, {"check": "true"}, {"FIXBOT_PROTECTED_PATHS": '["a/**", "b"]'})
    assert ok.protected_paths == ["a/**", "b"]
    shell = "[ -f setup.py ] && ruff check --fix .\nruff format ."
    lines = load_settings(tmp_path, {"check": "true"}, {"FIXBOT_FIX_COMMANDS": shell})
    assert lines.fix_commands == ["[ -f setup.py ] && ruff check --fix .", "ruff format ."]


def test_digest_ignores_resume_and_changes_with_the_check() -> None:
    a = Settings(check="pytest", resume=True)
    b = Settings(check="pytest", resume=False)
    c = Settings(check="pytest -x")
    assert a.digest() == b.digest()
    assert a.digest() != c.digest()
