"""Every workflow event fixbot handles: the `KIND` of each module of this package.

A new event is a module next to this one exporting `KIND = base.EventKind(...)` (or a tuple of
kinds); nothing else lists it (README.md, "Extending fixbot").
"""

from __future__ import annotations

from functools import cache

from fixbot.core.plugins import members
from fixbot.github.events import kinds
from fixbot.github.events.kinds.base import EventKind


@cache
def all_kinds() -> tuple[EventKind, ...]:
    """The event kinds, in their modules' name order (found once per process)."""
    return tuple(members(kinds, "KIND", EventKind))


def find(name: str) -> EventKind | None:
    """The event kind called `name` (`GITHUB_EVENT_NAME`), None when fixbot has none."""
    return next((kind for kind in all_kinds() if kind.name == name), None)


def names() -> list[str]:
    """The names of the events fixbot handles, in the registry's order."""
    return [kind.name for kind in all_kinds()]
