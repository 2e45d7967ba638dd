"""`/fixbot explain`: explain the last report in plain words.

The dummy command of README.md's "Extending fixbot": this file, dropped into
`fixbot/github/events/commands/`, is the whole change
(tests/github/events/test_command_registry.py).
"""

from __future__ import annotations

from fixbot.github.events.commands.base import Answer, Command, CommandSpec, Desk, Reply, bare


def answer(_command: Command, desk: Desk) -> Answer:
    """The last report, in short."""
    report = desk.last_report()
    return Reply(text=f"In short: {report or 'nothing yet'}")


COMMAND = CommandSpec(
    name="explain",
    usage="/fixbot explain",
    summary="explain the last report in plain words.",
    parse=bare("explain"),
    answer=answer,
    rank=30,
)
