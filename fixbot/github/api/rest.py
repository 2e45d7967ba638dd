"""The GitHub REST adapter (PyGithub): pull requests, the status comment, escalation issues.

Base URL from `GITHUB_API_URL` (GitHub Enterprise Server and local test servers work). 5xx
answers, 429 and secondary rate limits are retried with exponential backoff by PyGithub's
`GithubRetry` (a urllib3 `Retry`), which honours `Retry-After` and, for the primary rate limit,
`x-ratelimit-reset` (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
401/403/404 become `GitHubError` naming the permission the job needs.

Routes called (checked against @octokit/openapi in tests/test_github_routes.py):
POST /repos/{owner}/{repo}/pulls, POST /repos/{owner}/{repo}/issues/{issue_number}/labels,
GET|POST /repos/{owner}/{repo}/issues/{issue_number}/comments,
PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}, GET|POST /repos/{owner}/{repo}/issues,
PATCH /repos/{owner}/{repo}/issues/{issue_number}, GET /repos/{owner}/{repo}/pulls/{pull_number},
POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions, GET /user,
GET /repos/{owner}/{repo}/collaborators/{username}/permission,
GET /repos/{owner}/{repo}/actions/runs/{run_id},
GET /repos/{owner}/{repo}/pulls/{pull_number}/files,
POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews.
"""

from __future__ import annotations

import logging
import re
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Repository import Repository
from urllib3 import Retry
from urllib3.connectionpool import ConnectionPool
from urllib3.response import HTTPResponse

from fixbot.core.errors import GitHubError
from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.events.permission import Level, level_of
from fixbot.github.publish.plan import LABEL, PullRequestPlan
from fixbot.github.publish.render import STATUS_MARKER, issue_marker
from fixbot.security.leakscan import refuse_if_text_leaking

CONTENTS = "contents: write"
PULLS = "pull-requests: write"
ISSUES = "issues: write"
READ_PULLS = "pull-requests: read"
ACTIONS = "actions: read"
REACTIONS = ("eyes", "rocket", "confused")
RETRIES_SPENT = re.compile(r"too many (\d{3}) error responses")  # urllib3's ResponseError
CREATE_PR_SETTING = (
    'enable "Allow GitHub Actions to create and approve pull requests" under the repository\'s '
    "(or organization's) Settings > Actions > General > Workflow permissions, or pass a GitHub "
    "App token / PAT as `github-token`"
)


def default_retry(
    backoff_factor: float = 1.0, secondary_rate_wait: float = 60.0, total: int = 5
) -> Retry:
    """Retry policy: `total` retries of 429/5xx/rate-limited 403 on GET, POST and PATCH.

    Waits `backoff_factor * 2**n` seconds, or `Retry-After`, or until `x-ratelimit-reset`
    (capped at 600 s); secondary limits without `Retry-After` wait `secondary_rate_wait` s.
    Once the retries are spent requests raises `RetryError` ("too many 403 error
    responses"): `mapped` turns it into a `GitHubError` (see `explain_request`).
    """
    return CappedRetry(
        total=total,
        backoff_factor=backoff_factor,
        secondary_rate_wait=secondary_rate_wait,
        max_rate_limit_wait=600,
        status_forcelist=[429, *range(500, 600)],
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"},
    )


RETRY_LOGGER = "github.GithubRetry"  # logs every 403 at INFO ("Request GET /user failed ...")


@contextmanager
def quiet_logger(name: str) -> Iterator[None]:
    """Silence logger `name` below WARNING for the block: an expected answer (the 403 of the
    identity probe with an Actions token) is not printed as a failure."""
    logger = logging.getLogger(name)
    saved = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(saved)


