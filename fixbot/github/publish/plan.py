"""The publish plan: a pure decision of where a run's result goes.

Rules: a verified fix on a same-repository PR is pushed to its head branch (never
forced); elsewhere it goes to a new `fixbot/<branch>-<run id>` branch and a pull request into
the original branch; nothing is pushed straight to the default branch. An escalation opens a
draft pull request holding the best attempt, or, with nothing worth keeping, puts the report in
the PR's status comment (PR events) or in one `fixbot` issue per branch (other events). A fork
PR only ever gets a comment (with the patch). A run that ended in error (a failed set-up) pushes
nothing and says why in the status comment. `on-success: auto` does what the event's kind says
(`EventKind.publish`: push to a pull request's head, else a pull request). `on-success: suggest`
pushes nothing: the fix becomes one review with suggestion blocks on the pull request
(`suggest_pr`); without a pull request a pull request is opened instead. A fix that changed the
tests (verified against the start commit's tests and with its change: `test_change`) is never
pushed silently: where it would be pushed it becomes suggestions on the pull request, or a pull
request for a human.

When the push to the branch is rejected because a human pushed meanwhile, the fix is
replayed onto the new tip and pushed only if the check passes again there; a refused push, a
conflicting replay, a check failing after the replay or a branch that moved again gets the
rescue (`rescue_plan`): the verified commits on a new branch with a pull request.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from fixbot.core.models import OutcomeKind
from fixbot.core.values import OnEscalation, OnSuccess
from fixbot.github.events.data import Event
from fixbot.github.events.gates import gate_default_branch_push
from fixbot.github.events.kinds import registry
from fixbot.github.events.kinds.base import push_to_pull_request

LABEL = "fixbot"
SHORT_SHA = 7  # characters of a sha in a note (git's default abbreviation)


class Source(StrEnum):
    """What is published: the fixed HEAD, or the best attempt's snapshot commit."""

    HEAD = "head"
    SNAPSHOT = "snapshot"


class PullRequestPlan(BaseModel):
    """A pull request to open from `head` into `base`."""

    base: str
    head: str
    draft: bool = False


class Plan(BaseModel):
    """What to publish. `source` is HEAD (the fixed HEAD) or SNAPSHOT (the best attempt).

    `push_branch` is an existing branch to fast-forward; `new_branch` a branch to create;
    `comment_pr` the PR whose status comment is written (`comment_create` False: only edit an
    existing one); `issue_branch` the branch whose escalation issue is created or updated;
    `patch` asks for the diff in the comment (forks); `suggest_pr` the pull request that gets
    the fix as a review with suggestions (nothing pushed).
    """

    source: Source | None = None
    push_branch: str | None = None
    new_branch: str | None = None
    pull_request: PullRequestPlan | None = None
    comment_pr: int | None = None
    comment_create: bool = True
    issue_branch: str | None = None
    patch: bool = False
    suggest_pr: int | None = None
    notes: list[str] = Field(default_factory=list)


class PlanInput(BaseModel):
    """The facts the plan is decided from."""

    event: Event
    outcome: OutcomeKind
    on_success: OnSuccess
    on_escalation: OnEscalation
    patch_only: bool
    has_commits: bool  # HEAD is ahead of the start sha
    best_snapshot: str | None
    run_id: str
    # the published fix changed test files, test configuration or the check's scripts
    # (`fixbot.core.models.Attempt.pinned`): a human reviews it before it lands
    test_change: bool = False


def fixbot_branch(branch: str, run_id: str) -> str:
    """The branch fixbot publishes to: `fixbot/<branch>-<run id>`."""
    return f"fixbot/{branch}-{run_id}"


def make_plan(facts: PlanInput) -> Plan:
    """Decide where the result of a finished run goes (see the module docstring)."""
    if facts.outcome is OutcomeKind.REFUSED:
        return Plan()
    pr = facts.event.pull_request
    base = Plan(comment_pr=pr.number if pr else None)
    if facts.outcome is OutcomeKind.ERROR:  # a run that ended in error (a failed set-up): say so
        return base
    if facts.outcome is OutcomeKind.FIXED and facts.has_commits:
        return _fixed(facts, base)
    if facts.outcome is OutcomeKind.ESCALATED:
        return _escalated(facts, base)
    return base.model_copy(update={"comment_create": False})


