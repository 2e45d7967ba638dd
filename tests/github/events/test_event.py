"""Real webhook payloads (tests/data/events) parsed into `Event`; the gates and plan over them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import OutcomeKind
from fixbot.core.settings import ConfigError
from fixbot.core.values import OnEscalation, OnSuccess
from fixbot.github.events.data import Event
from fixbot.github.events.decision import Options
from fixbot.github.events.event import load_event, parse_event
from fixbot.github.events.gates import BOT_EMAIL, Verdict, gate_head
from fixbot.github.events.intent import IntentKind, decide
from fixbot.github.events.kinds import registry
from fixbot.github.publish.plan import PlanInput, make_plan
from tests.fakes.action_env import load_event as payload

RAW = {
    "GITHUB_REPOSITORY": "Codertocat/Hello-World",
    "GITHUB_REF": "refs/heads/main",
    "GITHUB_SHA": "abc",
}
ENV = GitHubEnv.read(RAW)


def gate(event: Event, allow_forks: bool) -> Verdict:
    """The gates `event`'s kind passes it through (its fork rule included)."""
    kind = registry.find(event.name)
    assert kind is not None
    return kind.gate(event, Options(allow_forks=allow_forks))


def test_pull_request_payload_gives_the_head_branch_and_sha() -> None:
    event = parse_event("pull_request", payload("pull_request.opened"), ENV)
    assert event.pull_request is not None
    assert (event.branch, event.sha) == ("changes", "ec26c3e57ca3a959ca5aad62de7213c562f8c821")
    assert event.pull_request.base_ref == "master"
    assert event.pull_request.number == 2
    assert not event.fork


def test_fork_is_detected_from_the_head_repository() -> None:
    raw = payload("pull_request.opened")
    raw["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World"
    event = parse_event("pull_request", raw, ENV)
    assert event.fork
    assert not gate(event, False).allowed
    allowed = gate(event, True)
    assert allowed.allowed and allowed.patch_only


@pytest.mark.parametrize("name", ["issue_comment", "workflow_run"])
def test_a_forks_code_never_runs_in_a_job_holding_the_secrets(name: str) -> None:
    """`/fixbot retry` (issue_comment) or a `workflow_run` on a fork's pull request
    runs with the base repository's token and secrets: refused even with `allow-forks`."""
    raw = payload("pull_request.opened")
    raw["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World"
    fork = parse_event("pull_request", raw, ENV)
    event = fork.model_copy(update={"name": name, "run_conclusion": "failure"})
    verdict = gate(event, True)
    assert not verdict.allowed
    assert f"a `{name}` run holds this repository's token and secrets" in verdict.reason
    assert "`pull_request` event" in verdict.reason  # what to do instead
    for safe in ("pull_request_review", "pull_request_review_comment"):
        assert gate(fork.model_copy(update={"name": safe}), True).allowed


def test_push_to_a_branch_and_to_a_tag() -> None:
    event = parse_event("push", payload("push"), ENV)
    assert (event.branch, event.default_branch) == ("master", "master")
    tag = payload("push")
    tag["ref"] = "refs/tags/v1"
    refused = gate(parse_event("push", tag, ENV), False)
    assert not refused.allowed and "tag" in refused.reason


def test_workflow_run_fixes_the_runs_head_and_only_failed_runs() -> None:
    raw = payload("workflow_run.completed")
    event = parse_event("workflow_run", raw, ENV)
    assert event.sha == raw["workflow_run"]["head_sha"]
    assert "not failed" in decide(event, allow_forks=False).reason
    raw["workflow_run"]["conclusion"] = "failure"
    raw["workflow_run"]["head_repository"]["full_name"] = raw["repository"]["full_name"]
    failed = parse_event("workflow_run", raw, ENV)
    assert decide(failed, allow_forks=False).kind is IntentKind.FIX
    assert failed.pull_request is not None and failed.pull_request.number == 2


def test_closed_pull_requests_are_refused() -> None:
    closed = parse_event("pull_request", payload("pull_request.closed"), ENV)
    assert "closed" in gate(closed, False).reason


def test_a_deleted_fork_is_not_taken_for_the_same_repository() -> None:
    raw = payload("pull_request.opened")
    raw["pull_request"]["head"]["repo"] = None  # GitHub sends null once the fork is deleted
    event = parse_event("pull_request", raw, ENV)
    assert event.head_deleted and not event.fork
    for allow_forks in (False, True):
        verdict = gate(event, allow_forks)
        assert not verdict.allowed and "was deleted" in verdict.reason


def test_dispatch_and_schedule_take_the_branch_from_the_payload_or_env() -> None:
    dispatch = parse_event("workflow_dispatch", payload("workflow_dispatch"), ENV)
    assert dispatch.branch == "main" and dispatch.repository == "octo-org/octo-repo"
    schedule = parse_event("schedule", {"schedule": "0 3 * * *"}, ENV)
    assert (schedule.branch, schedule.repository, schedule.sha) == (
        "main",
        "Codertocat/Hello-World",
        "abc",
    )


def test_load_event_reports_a_missing_payload(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="GITHUB_EVENT_PATH"):
        load_event(
            GitHubEnv.read(
                {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(tmp_path / "none.json")}
            )
        )
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"pull_request": {}}), encoding="utf-8")
    with pytest.raises(ConfigError, match="lacks"):
        load_event(
            GitHubEnv.read(
                {**RAW, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(path)}
            )
        )


