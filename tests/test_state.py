"""The state file: atomic writes, version checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixbot.models import Attempt
from fixbot.settings import ConfigError
from fixbot.state import RunState, load_state, save_state


def test_round_trip_and_no_temp_files_left(tmp_path: Path) -> None:
    state = RunState(settings_digest="d", check="pytest", start_sha="abc")
    state.attempts.append(Attempt(number=0, done=True, exit_code=1, signature="s"))
    save_state(tmp_path, state)
    assert load_state(tmp_path) == state
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_newer_state_version_is_a_config_error(tmp_path: Path) -> None:
    data = RunState(settings_digest="d", check="c", start_sha="s").model_dump(mode="json")
    data["version"] = 99
    (tmp_path / "state.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        load_state(tmp_path)
    assert "newer fixbot" in caught.value.problems[0] and "--fresh" in caught.value.problems[0]


def test_corrupt_state_says_fresh(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{not json")
    with pytest.raises(ConfigError) as caught:
        load_state(tmp_path)
    assert "--fresh" in caught.value.problems[0]
