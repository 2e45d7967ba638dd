"""The event that started the workflow, parsed from `GITHUB_EVENT_PATH` into an `Event`.

Payload shapes: https://docs.github.com/en/webhooks/webhook-events-and-payloads (examples in
the npm package `@octokit/webhooks-examples`). Only the fields fixbot decides on are kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel

from fixbot.core.errors import ConfigError


def _git_safe(value: str) -> str:
    """A ref or sha from the payload that can reach git's argv: no NUL or other control
    character (`subprocess` refuses NUL; git refuses control characters in ref names,
    https://git-scm.com/docs/git-check-ref-format) and valid Unicode (no lone surrogate)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise ValueError(f"{value[:100]!r} holds a control character")
    value.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a lone surrogate
    return value


GitName = Annotated[str, AfterValidator(_git_safe)]


class EventName(StrEnum):
    """The workflow events fixbot handles (`GITHUB_EVENT_NAME`)."""

    PULL_REQUEST = "pull_request"
    PUSH = "push"
    WORKFLOW_DISPATCH = "workflow_dispatch"
    SCHEDULE = "schedule"
    WORKFLOW_RUN = "workflow_run"
    PULL_REQUEST_REVIEW = "pull_request_review"
    PULL_REQUEST_REVIEW_COMMENT = "pull_request_review_comment"
    ISSUE_COMMENT = "issue_comment"


SUPPORTED = tuple(EventName)
# Events whose payload carries the pull request in `pull_request`.
PULL_REQUEST_EVENTS = (
    EventName.PULL_REQUEST,
    EventName.PULL_REQUEST_REVIEW,
    EventName.PULL_REQUEST_REVIEW_COMMENT,
)


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

    name: str  # an `EventName` value when supported; kept as given so a refusal can name it
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
    head_repo = head.get("repo") or None
    full = head_repo.get("full_name") if head_repo else None
    if head_repo and not full:  # workflow_run's pull_requests carry repo urls, not names
        full = "/".join(str(head_repo.get("url", "")).rstrip("/").split("/")[-2:])
    return PullRequest(
        number=int(raw["number"]),
        state=str(raw.get("state", "open")),
        head_ref=str(head.get("ref", "")),
        head_sha=str(head.get("sha", "")),
        head_repo=full or (None if head_repo is None else repository),
        base_ref=str(base.get("ref", "")),
        author=(raw.get("user") or {}).get("login"),
        labels=[str(lab.get("name", "")) for lab in raw["labels"]] if "labels" in raw else None,
        draft=raw.get("draft"),
    )


def _branch_of(ref: str | None) -> str | None:
    if ref and ref.startswith("refs/heads/"):
        return ref.removeprefix("refs/heads/")
    return None


def parse_event(name: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Event:
    """Build the `Event` of workflow event `name` from its webhook `payload`.

    `env` supplies `GITHUB_REPOSITORY`, `GITHUB_REF` and `GITHUB_SHA` where the payload has
    none (schedule). Raises `ConfigError` when the payload lacks what the event must carry.
    """
    try:
        event = _parse(name, payload, env)
        # `model_copy` does not validate: check every field the payload filled in once more
        return Event.model_validate(dict(event))
    except KeyError as exc:
        raise ConfigError(
            [f"the {name} event payload lacks {_short(exc)}; is GITHUB_EVENT_PATH right?"]
        ) from exc
    except (TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise ConfigError(
            [
                f"the {name} event payload is not shaped as GitHub sends it "
                f"({type(exc).__name__}: {_short(exc)}); is GITHUB_EVENT_PATH right?"
            ]
        ) from exc


def _short(exc: BaseException, limit: int = 300) -> str:
    """`exc`'s message cut to `limit` characters (a hostile payload may be large)."""
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "..."


def _parse(name: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Event:
    repo_raw = payload.get("repository") or {}
    repository = str(repo_raw.get("full_name") or env.get("GITHUB_REPOSITORY", ""))
    if not repository:
        raise ConfigError(["no repository in the event payload or GITHUB_REPOSITORY"])
    if len(repository.split("/")) != 2 or not all(repository.split("/")):
        raise ValueError(f"the repository {repository[:200]!r} is not `owner/name`")
    base = Event(
        name=name,
        action=payload.get("action"),
        repository=repository,
        default_branch=repo_raw.get("default_branch"),
        branch=_branch_of(payload.get("ref") or env.get("GITHUB_REF")),
        sha=payload.get("after") or env.get("GITHUB_SHA") or None,
        head_repo=repository,
    )
    return _specialize(base, payload, repository)


def _actor(user: Mapping[str, Any] | None) -> Actor:
    user = user or {}
    login = str(user.get("login") or "ghost")
    return Actor(login=login, bot=user.get("type") == "Bot" or login.endswith("[bot]"))


def _specialize(base: Event, payload: Mapping[str, Any], repository: str) -> Event:
    if base.name in PULL_REQUEST_EVENTS:
        event = base.with_pull_request(_pull_request(payload["pull_request"], repository))
        if base.name == EventName.PULL_REQUEST_REVIEW:
            review = payload["review"]
            comment = Comment(
                body=str(review.get("body") or ""),
                author=_actor(review.get("user")),
                state=str(review.get("state") or "").lower(),
            )
            return event.model_copy(update={"comment": comment})
        if base.name == EventName.PULL_REQUEST_REVIEW_COMMENT:
            raw = payload["comment"]
            comment = Comment(body=str(raw.get("body") or ""), author=_actor(raw.get("user")))
            return event.model_copy(update={"comment": comment})
        return event
    if base.name == EventName.WORKFLOW_RUN:
        return _workflow_run(base, payload["workflow_run"], repository)
    if base.name == EventName.ISSUE_COMMENT:
        issue, raw = payload["issue"], payload["comment"]
        comment = Comment(
            id=int(raw["id"]), body=str(raw.get("body") or ""), author=_actor(raw.get("user"))
        )
        return base.model_copy(
            update={
                "comment_issue": int(issue["number"]),
                "on_pull_request": bool(issue.get("pull_request")),
                "comment": comment,
                "branch": None,
                "sha": None,
            }
        )
    return base


def _workflow_run(base: Event, run: Mapping[str, Any], repository: str) -> Event:
    head_repo = (run.get("head_repository") or {}).get("full_name") or repository
    pulls = [_pull_request(raw, repository) for raw in run.get("pull_requests") or []]
    return base.model_copy(
        update={
            "branch": run["head_branch"],
            "sha": run["head_sha"],
            "head_repo": head_repo,
            "run_conclusion": run.get("conclusion"),
            "run_id": run.get("id"),
            "run_attempt": run.get("run_attempt"),
            "run_actor": (run.get("triggering_actor") or run.get("actor") or {}).get("login"),
            "run_workflow": str(run.get("path") or "").split("@")[0].rsplit("/", 1)[-1] or None,
            "pull_request": pulls[0] if pulls and head_repo == repository else None,
        }
    )


def load_event(env: Mapping[str, str]) -> Event:
    """Read `GITHUB_EVENT_NAME` and the JSON at `GITHUB_EVENT_PATH`; `ConfigError` if absent."""
    name = env.get("GITHUB_EVENT_NAME", "")
    path = env.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        raise ConfigError(
            [
                "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: run `fixbot action` "
                "in GitHub Actions, or `fixbot run` locally"
            ]
        )
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad UTF-8 or JSON
        raise ConfigError(
            [f"GITHUB_EVENT_PATH {path}: cannot read the event payload ({_short(exc)})"]
        ) from exc
    if not isinstance(payload, dict):
        raise ConfigError([f"GITHUB_EVENT_PATH {path}: the payload is not a JSON object"])
    return parse_event(name, payload, env)
