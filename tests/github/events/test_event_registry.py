"""The event registry: `parse_event`, `intent.decide` and every event rule read it, and a new
event is one module (README.md, "Extending fixbot"), which
`test_a_new_event_is_one_module` follows for GitHub's `merge_group` event: the module
tests/data/extending/kinds/merge_group.py joins the package, nothing else changes."""

from __future__ import annotations

from typing import Any

import pytest

from fixbot.core.errors import ConfigError
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import OutcomeKind
from fixbot.core.values import OnEscalation, OnSuccess
from fixbot.github.events import kinds
from fixbot.github.events.data import Event, PullRequest
from fixbot.github.events.event import parse_event
from fixbot.github.events.intent import IntentKind, decide
from fixbot.github.events.kinds import registry
from fixbot.github.publish.plan import Plan, PlanInput, make_plan
from tests.fakes.plugin import EXTENDING, AddModule

ENV = GitHubEnv.read({"GITHUB_REPOSITORY": "octo-org/octo-repo", "GITHUB_SHA": "f" * 40})
SHIPPED = {
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "push",
    "schedule",
    "workflow_dispatch",
    "workflow_run",
}


def test_every_event_fixbot_ships_with_is_registered_once() -> None:
    assert set(registry.names()) == SHIPPED
    assert len(set(registry.names())) == len(registry.all_kinds())


def test_the_event_rules_are_the_kinds_own() -> None:
    """Which events GitHub runs without secrets for a fork, keep a pull request's history, use
    its threads, report a failed run, or may follow fixbot's own commit."""
    found = {kind.name: kind for kind in registry.all_kinds()}
    fork_safe = {n for n, k in found.items() if k.fork_safe}
    assert fork_safe == {"pull_request", "pull_request_review", "pull_request_review_comment"}
    assert {n for n, k in found.items() if k.failed_run} == {"workflow_run"}
    assert {n for n, k in found.items() if k.history} == fork_safe | {
        "issue_comment",
        "workflow_run",
    }
    assert {n for n, k in found.items() if k.threads} == fork_safe | {"issue_comment"}
    event = parse_event("push", {"ref": "refs/heads/main"}, ENV)
    own = {n for n, k in found.items() if k.may_follow_own_commit(event)}
    assert own == {"issue_comment", "pull_request_review", "pull_request_review_comment"}
    with_pr = event.model_copy(update={"pull_request": _pull_request()})
    assert found["workflow_run"].may_follow_own_commit(with_pr)
    assert not found["push"].may_follow_own_commit(with_pr)


def _pull_request() -> PullRequest:
    return PullRequest(
        number=2, state="open", head_ref="b", head_sha="a" * 40, head_repo=None, base_ref="main"
    )


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


def test_a_new_event_is_one_module(add_module: AddModule) -> None:
    unknown = parse_event("merge_group", MERGE_GROUP, ENV)
    assert unknown.sha == ENV.sha  # not read from the payload: no kind knows it
    assert "does not handle `merge_group`" in decide(unknown, allow_forks=False).reason
    # The whole change: the module `merge_group.py` in `fixbot/github/events/kinds/`.
    add_module(kinds, EXTENDING / "kinds" / "merge_group.py", registry.all_kinds)
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
    # Its rules came with it: not fork-safe, and a fix opens a pull request (the queue's
    # branch is GitHub's), where a push event's fix would be pushed.
    fork = event.model_copy(update={"head_repo": "someone/octo-repo"})
    assert "holds this repository's token" in decide(fork, allow_forks=True).reason
    queued = event.with_pull_request(_pull_request())
    assert _published(queued).pull_request is not None and not _published(queued).push_branch
    pulled = queued.model_copy(update={"name": "pull_request"})
    assert _published(pulled).push_branch == "b"


def _published(event: Event) -> Plan:
    """The plan for a verified fix on `event` with `on-success: auto`."""
    facts = PlanInput(
        event=event,
        outcome=OutcomeKind.FIXED,
        on_success=OnSuccess.AUTO,
        on_escalation=OnEscalation.PULL_REQUEST,
        patch_only=False,
        has_commits=True,
        best_snapshot=None,
        run_id="7",
    )
    return make_plan(facts)
