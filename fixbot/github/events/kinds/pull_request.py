"""`pull_request`: fix the pull request's head branch."""

from __future__ import annotations

from fixbot.github.events.data import Event, pull_request_of
from fixbot.github.events.kinds.base import EventKind, Payload


def parse(event: Event, payload: Payload) -> Event:
    """The event about the payload's `pull_request`: its head branch, sha and repository."""
    return event.with_pull_request(pull_request_of(payload["pull_request"], event.repository))


KIND = EventKind(name="pull_request", parse=parse, threads=True, history=True, fork_safe=True)
