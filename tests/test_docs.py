"""The README stays in step with the code: every setting and `fixbot run` flag is documented."""

from __future__ import annotations

from pathlib import Path

from fixbot.cli import RUN_OPTIONS, build_parser
from fixbot.settings import Settings

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_documented_in_the_readme() -> None:
    missing = [
        name
        for name in Settings.model_fields
        if f"`{name.replace('_', '-')}`" not in README
        and f"`--{name.replace('_', '-')}" not in README
    ]
    assert missing == []


def test_every_run_flag_exists_in_the_parser_and_has_help() -> None:
    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    flags = {option for action in run._actions for option in action.option_strings}
    for flag, _field, text, _extra in RUN_OPTIONS:
        assert flag in flags and text
    for flag in ("--resume", "--fresh", "-C", "--json", "--check"):
        assert flag in flags and flag in README
