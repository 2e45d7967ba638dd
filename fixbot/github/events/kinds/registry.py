"""Every workflow event fixbot handles.

A new event is a module next to this one exporting a `base.EventKind`, and one entry here.
"""

from __future__ import annotations

from fixbot.github.events.kinds import (
    issue_comment,
    pull_request,
    push,
    review,
    schedule,
    workflow_dispatch,
    workflow_run,
)
from fixbot.github.events.kinds.base import EventKind

KINDS: list[EventKind] = [
    pull_request.KIND,
    push.KIND,
    workflow_dispatch.KIND,
    schedule.KIND,
    workflow_run.KIND,
    review.REVIEW,
    review.REVIEW_COMMENT,
    issue_comment.KIND,
]


def find(name: str) -> EventKind | None:
    """The event kind called `name` (`GITHUB_EVENT_NAME`), None when fixbot has none."""
    return next((kind for kind in KINDS if kind.name == name), None)


def names() -> list[str]:
    """The names of the events fixbot handles, in the registry's order."""
    return [kind.name for kind in KINDS]
