"""The GitHub GraphQL adapter (gql): a pull request's review threads, replies, resolving.

Endpoint from `GITHUB_GRAPHQL_URL` (default https://api.github.com/graphql; GitHub Enterprise
Server and local test servers work), bearer token. The documents are package files under
`fixbot/github/api/queries/`, validated against GitHub's public schema in the tests
(https://docs.github.com/en/graphql/reference). 429, 5xx and rate-limited 403 answers are
retried by the REST client's policy (`fixbot.github.api.rest.default_retry`, PyGithub's
`GithubRetry`: exponential backoff, `Retry-After`, secondary rate limits). Errors become
`GitHubError` naming the permission the job needs: reading threads needs
`pull-requests: read`, replying and resolving `pull-requests: write`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from typing import Any

import requests
from github import GithubException
from gql import Client, GraphQLRequest
from gql.transport.exceptions import (
    TransportConnectionFailed,
    TransportError,
    TransportQueryError,
    TransportServerError,
)
from gql.transport.requests import RequestsHTTPTransport
from requests.adapters import HTTPAdapter
from urllib3 import Retry

from fixbot.core.errors import GitHubError
from fixbot.core.github_env import DEFAULT_GRAPHQL_URL
from fixbot.core.models import ReviewThread
from fixbot.github.api import batch
from fixbot.github.api.rest import default_retry, explain_request, explain_status, message_of
from fixbot.github.events.threads import ThreadNode, in_scope

DEFAULT_URL = DEFAULT_GRAPHQL_URL  # GitHub's, see `fixbot.core.github_env`
READ = "pull-requests: read"
WRITE = "pull-requests: write"
TIMEOUT_S = 30
MAX_PAGES = 10  # 500 threads: more than any pull request a person reviews


@functools.cache
def document(name: str) -> str:
    """The text of `fixbot/github/api/queries/<name>.graphql` (read once, on first use)."""
    return (resources.files("fixbot.github.api") / "queries" / f"{name}.graphql").read_text("utf-8")


def _messages(errors: list[Any] | None) -> tuple[str, set[str]]:
    items = [e for e in errors or [] if isinstance(e, Mapping)]
    text = "; ".join(str(e.get("message", "")) for e in items) or "no message"
    return text, {str(e.get("type", "")) for e in items}


def _explain_query(exc: TransportQueryError, action: str, permission: str) -> str:
    text, types = _messages(exc.errors)
    if "FORBIDDEN" in types or "not accessible" in text:
        return (
            f"GitHub refused to {action} ({text}): the job needs `permissions: {permission}` "
            "(a fine-grained PAT or GitHub App token needs the Pull requests permission)"
        )
    if "NOT_FOUND" in types:
        return (
            f"GitHub found nothing to {action} ({text}): the thread or pull request may be gone, "
            f"or the token cannot reach it (`permissions: {permission}`)"
        )
    if "RATE_LIMITED" in types:
        return f"GitHub's GraphQL rate limit is spent ({text}): re-run the job later to {action}"
    return f"GitHub could not {action} ({text}); re-run the job, or report a bug"


def explain(exc: TransportError, action: str, permission: str) -> str:
    """Turn a gql transport error into a message naming the missing permission or setting.

    GitHub answers 200 with `errors[].type` FORBIDDEN / NOT_FOUND / RATE_LIMITED for most
    GraphQL failures and HTTP 401 for a bad token
    (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
    """
    if isinstance(exc, TransportQueryError):
        return _explain_query(exc, action, permission)
    if isinstance(exc, TransportServerError) and exc.code is not None:
        return explain_status(exc.code, _http_message(exc), action, permission)
    return f"GitHub's GraphQL API failed to {action} ({exc}); re-run the job, or report a bug"


def _http_message(exc: TransportServerError) -> str:
    """GitHub's `message` in the HTTP error answer behind `exc` (gql keeps only the status)."""
    cause = exc.__cause__
    response = cause.response if isinstance(cause, requests.HTTPError) else None
    if response is None:
        return str(exc)
    try:
        data = response.json()
    except ValueError:
        return response.text[:500] or str(exc)
    return str(data.get("message") or exc) if isinstance(data, dict) else str(exc)


@contextmanager
def mapped(action: str, permission: str, url: str) -> Iterator[None]:
    """Raise `GitHubError` for any gql or connection error inside."""
    try:
        yield
    except TransportConnectionFailed as exc:  # gql wraps whatever the session raised
        cause = exc.__cause__
        if isinstance(cause, GithubException):  # a 403 the retry policy read: no rate limit
            message = explain_status(cause.status, message_of(cause), action, permission)
        elif isinstance(cause, requests.RequestException):
            message = explain_request(cause, action, permission, f"GITHUB_GRAPHQL_URL ({url})")
        else:
            message = f"could not reach GitHub's GraphQL API at {url} to {action} ({exc})"
        raise GitHubError(message) from exc
    except requests.RequestException as exc:
        raise GitHubError(
            explain_request(exc, action, permission, f"GITHUB_GRAPHQL_URL ({url})")
        ) from exc
    except TransportError as exc:
        raise GitHubError(explain(exc, action, permission)) from exc


class _Transport(RequestsHTTPTransport):  # type: ignore[misc]
    """gql's requests transport with fixbot's retry policy mounted on its session."""

    def __init__(self, retry: Retry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.retry = retry

    def connect(self) -> None:
        super().connect()  # type: ignore[no-untyped-call]
        adapter = HTTPAdapter(max_retries=self.retry)
        assert self.session is not None  # made by connect()
        for prefix in ("http://", "https://"):
            self.session.mount(prefix, adapter)


def _node(raw: Mapping[str, Any]) -> ThreadNode:
    comments = (raw.get("comments") or {}).get("nodes") or []
    first = comments[0] if comments else {}
    thread = ReviewThread(
        id=str(raw["id"]),
        path=str(raw["path"]),
        line=raw.get("line"),
        author=str((first.get("author") or {}).get("login") or "ghost"),
        body=str(first.get("body") or ""),
        url=first.get("url"),
    )
    return ThreadNode(
        thread=thread,
        resolved=bool(raw["isResolved"]),
        outdated=bool(raw["isOutdated"]),
        bot=(first.get("author") or {}).get("__typename") == "Bot",
    )


class GraphQL:
    """GitHub's GraphQL API at `url`; `client` is a `gql.Client` (no request made until used)."""

    def __init__(self, client: Client, url: str) -> None:
        self.client = client
        self.url = url

    @classmethod
    def connect(
        cls, token: str, url: str = DEFAULT_URL, retries: int = 3, retry: Retry | None = None
    ) -> GraphQL:
        """Client for `url` with a bearer `token`; no request is made here.

        `retry` (default: `default_retry` with `retries` retries) decides which answers are
        retried and how long to wait.
        """
        transport = _Transport(
            retry or default_retry(total=retries),
            url=url,
            headers={"Authorization": f"bearer {token}", "User-Agent": "fixbot"},
            timeout=TIMEOUT_S,
        )
        return cls(Client(transport=transport, fetch_schema_from_transport=False), url)

    def execute(self, name: str, variables: dict[str, Any], action: str, permission: str) -> Any:
        """Run the document `name` with `variables`; return its `data` (a JSON object)."""
        request = GraphQLRequest(document(name), variable_values=variables)
        with mapped(action, permission, self.url):
            return self.client.execute(request)

    def thread_pages(self, owner: str, name: str, number: int) -> Iterator[list[ThreadNode]]:
        """Pages (50 threads each) of every review thread of pull request `number`."""
        cursor: str | None = None
        while True:
            data = self.execute(
                "review_threads",
                {"owner": owner, "name": name, "number": number, "cursor": cursor},
                "read the pull request's review threads",
                READ,
            )
            pull = (data.get("repository") or {}).get("pullRequest")
            if pull is None:
                raise GitHubError(
                    f"GitHub found no pull request #{number} in {owner}/{name}: check the event "
                    f"and that the token can read the repository (`permissions: {READ}`)"
                )
            connection = pull["reviewThreads"]
            yield [_node(raw) for raw in connection["nodes"] or [] if raw]
            cursor = connection["pageInfo"]["endCursor"]
            if not connection["pageInfo"]["hasNextPage"] or not cursor:
                return

    def fetch_threads(self, owner: str, name: str, number: int, limit: int) -> list[ReviewThread]:
        """The first `limit` unresolved, not outdated review threads of pull request `number`.

        Pages are fetched until `limit` threads are found or the list ends; `limit` 0 makes no
        request. Raises `GitHubError` naming `pull-requests: read` when GitHub refuses.
        """
        found: list[ThreadNode] = []
        if limit <= 0:
            return []
        for page in self.thread_pages(owner, name, number):
            found.extend(page)
            if len(in_scope(found, limit)) >= limit:
                break
        return in_scope(found, limit)

    def fetch_nodes(self, owner: str, name: str, number: int) -> list[ThreadNode]:
        """Every review thread of pull request `number` (up to `MAX_PAGES` pages of 50), in
        GitHub's order, before any scope filter. Raises `GitHubError` naming
        `pull-requests: read` when GitHub refuses."""
        found: list[ThreadNode] = []
        for _, page in zip(range(MAX_PAGES), self.thread_pages(owner, name, number), strict=False):
            found.extend(page)
        return found

    def resolve_and_reply(
        self, thread_ids: list[str], body: str | Mapping[str, str]
    ) -> tuple[batch.BatchResult, str | None]:
        """Reply in each thread and resolve it, `batch.BATCH` threads per request; `body` is
        the reply, or a mapping from thread id to that thread's own reply.

        Returns what was done and, when GitHub refused part of it, why (the batches after a
        refusal are not sent). Within a batch a thread's reply is posted before it is resolved.
        """
        done = batch.BatchResult()
        for chunk in batch.chunks(thread_ids):
            request = GraphQLRequest(
                batch.document(len(chunk)), variable_values=batch.variables(chunk, body)
            )
            try:
                with mapped("resolve and reply in review threads", WRITE, self.url):
                    data = self.client.execute(request)
            except GitHubError as exc:
                cause = exc.__cause__
                partial = cause.data if isinstance(cause, TransportQueryError) else None
                got = batch.result(chunk, partial)
                done.resolved += got.resolved
                done.replied += got.replied
                return done, f"review threads were not all resolved: {exc}"
            got = batch.result(chunk, data)
            done.resolved += got.resolved
            done.replied += got.replied
        return done, None
