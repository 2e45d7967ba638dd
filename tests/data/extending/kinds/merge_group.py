"""`merge_group`: a merge queue asks for checks on its temporary branch
`gh-readonly-queue/<base>/pr-<number>-<sha>` (GitHub's `merge_group` webhook:
https://docs.github.com/en/webhooks/webhook-events-and-payloads#merge_group).

The dummy event of README.md's "Extending fixbot": this file, dropped into
`fixbot/github/events/kinds/`, is the whole change (tests/github/events/test_event_registry.py).
"""

from __future__ import annotations

from fixbot.core.values import OnSuccess
from fixbot.github.events.data import Event, branch_of
from fixbot.github.events.decision import Intent, Options, refuse
from fixbot.github.events.kinds.base import EventKind, Payload, fix


def parse(event: Event, payload: Payload) -> Event:
    """The merge queue's temporary branch and the commit to test."""
    group = payload["merge_group"]
    return event.model_copy(
        update={"branch": branch_of(group["head_ref"]), "sha": group["head_sha"]}
    )


def decide(kind: EventKind, event: Event, options: Options) -> Intent:
    """Fix when checks are requested; `destroyed` asks nothing."""
    if event.action != "checks_requested":
        return refuse(f"a merge group {event.action}: nothing to fix", quiet=True)
    return fix(kind, event, options)


def publish(_event: Event) -> OnSuccess:
    """The queue's branch is GitHub's, deleted once the group merges or fails: never push
    there, open a pull request instead."""
    return OnSuccess.PULL_REQUEST


KIND = EventKind(name="merge_group", parse=parse, decide=decide, publish=publish)