def test_only_fixbots_own_commits_are_refused() -> None:
    assert not gate_head(BOT_EMAIL, "fixbot: remove unused import").allowed
    assert gate_head(BOT_EMAIL, "Update dependencies").allowed  # another action's commit
    assert gate_head("dev@example.com", "fixbot: looks like fixbot").allowed


def _plan(name: str, raw: dict[str, object], outcome: OutcomeKind, **kw: object) -> PlanInput:
    values: dict[str, object] = {
        "event": parse_event(name, raw, ENV),
        "outcome": outcome,
        "on_success": OnSuccess.AUTO,
        "on_escalation": OnEscalation.PULL_REQUEST,
        "patch_only": False,
        "has_commits": True,
        "best_snapshot": None,
        "run_id": "9",
    }
    values.update(kw)
    return PlanInput.model_validate(values)


def test_fixed_pull_request_pushes_to_its_head_branch() -> None:
    plan = make_plan(_plan("pull_request", payload("pull_request.opened"), OutcomeKind.FIXED))
    assert (plan.push_branch, plan.new_branch, plan.pull_request, plan.comment_pr) == (
        "changes",
        None,
        None,
        2,
    )


def test_fixed_push_opens_a_pull_request_and_never_pushes_to_the_default_branch() -> None:
    auto = make_plan(_plan("push", payload("push"), OutcomeKind.FIXED))
    assert auto.pull_request is not None
    assert (auto.new_branch, auto.pull_request.base, auto.push_branch) == (
        "fixbot/master-9",
        "master",
        None,
    )
    forced = make_plan(_plan("push", payload("push"), OutcomeKind.FIXED, on_success=OnSuccess.PUSH))
    assert forced.push_branch is None and forced.new_branch == "fixbot/master-9"
    assert "default branch" in forced.notes[0]


def test_escalation_plans() -> None:
    pr = payload("pull_request.opened")
    draft = make_plan(_plan("pull_request", pr, OutcomeKind.ESCALATED, best_snapshot="f" * 40))
    assert (
        draft.source == "snapshot" and draft.pull_request is not None and draft.pull_request.draft
    )
    assert draft.push_branch is None
    bare = make_plan(_plan("pull_request", pr, OutcomeKind.ESCALATED))
    assert (bare.new_branch, bare.comment_pr, bare.issue_branch) == (None, 2, None)
    issue = make_plan(_plan("push", payload("push"), OutcomeKind.ESCALATED))
    assert (issue.issue_branch, issue.comment_pr, issue.new_branch) == ("master", None, None)


def test_fork_fix_is_only_a_patch_and_passed_only_edits_an_existing_comment() -> None:
    pr = payload("pull_request.opened")
    fork = make_plan(_plan("pull_request", pr, OutcomeKind.FIXED, patch_only=True))
    assert fork.patch and fork.push_branch is None and fork.new_branch is None
    passed = make_plan(_plan("pull_request", pr, OutcomeKind.PASSED, has_commits=False))
    assert passed.comment_pr == 2 and not passed.comment_create and passed.source is None


def test_an_error_outcome_pushes_nothing_and_only_comments() -> None:
    pr = payload("pull_request.opened")
    plan = make_plan(_plan("pull_request", pr, OutcomeKind.ERROR, best_snapshot="f" * 40))
    assert plan.comment_pr == 2 and plan.comment_create
    assert (plan.source, plan.push_branch, plan.new_branch, plan.pull_request) == (None,) * 4
    assert make_plan(_plan("push", payload("push"), OutcomeKind.ERROR)) == make_plan(
        _plan("push", payload("push"), OutcomeKind.REFUSED)
    )


def test_a_fix_that_changes_the_tests_is_never_pushed_silently() -> None:
    """Verified against the start commit's tests and with its change, a fix that changed the
    tests goes to a human: suggestions on the pull request, or a pull request of its own."""
    on_pr = make_plan(
        _plan("pull_request", payload("pull_request.opened"), OutcomeKind.FIXED, test_change=True)
    )
    assert on_pr.push_branch is None and on_pr.suggest_pr == 2
    assert "changes the tests" in on_pr.notes[0]
    forced = _plan(
        "workflow_dispatch", {"ref": "refs/heads/dev"}, OutcomeKind.FIXED, test_change=True
    )
    plan = make_plan(forced.model_copy(update={"on_success": OnSuccess.PUSH}))
    assert plan.push_branch is None and plan.pull_request is not None
    untouched = make_plan(_plan("pull_request", payload("pull_request.opened"), OutcomeKind.FIXED))
    assert untouched.push_branch == "changes"


def test_without_a_uid_split_only_collaborators_code_runs() -> None:
    """The runner mode without passwordless sudo: the commands share fixbot's uid, so a fork's
    code and the code of an author without write permission are refused, `allow-forks` or not."""
    from fixbot.github.events.gates import gate_shared_uid
    from fixbot.github.events.permission import Level

    own = parse_event("pull_request", payload("pull_request.opened"), ENV)
    assert gate_shared_uid(own, "alice", Level.WRITE).allowed
    assert gate_shared_uid(own, "alice", Level.ADMIN).allowed
    for weak in (Level.NONE, Level.READ, Level.TRIAGE):
        refused = gate_shared_uid(own, "mallory", weak)
        assert not refused.allowed and "mallory" in refused.reason
    raw = payload("pull_request.opened")
    raw["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World"
    fork = parse_event("pull_request", raw, ENV)
    assert not gate_shared_uid(fork, "alice", Level.ADMIN).allowed  # a fork: never
    push = parse_event("push", payload("push"), ENV)
    assert gate_shared_uid(push, None, None).allowed  # a push: its author could write
