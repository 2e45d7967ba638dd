"""The decision an event comes to: `Intent` (what the run does), and the `Options` of the
workflow a decision reads. Pure data; `intent` decides, each event kind in `kinds/` says how.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel

from fixbot.github.events.commands.base import Command


@dataclass(frozen=True)
class Options:
    """What the workflow says about events: `allow_forks` (fix forks' code, as a patch) and
    `bots` (the `thread-bots` logins whose reviews count)."""

    allow_forks: bool = False
    bots: Collection[str] = field(default_factory=tuple)


class IntentKind(StrEnum):
    """What the run does."""

    FIX = "fix"
    THREADS = "threads"
    COMMAND = "command"
    REFUSE = "refuse"


class Intent(BaseModel):
    """The decision: `kind`, the refusal `reason`, fork handling, the parsed `command`, and
    the login whose permission must be checked before running (`ask_permission`)."""

    kind: IntentKind
    reason: str = ""
    patch_only: bool = False
    quiet: bool = False
    reply: bool = False
    command: Command | None = None
    ask_permission: str | None = None


def refuse(reason: str, *, quiet: bool = False, reply: bool = False) -> Intent:
    """A refusal; `quiet` ones leave no trace on GitHub, `reply` ones answer the commenter."""
    return Intent(kind=IntentKind.REFUSE, reason=reason, quiet=quiet, reply=reply)
