"""README's Action section, action.yml and the Settings model agree on every input and output."""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from fixbot.github.action import outputs
from fixbot.github.inputs import OTHER_INPUTS, SETTINGS_INPUTS
from fixbot.models import Outcome, OutcomeKind
from fixbot.settings import Settings
from tests.fakes.action_env import ACTION_YML, action_inputs

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs" / "action.md"


def shown(value: Any) -> str:
    """A Settings default as the docs write it."""
    if value is None or value == []:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Enum):
        return f"`{value.value}`"
    if isinstance(value, list):
        return ", ".join(f"`{item}`" for item in value)
    if isinstance(value, float):
        return f"`{value:g}`"
    return f"`{value}`"


def table(text: str, heading: str) -> dict[str, list[str]]:
    """The rows of the markdown table under `### heading`, by first cell without backticks."""
    section = text.split(f"### {heading}", 1)[1].split("\n### ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 2:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def action_section() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- action:start -->(.*)<!-- action:end -->", text, re.S)
    assert found, "README.md lacks the <!-- action:start --> ... <!-- action:end --> markers"
    return found[1]


def settings_default(field: str) -> Any:
    info = Settings.model_fields[field]
    return info.default_factory() if info.default_factory else info.default  # type: ignore[call-arg]


@pytest.mark.parametrize("source", ["docs", "readme"])
def test_inputs_agree_with_action_yml_and_settings(source: str) -> None:
    text = DOCS.read_text(encoding="utf-8") if source == "docs" else action_section()
    rows = table(text, "Inputs")
    declared = action_inputs()
    assert set(rows) == set(declared) == set(SETTINGS_INPUTS) | set(OTHER_INPUTS)
    for name, field in SETTINGS_INPUTS.items():
        if name == "check-command":
            assert declared[name]["required"] is True and rows[name][0] == "required"
            continue
        want = shown(settings_default(field))
        assert rows[name][0] == want, name
        assert f"Default: {want}." in declared[name]["description"], name
        assert Settings.model_fields[field].annotation is not None


def test_outputs_agree_with_action_yml_and_the_code() -> None:
    declared = set(__import__("yaml").safe_load(ACTION_YML.read_text(encoding="utf-8"))["outputs"])
    written = set(outputs(Outcome(outcome=OutcomeKind.PASSED, reason="green")))
    assert declared == written
    for text in (DOCS.read_text(encoding="utf-8"), action_section()):
        assert set(table(text, "Outputs")) == declared
