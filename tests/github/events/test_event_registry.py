"""The event registry: `parse_event` and `intent.decide` read it, and a new event is one module
and one registry entry (README.md, "Extending fixbot"), which
`test_a_new_event_is_one_module_and_one_registry_entry` follows step by step for GitHub's
`merge_group` event."""

from __future__ import annotations

from typing import Any

import pytest

from fixbot.core.errors import ConfigError
from fixbot.github.events.data import Event, EventName, branch_of
from fixbot.github.events.decision import Intent, Options, refuse
from fixbot.github.events.event import parse_event
from fixbot.github.events.intent import IntentKind, decide
from fixbot.github.events.kinds import registry
from fixbot.github.events.kinds.base import EventKind, Payload, fix

ENV = {"GITHUB_REPOSITORY": "octo-org/octo-repo", "GITHUB_SHA": "f" * 40}


def test_every_event_fixbot_ships_with_is_registered_once() -> None:
    assert sorted(registry.names()) == sorted(EventName)
    assert len(set(registry.names())) == len(registry.KINDS)


def test_an_event_no_kind_handles_is_refused_naming_the_ones_handled() -> None:
    event = parse_event("release", {"action": "published"}, ENV)
    intent = decide(event, allow_forks=False)
    assert intent.kind is IntentKind.REFUSE
    assert intent.reason.startswith("fixbot does not handle `release` events; trigger it on ")
    assert all(name in intent.reason for name in registry.names())


# GitHub's `merge_group` webhook, `checks_requested` (the fields GitHub documents as required:
# https://docs.github.com/en/webhooks/webhook-events-and-payloads#merge_group and the schema
# `merge group checks requested event` of @octokit/webhooks). The merge queue tests the head of
# a temporary branch `gh-readonly-queue/<base>/pr-<number>-<sha>`.
HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
MERGE_GROUP: dict[str, Any] = {
    "action": "checks_requested",
    "merge_group": {
        "head_sha": HEAD,
        "head_ref": f"refs/heads/gh-readonly-queue/main/pr-2-{'a' * 40}",
        "base_sha": "a" * 40,
        "base_ref": "refs/heads/main",
        "head_commit": {
            "id": HEAD,
            "tree_id": "b" * 40,
            "message": "Merge pull request #2",
            "timestamp": "2024-01-01T00:00:00Z",
            "author": {"name": "Monalisa Octocat", "email": "mona@github.com"},
            "committer": {"name": "GitHub", "email": "noreply@github.com"},
        },
    },
    "repository": {"full_name": "octo-org/octo-repo", "default_branch": "main"},
    "sender": {"login": "octocat", "type": "User"},
}


# Step 1 of "Extending fixbot": a module exporting one `EventKind` (here inline; in the package
# it is `fixbot/github/events/kinds/merge_group.py`).
def parse_merge_group(event: Event, payload: Payload) -> Event:
    """The merge queue's temporary branch and the commit to test."""
    group = payload["merge_group"]
    return event.model_copy(
        update={"branch": branch_of(group["head_ref"]), "sha": group["head_sha"]}
    )


def decide_merge_group(event: Event, options: Options) -> Intent:
    """Fix when checks are requested; `destroyed` asks nothing."""
    if event.action != "checks_requested":
        return refuse(f"a merge group {event.action}: nothing to fix", quiet=True)
    return fix(event, options)


MERGE_GROUP_KIND = EventKind(name="merge_group", parse=parse_merge_group, decide=decide_merge_group)


def test_a_new_event_is_one_module_and_one_registry_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unknown = parse_event("merge_group", MERGE_GROUP, ENV)
    assert unknown.sha == ENV["GITHUB_SHA"]  # not read from the payload: no kind knows it
    assert "does not handle `merge_group`" in decide(unknown, allow_forks=False).reason
    # Step 2: one entry in `registry.KINDS`.
    monkeypatch.setattr(registry, "KINDS", [*registry.KINDS, MERGE_GROUP_KIND])
    event = parse_event("merge_group", MERGE_GROUP, ENV)
    assert (event.branch, event.sha) == (f"gh-readonly-queue/main/pr-2-{'a' * 40}", HEAD)
    assert event.repository == "octo-org/octo-repo" and not event.fork
    assert decide(event, allow_forks=False).kind is IntentKind.FIX
    destroyed = parse_event("merge_group", {**MERGE_GROUP, "action": "destroyed"}, ENV)
    assert decide(destroyed, allow_forks=False).quiet
    assert "merge_group" in registry.names()
    missing = {key: value for key, value in MERGE_GROUP.items() if key != "merge_group"}
    with pytest.raises(ConfigError, match="lacks 'merge_group'"):
        parse_event("merge_group", missing, ENV)
