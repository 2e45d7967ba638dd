"""The data of a workflow event: `Event` and its parts, and the payload helpers every event
kind's parser uses (`pull_request_of`, `actor_of`, `branch_of`).

Payload shapes: https://docs.github.com/en/webhooks/webhook-events-and-payloads (examples in
the npm package `@octokit/webhooks-examples`). Only the fields fixbot decides on are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel


def _git_safe(value: str) -> str:
    """A ref or sha from the payload that can reach git's argv: no NUL or other control
    character (`subprocess` refuses NUL; git refuses control characters in ref names,
    https://git-scm.com/docs/git-check-ref-format) and valid Unicode (no lone surrogate)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise ValueError(f"{value[:100]!r} holds a control character")
    value.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a lone surrogate
    return value


GitName = Annotated[str, AfterValidator(_git_safe)]


class PullRequest(BaseModel):
    """The pull request an event is about; `head_repo` is None when the fork was deleted."""

    number: int
    state: str
    head_ref: GitName
    head_sha: GitName
    head_repo: str | None
    base_ref: GitName
    author: str | None = None  # None where the payload omits it (workflow_run's pull_requests)
    labels: list[str] | None = None
    draft: bool | None = None


class Actor(BaseModel):
    """Who wrote the comment or review that started the run; `bot` from the user's `type`."""

    login: str
    bot: bool = False


class Comment(BaseModel):
    """The comment (issue_comment) or review (pull_request_review[_comment]) of the event.

    `id` is the REST id of an issue comment (for reactions), 0 for a review; `state` is a
    review's state (`commented`, `changes_requested`, `approved`, ...), None otherwise.
    """

    id: int = 0
    body: str = ""
    author: Actor
    state: str | None = None


class Event(BaseModel):
    """What fixbot needs from the event payload and the `GITHUB_*` variables.

    `branch` and `sha` are what to fix (a PR's head, a pushed branch, a failed run's head);
    `head_repo` is the repository holding `branch` (differs from `repository` for forks).
    """

    name: str  # `GITHUB_EVENT_NAME`, kept as given (an event no kind handles is refused by name)
    action: str | None = None
    repository: str
    default_branch: GitName | None = None
    branch: GitName | None = None
    sha: GitName | None = None
    head_repo: str | None = None
    pull_request: PullRequest | None = None
    run_conclusion: str | None = None  # workflow_run only
    run_id: int | None = None  # workflow_run only: the failed run, its attempt (1-based), actor
    run_attempt: int | None = None
    run_actor: str | None = None
    run_workflow: str | None = None  # workflow_run only: the run's workflow file (`ci.yml`)
    comment_issue: int | None = None  # issue_comment only
    on_pull_request: bool = False  # issue_comment only: the issue is a pull request
    comment: Comment | None = None  # issue_comment, pull_request_review[_comment]
    head_deleted: bool = False  # a pull request whose head repository (a fork) was deleted

    @property
    def fork(self) -> bool:
        """True when the code to fix lives in another repository (a fork)."""
        return self.head_repo is not None and self.head_repo.lower() != self.repository.lower()

    def with_pull_request(self, pr: PullRequest) -> Event:
        """This event, now about pull request `pr`: its head branch, sha and repository."""
        return self.model_copy(
            update={
                "pull_request": pr,
                "branch": pr.head_ref,
                "sha": pr.head_sha,
                "head_repo": pr.head_repo,
                "head_deleted": pr.head_repo is None,
            }
        )


def pull_request_of(raw: Mapping[str, Any], repository: str) -> PullRequest:
    """A `PullRequest` from a payload's (or the REST API's) pull request object."""
    return _pull_request(raw, repository)


def _pull_request(raw: Mapping[str, Any], repository: str) -> PullRequest:
    head, base = raw.get("head") or {}, raw.get("base") or {}
    return PullRequest(
        number=int(raw["number"]),
        state=str(raw.get("state", "open")),
        head_ref=str(head.get("ref", "")),
        head_sha=str(head.get("sha", "")),
        head_repo=_head_repo(head.get("repo") or None, repository),
        base_ref=str(base.get("ref", "")),
        author=(raw.get("user") or {}).get("login"),
        labels=[str(lab.get("name", "")) for lab in raw["labels"]] if "labels" in raw else None,
        draft=raw.get("draft"),
    )


def _head_repo(head_repo: Mapping[str, Any] | None, repository: str) -> str | None:
    """The `owner/name` of a pull request's head repository object; `repository` when it has
    neither name nor URL, None when there is none (its fork was deleted)."""
    if head_repo is None:
        return None
    full = head_repo.get("full_name")
    if not full:  # workflow_run's pull_requests carry repo urls, not names
        full = "/".join(str(head_repo.get("url", "")).rstrip("/").split("/")[-2:])
    return full or repository  # as the payload has it: the model validates its type


def branch_of(ref: str | None) -> str | None:
    """The branch a `refs/heads/...` ref names, None for any other ref (a tag) or none."""
    if ref and ref.startswith("refs/heads/"):
        return ref.removeprefix("refs/heads/")
    return None


def actor_of(user: Mapping[str, Any] | None) -> Actor:
    """The `Actor` of a payload's user object (`ghost` when GitHub sends none)."""
    user = user or {}
    login = str(user.get("login") or "ghost")
    return Actor(login=login, bot=user.get("type") == "Bot" or login.endswith("[bot]"))
