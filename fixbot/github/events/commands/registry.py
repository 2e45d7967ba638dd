"""Every comment command fixbot knows: the `COMMAND` of each module of this package, in the
order the help text lists them (`CommandSpec.rank`).

A new command is a module next to this one exporting `COMMAND = base.CommandSpec(...)`; nothing
else lists it (README.md, "Extending fixbot").
"""

from __future__ import annotations

from functools import cache

from fixbot.core.plugins import members
from fixbot.github.events import commands as package
from fixbot.github.events.commands.base import CommandSpec


@cache
def commands() -> tuple[CommandSpec, ...]:
    """The commands, by `rank`, then name (found once per process)."""
    found = members(package, "COMMAND", CommandSpec)
    return tuple(sorted(found, key=lambda spec: (spec.rank, spec.name)))


def find(name: str) -> CommandSpec | None:
    """The command called `name` (lower case), None when there is none."""
    return next((spec for spec in commands() if spec.name == name), None)