class CappedRetry(GithubRetry):
    """`GithubRetry` that gives up at once when `Retry-After` asks for more than
    `max_rate_limit_wait` seconds: urllib3 would sleep as long as the header says, uncapped.

    Raises PyGithub's `RateLimitExceededExceedsMaxWait` (a `GithubException`) naming the wait.
    """

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: HTTPResponse | None = None,  # type: ignore[override]
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        wait = self.get_retry_after(response) if response is not None else None
        cap = self.max_rate_limit_wait
        if response is not None and wait is not None and cap is not None and wait > cap:
            limit = "secondary rate limit: " if response.status in (403, 429) else ""
            message = (
                f"{limit}GitHub asks to wait {wait:.0f} s (Retry-After), "
                f"more than fixbot waits ({cap:.0f} s)"
            )
            raise RateLimitExceededExceedsMaxWait(
                response.status, {"message": message}, dict(response.headers), wait=wait
            )
        return super().increment(method, url, response, error, _pool, _stacktrace)


def is_rate_limit(status: int | None, message: str) -> bool:
    """True for GitHub's primary or secondary rate limit answer (403 or 429).

    Source: https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api
    ("exceeding a secondary rate limit ... 403 or 429 ... an error message").
    """
    return status == 429 or (status == 403 and "rate limit" in message.lower())


def explain_status(status: int | None, message: str, action: str, permission: str) -> str:
    """The message for GitHub's HTTP `status` and its `message` to `action` (REST or GraphQL)."""
    if status == 401:
        return (
            f"GitHub refused the token (401) to {action}: check the `github-token` input "
            "(expired or revoked?)"
        )
    if is_rate_limit(status, message):
        return (
            f"GitHub's rate limit stopped fixbot from trying to {action} ({status}: {message}): "
            "re-run the job later (see https://docs.github.com/en/rest/using-the-rest-api/"
            "rate-limits-for-the-rest-api)"
        )
    if status == 403 and "create or approve pull requests" in message:
        return f"GitHub Actions may not {action} here (403: {message}): {CREATE_PR_SETTING}"
    if status in (403, 404):
        return (
            f"GitHub answered {status} to {action} ({message}): the job needs "
            f"`permissions: {permission}` (and the token must reach this repository)"
        )
    return f"GitHub answered {status} to {action}: {message}; re-run the job, or report a bug"


def explain_request(
    exc: requests.RequestException, action: str, permission: str, variable: str
) -> str:
    """The message for a request that failed for good below HTTP: retries spent on the same
    status (urllib3's "too many 502 error responses"), or GitHub not reached at the URL in
    `variable` (`GITHUB_API_URL`, `GITHUB_GRAPHQL_URL`).

    A 403 is retried only when it is a rate limit (`Retry-After`, or the message, read by
    `GithubRetry`), so 403 and 429 here are rate limits that did not lift.
    """
    found = RETRIES_SPENT.search(str(exc))
    if isinstance(exc, requests.exceptions.RetryError) and found:
        status = int(found[1])
        kept = "still the answer after fixbot's retries"
        if status in (403, 429):
            kept = "still rate limited after fixbot's retries"
        return explain_status(status, kept, action, permission)
    return (
        f"could not reach GitHub to {action} ({exc}): check {variable}, the network and "
        "https://www.githubstatus.com, then re-run the job"
    )


def explain(exc: GithubException, action: str, permission: str) -> str:
    """Turn an API error into a message naming the missing permission or setting."""
    return explain_status(exc.status, message_of(exc), action, permission)


def message_of(exc: GithubException) -> str:
    """GitHub's `message` in an error answer (the whole body when it is not a JSON object)."""
    data = exc.data
    return str((data or {}).get("message", "")) if isinstance(data, dict) else str(data)


@contextmanager
def mapped(action: str, permission: str) -> Iterator[None]:
    """Raise `GitHubError` with `explain`'s message for any `GithubException` inside, and for
    a connection that failed for good (`requests.RequestException`)."""
    try:
        yield
    except GithubException as exc:
        raise GitHubError(explain(exc, action, permission)) from exc
    except requests.RequestException as exc:
        raise GitHubError(explain_request(exc, action, permission, "GITHUB_API_URL")) from exc


