"""`/fixbot help`: reply with the list of commands (written from the registry)."""

from __future__ import annotations

from fixbot.github.events.commands.base import Answer, Command, CommandSpec, Desk, Help, bare


def answer(_command: Command, _desk: Desk) -> Answer:
    """The help text."""
    return Help()


COMMAND = CommandSpec(
    name="help",
    usage="/fixbot help",
    summary="reply with this list of commands (also the answer to `/fixbot` alone or to a "
    "command fixbot does not know).",
    parse=bare("help"),
    answer=answer,
    rank=90,
)