def _fixed(facts: PlanInput, plan: Plan) -> Plan:
    """The plan for a verified fix: a patch, nothing, a suggestion, a push or a pull request."""
    event, branch = facts.event, facts.event.branch or ""
    if facts.patch_only:
        return plan.model_copy(
            update={
                "patch": True,
                "notes": ["the fix is offered as a patch: fixbot never pushes to a fork"],
            }
        )
    mode = facts.on_success
    if mode is OnSuccess.NONE:
        return plan.model_copy(update={"notes": ["`on-success: none`: the fix was not published"]})
    if mode is OnSuccess.AUTO:
        kind = registry.find(event.name)
        mode = (kind.publish if kind else push_to_pull_request)(event)
    mode, plan = _downgraded(facts, mode, plan)
    if mode is OnSuccess.SUGGEST and event.pull_request is not None:
        return plan.model_copy(update={"suggest_pr": event.pull_request.number})
    if mode is OnSuccess.PUSH:
        return plan.model_copy(update={"source": Source.HEAD, "push_branch": branch})
    head = fixbot_branch(branch, facts.run_id)
    return plan.model_copy(
        update={
            "source": Source.HEAD,
            "new_branch": head,
            "pull_request": PullRequestPlan(base=branch, head=head),
        }
    )


def _downgraded(facts: PlanInput, mode: OnSuccess, plan: Plan) -> tuple[OnSuccess, Plan]:
    """`mode` made safe for this fix, with a note saying why it changed: a push that changes
    the tests becomes a suggestion, a suggestion with no pull request a pull request, and a
    push to the default branch a pull request."""
    event, branch = facts.event, facts.event.branch or ""
    if mode is OnSuccess.PUSH and facts.test_change:
        note = "the fix changes the tests: it is offered for review, not pushed"
        plan = plan.model_copy(update={"notes": [note]})
        mode = OnSuccess.SUGGEST
    if mode is OnSuccess.SUGGEST and event.pull_request is None:
        note = "`on-success: suggest` needs a pull request: a pull request is opened instead"
        plan = plan.model_copy(update={"notes": [*plan.notes, note]})
        mode = OnSuccess.PULL_REQUEST
    if mode is OnSuccess.PUSH and gate_default_branch_push(branch, event.default_branch):
        note = f"`{branch}` is the default branch: a pull request is opened instead of a push"
        plan = plan.model_copy(update={"notes": [note]})
        mode = OnSuccess.PULL_REQUEST
    return mode, plan


def _escalated(facts: PlanInput, plan: Plan) -> Plan:
    branch = facts.event.branch or ""
    mode = facts.on_escalation
    if mode is OnEscalation.NONE:
        return plan.model_copy(
            update={
                "comment_create": False,
                "notes": ["`on-escalation: none`: the report is only in this summary"],
            }
        )
    if mode is OnEscalation.PULL_REQUEST and facts.best_snapshot and not facts.patch_only:
        head = fixbot_branch(branch, facts.run_id)
        pull = PullRequestPlan(base=branch, head=head, draft=True)
        return plan.model_copy(
            update={"source": Source.SNAPSHOT, "new_branch": head, "pull_request": pull}
        )
    if plan.comment_pr is not None:
        return plan
    return plan.model_copy(update={"issue_branch": branch})


def rescue_plan(plan: Plan, run_id: str) -> Plan:
    """The plan after a push to `plan.push_branch` failed: keep the verified commits on a new
    `fixbot/<branch>-<run id>` branch with a pull request into the branch, so nothing is lost."""
    branch = plan.push_branch or ""
    head = fixbot_branch(branch, run_id)
    return plan.model_copy(
        update={
            "push_branch": None,
            "new_branch": head,
            "pull_request": PullRequestPlan(base=branch, head=head),
        }
    )


def moved_note(branch: str, tip: str, why: str | None) -> str:
    """The note for a push rejected because `branch` moved to `tip` while fixbot ran: the fix
    was replayed and pushed (`why` None), or `why` it was not (then `rescue_note` follows)."""
    moved = f"`{branch}` moved while fixbot ran (to {tip[:SHORT_SHA]})"
    if why is None:
        return f"{moved}; the fix was replayed onto it and the check passed again"
    return f"{moved}; {why}"


def rescue_note(plan: Plan, why: str) -> str:
    """The note for the rescue `plan` (see `rescue_plan`): `why` the push to the branch did not
    land, and where the verified fix went."""
    base = plan.pull_request.base if plan.pull_request else ""
    return (
        f"{why}: the verified fix went to `{plan.new_branch}` with a pull request into "
        f"`{base}` instead, so nothing is lost"
    )
