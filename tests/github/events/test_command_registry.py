"""The comment command registry: every command answers through it, the help text and README's
command table are written from it, and a new command is one module (README.md, "Extending
fixbot"), which `test_a_new_command_is_one_module` follows: the module
tests/data/extending/commands/explain.py joins the package, nothing else changes."""

from __future__ import annotations

import importlib.util
from typing import Any

from fixbot.github.events import commands
from fixbot.github.events.commands import registry
from fixbot.github.events.commands.base import (
    Command,
    Reply,
    Run,
)
from fixbot.github.events.commands.comment import answer, help_text, parse
from fixbot.github.events.intent import IntentKind, decide
from tests.fakes.paths import ROOT
from tests.fakes.plugin import EXTENDING, AddModule
from tests.github.events.test_commands import comment_event


class FakeDesk:
    """A pull request with `report` as fixbot's last report; records what it was asked."""

    def __init__(self, report: str | None = None) -> None:
        self.report = report
        self.asked: list[str] = []

    def last_report(self) -> str | None:
        self.asked.append("last_report")
        return self.report


def test_every_registered_command_is_parsed_listed_in_help_and_unique() -> None:
    names = [spec.name for spec in registry.commands()]
    assert names == ["retry", "status", "help"] and len(set(names)) == len(names)
    for spec in registry.commands():
        assert f"- `{spec.usage}`: {spec.summary}" in help_text()
        command = parse(f"/fixbot {spec.name.upper()}")
        assert command is not None and command.kind == spec.name


def test_retry_runs_with_its_hint_and_asks_nothing_of_the_pull_request() -> None:
    desk = FakeDesk()
    command = parse("/fixbot retry keep the old API")
    assert command is not None
    assert answer(command, desk) == Run(hint="keep the old API")
    assert desk.asked == []


def test_status_replies_with_the_last_report_or_says_there_is_none() -> None:
    command = Command(kind="status")
    said = answer(command, FakeDesk("### ✅ fixed in 1 attempt"))
    assert said == Reply(
        text="The last fixbot report on this pull request:\n\n### ✅ fixed in 1 attempt\n"
    )
    none = answer(command, FakeDesk(None))
    assert isinstance(none, Reply) and "has not reported on this pull request yet" in none.text


def test_help_and_unknown_commands_reply_with_the_help_text() -> None:
    assert answer(Command(kind="help"), FakeDesk()) == Reply(text=help_text())
    unknown = parse("/fixbot frobnicate")
    assert unknown is not None
    said = answer(unknown, FakeDesk())
    assert isinstance(said, Reply) and said.text.startswith("fixbot does not know `frobnicate`")
    assert said.text.endswith(help_text())


def test_a_new_command_is_one_module(add_module: AddModule) -> None:
    assert parse("/fixbot explain") == Command(kind="help", unknown="explain")  # not yet known
    # The whole change: the module `explain.py` in `fixbot/github/events/commands/`.
    add_module(commands, EXTENDING / "commands" / "explain.py", registry.commands)
    command = parse("Thanks!\n/fixbot explain please")
    assert command == Command(kind="explain")  # parsed
    listed = help_text()
    assert "- `/fixbot explain`: explain the last report in plain words." in listed
    assert listed.index("/fixbot status") < listed.index("/fixbot explain")  # its `rank`
    assert listed.index("/fixbot explain") < listed.index("/fixbot help")
    desk = FakeDesk("escalated: the breaker opened")
    assert answer(command, desk) == Reply(text="In short: escalated: the breaker opened")
    assert desk.asked == ["last_report"]  # dispatched to its answer, which asked the desk
    intent = decide(comment_event("/fixbot explain"), allow_forks=False)
    assert intent.kind is IntentKind.COMMAND and intent.command == Command(kind="explain")
    # README.md's command table is generated from the registry: it now lists the command.
    assert (
        "| `/fixbot explain` | explain the last report in plain words. |" in gen().commands_table()
    )


def gen() -> Any:
    """scripts/gen_settings.py as a module."""
    loaded = importlib.util.spec_from_file_location(
        "gen_settings", ROOT / "scripts" / "gen_settings.py"
    )
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module