class GitHub:
    """The repository's REST API. `repo` is a lazy PyGithub `Repository` (no request made)."""

    def __init__(self, repo: Repository, client: Github | None = None) -> None:
        self.repo = repo
        self.client = client
        # name -> value of every secret fixbot knows (`Context.rest` sets them): every text this
        # adapter sends is scanned for them and for token shapes first
        self.secrets: Mapping[str, str] = {}

    def _outgoing(self, what: str, **texts: str) -> None:
        """Raise `fixbot.security.leakscan.LeakRefused` (nothing is sent) when one of `texts`
        (the title, the body) carries a secret; `what` names the act."""
        named = {f"the {where}": text for where, text in texts.items()}
        refuse_if_text_leaking(named, self.secrets, what)

    @classmethod
    def connect(
        cls, token: str, api_url: str, repository: str, retry: Retry | None = None
    ) -> GitHub:
        """Client for `repository` (`owner/name`) at `api_url`; no request is made here.

        PyGithub's client-side throttling is off: fixbot makes a handful of writes per run and
        relies on the retry policy for secondary rate limits.
        """
        client = Github(
            auth=Auth.Token(token),
            base_url=api_url.rstrip("/"),
            retry=retry or default_retry(),
            seconds_between_requests=None,
            seconds_between_writes=None,
            user_agent="fixbot",
            lazy=True,
        )
        return cls(client.get_repo(repository), client)

    def open_pull_request(self, plan: PullRequestPlan, title: str, body: str) -> str:
        """Open the PR (labelled `fixbot`) and return its html URL.

        Raises `GitHubError` naming the setting or permission GitHub wants and the branch
        `plan.head`, which keeps the commits whatever GitHub answered.
        """
        self._outgoing("opening the pull request", title=title, body=body)
        try:
            with mapped(f"open a pull request from `{plan.head}` into `{plan.base}`", PULLS):
                pull = self.repo.create_pull(
                    base=plan.base, head=plan.head, title=title, body=body, draft=plan.draft
                )
        except GitHubError as exc:
            raise GitHubError(
                f"{exc}. The commits stay on the branch `{plan.head}`, nothing is lost: open "
                f"a pull request from it into `{plan.base}` by hand, or fix the above and "
                "re-run the job"
            ) from exc.__cause__
        with mapped("label the pull request", ISSUES):
            pull.add_to_labels(LABEL)
        return str(pull.html_url)

    def _json(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        _, data = self.repo.requester.requestJsonAndCheck(method, url, input=body)
        return data

    def login(self) -> str:
        """The login the token acts as: `GET /user`, or `github-actions[bot]` when GitHub
        answers 403 (the workflow's GITHUB_TOKEN is an installation token without a user)."""
        with mapped("read the token's user", "(none)"), quiet_logger(RETRY_LOGGER):
            try:
                data = self._json("GET", f"{self.repo.requester.base_url}/user")
            except GithubException as exc:
                if exc.status == 403 and not is_rate_limit(exc.status, message_of(exc)):
                    return BOT_LOGIN
                raise
        return str(data["login"])

    def permission(self, login: str) -> Level:
        """`login`'s permission on the repository (NONE for unknown users: 404)."""
        quoted = urllib.parse.quote(login, safe="")
        with mapped(f"read @{login}'s permission on the repository", "contents: read"):
            try:
                data = self._json("GET", f"{self.repo.url}/collaborators/{quoted}/permission")
            except GithubException as exc:
                if exc.status == 404:
                    return Level.NONE
                raise
        return level_of(data.get("role_name"), data.get("permission"))

    def pull_request(self, number: int) -> dict[str, Any]:
        """Pull request `number` as the REST API returns it (head, base, state)."""
        with mapped(f"read pull request #{number}", READ_PULLS):
            data: dict[str, Any] = self._json("GET", f"{self.repo.url}/pulls/{number}")
        return data

    def pull_files(self, number: int) -> list[tuple[str, str | None]]:
        """(filename, patch) of each file pull request `number` changes (GitHub omits `patch`
        for large and binary files: then None)."""
        with mapped(f"list the files of pull request #{number}", READ_PULLS):
            return [
                (str(f.filename), f.patch or None) for f in self.repo.get_pull(number).get_files()
            ]

    def review(self, number: int, sha: str, body: str, comments: list[dict[str, str | int]]) -> str:
        """Post one review (event `COMMENT`) on commit `sha` of pull request `number` with
        `body` and `comments` (the `comments[]` objects of the REST API); return its URL.

        Raises `GitHubError` naming `pull-requests: write` when GitHub refuses.
        """
        with mapped(f"post a review on pull request #{number}", PULLS):
            review = self.repo.get_pull(number).create_review(
                commit=self.repo.get_commit(sha),
                body=body,
                event="COMMENT",
                comments=comments,  # type: ignore[arg-type]
            )
        return str(review.html_url)

    def run_status(self, run_id: str) -> str:
        """The `status` of workflow run `run_id` (queued, in_progress, completed, ...)."""
        with mapped(f"read workflow run {run_id}", ACTIONS):
            data = self._json("GET", f"{self.repo.url}/actions/runs/{int(run_id)}")
        return str(data.get("status") or "")

    def react(self, comment_id: int, content: str) -> None:
        """Add reaction `content` (eyes, rocket, confused) to issue comment `comment_id`."""
        if content not in REACTIONS:
            raise ValueError(f"unknown reaction {content!r}")
        with mapped("react to the comment", ISSUES):
            self._json(
                "POST",
                f"{self.repo.url}/issues/comments/{comment_id}/reactions",
                {"content": content},
            )

    def comment(self, number: int, body: str) -> str:
        """Post a new comment `body` on issue or pull request `number`; return its URL."""
        self._outgoing("commenting", comment=body)
        with mapped("comment on the pull request", ISSUES):
            return str(self.repo.get_issue(number).create_comment(body).html_url)

    def status_comment(self, number: int, login: str) -> tuple[int, str] | None:
        """(id, body) of fixbot's status comment on PR `number`: the first comment that starts
        with the marker AND was written by `login` (fixbot's own); None when there is none."""
        issue = self.repo.get_issue(number)
        with mapped("list the pull request's comments", ISSUES):
            for c in issue.get_comments():
                if c.body.startswith(STATUS_MARKER) and c.user.login.lower() == login.lower():
                    return int(c.id), str(c.body)
        return None

    def upsert_status_comment(
        self, number: int, body: str, create: bool = True, login: str = BOT_LOGIN
    ) -> str | None:
        """Edit fixbot's status comment on PR `number` (its marker, written by `login`), or
        create it.

        With `create` False only an existing comment is edited. Returns the comment's URL, or
        None when nothing was written.
        """
        self._outgoing("writing the status comment", comment=body)
        issue = self.repo.get_issue(number)
        found = self.status_comment(number, login)
        if found is not None:
            with mapped("edit fixbot's status comment", ISSUES):
                comment = issue.get_comment(found[0])
                comment.edit(body)
            return str(comment.html_url)
        if not create:
            return None
        with mapped("comment on the pull request", ISSUES):
            return str(issue.create_comment(body).html_url)

    def upsert_issue(self, branch: str, title: str, body: str) -> str:
        """Update the open `fixbot` issue of `branch` (found by its marker), or open one."""
        self._outgoing("writing the escalation issue", title=title, body=body)
        marker = issue_marker(branch)
        with mapped("list fixbot issues", ISSUES):
            issues = self.repo.get_issues(state="open", labels=[LABEL])
            found = next(
                (i for i in issues if i.pull_request is None and (i.body or "").startswith(marker)),
                None,
            )
        if found is not None:
            with mapped("update the escalation issue", ISSUES):
                found.edit(title=title, body=body)
            return str(found.html_url)
        with mapped("open an escalation issue", ISSUES):
            return str(self.repo.create_issue(title=title, body=body, labels=[LABEL]).html_url)


Connector = Callable[[str, str, str], GitHub]
