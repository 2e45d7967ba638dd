"""What every event kind is (`EventKind`), and the decision most events share (`fix`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fixbot.github.events.data import Event
from fixbot.github.events.decision import Intent, IntentKind, Options, refuse
from fixbot.github.events.gates import gate_event

Payload = Mapping[str, Any]


def unchanged(event: Event, _payload: Payload) -> Event:
    """The `parse` of an event whose payload adds nothing to the common fields."""
    return event


def fix(event: Event, options: Options) -> Intent:
    """Fix the check on the event's branch, when the gates allow it."""
    verdict = gate_event(event, options.allow_forks)
    if not verdict.allowed:
        return refuse(verdict.reason)
    return Intent(kind=IntentKind.FIX, patch_only=verdict.patch_only)


@dataclass(frozen=True)
class EventKind:
    """One workflow event.

    `name`: `GITHUB_EVENT_NAME`. `parse`: the `Event` with the common fields (repository,
    `ref`'s branch, `after` or `GITHUB_SHA`) and the webhook payload -> the `Event` with this
    event's own fields; a missing field raises `KeyError`, a mis-shaped one `TypeError` or
    `ValueError` (reported as a `ConfigError` by `event.parse_event`). `decide`: the event and
    the workflow's `Options` -> its `Intent`. `threads`: the event is about a pull request whose
    review threads and run history the run may use. `asked`: a person asked for the run, so it
    runs even when the head commit is fixbot's own.
    """

    name: str
    parse: Callable[[Event, Payload], Event] = unchanged
    decide: Callable[[Event, Options], Intent] = fix
    threads: bool = False
    asked: bool = False
