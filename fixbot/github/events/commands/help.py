"""`/fixbot help`: reply with the list of commands (written from the registry)."""

from __future__ import annotations

from fixbot.github.events.commands.base import Answer, Command, CommandSpec, Desk, Help, bare


def answer(_command: Command, _desk: Desk) -> Answer:
    """The help text."""
    return Help()


COMMAND = CommandSpec(
    name="help",
    usage="/fixbot help",
    summary="this text.",
    parse=bare("help"),
    answer=answer,
)
