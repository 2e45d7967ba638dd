"""Every comment command fixbot knows, in the order the help text lists them.

A new command is a module next to this one exporting a `base.CommandSpec` named `COMMAND`,
and one entry here.
"""

from __future__ import annotations

from fixbot.github.events.commands import help, retry, status
from fixbot.github.events.commands.base import CommandSpec

COMMANDS: list[CommandSpec] = [retry.COMMAND, status.COMMAND, help.COMMAND]


def find(name: str) -> CommandSpec | None:
    """The command called `name` (lower case), None when there is none."""
    return next((spec for spec in COMMANDS if spec.name == name), None)
