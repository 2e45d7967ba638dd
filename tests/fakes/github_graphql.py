"""The GraphQL side of the fake GitHub server (`POST /graphql`).

Requests are executed by graphql-core against GitHub's published schema
(`tests/data/github-schema.graphql`), so a document the real API would reject with a validation
error is rejected here too. Resolvers serve a pull request's review threads from
`RepoState.threads[number]` (pages of `first` threads, cursors are offsets) and apply the two
mutations fixbot uses (`addPullRequestReviewThreadReply`, `resolveReviewThread`), recording each
as `(field, input)` in `FakeGitHub.mutations`. Unknown thread ids answer GitHub's NOT_FOUND
error shape.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphql import GraphQLError, GraphQLSchema, build_schema, graphql_sync

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub, RepoState

Json = dict[str, Any]
SCHEMA = Path(__file__).resolve().parent.parent / "data" / "github-schema.graphql"


@functools.cache
def schema() -> GraphQLSchema:
    """GitHub's schema, built once per process (about 0.7 s).

    The published SDL repeats a few fields and deprecates some interface fields only in the
    implementations, which graphql-core's SDL/schema validation rejects; both checks are
    skipped (`assume_valid*`), the documents are still validated against every type.
    """
    return build_schema(
        SCHEMA.read_text(encoding="utf-8"), assume_valid=True, assume_valid_sdl=True
    )


def thread_json(
    thread_id: str,
    path: str,
    line: int | None,
    body: str,
    author: str,
    resolved: bool = False,
    outdated: bool = False,
) -> Json:
    """A review thread with one comment, as the fake stores it."""
    return {
        "id": thread_id,
        "path": path,
        "line": line,
        "isResolved": resolved,
        "isOutdated": outdated,
        "comments": [
            {
                "id": f"{thread_id}_C0",
                "body": body,
                "url": f"https://github.example/r/pull/1#discussion_{thread_id}",
                "author": {"__typename": "User", "login": author},
            }
        ],
    }


def _page(items: list[Json], first: int | None, after: str | None) -> Json:
    if first is None or not 1 <= first <= 100:
        raise GraphQLError("`first` must be between 1 and 100 on the `reviewThreads` connection.")
    start = int(after) if after else 0
    chunk = items[start : start + first]
    end = start + len(chunk)
    return {
        "nodes": chunk,
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": end < len(items),
            "endCursor": str(end) if chunk else None,
            "hasPreviousPage": start > 0,
            "startCursor": str(start) if chunk else None,
        },
    }


def _thread_view(thread: Json) -> Json:
    def comments(info: Any, first: int | None = None, **_: Any) -> Json:
        return _page(thread["comments"], first or 100, None)

    return {**thread, "comments": comments}


def _repository(gh: FakeGitHub) -> Callable[..., Json | None]:
    def repository(info: Any, owner: str, name: str, **_: Any) -> Json | None:
        repo = gh.repos.get(f"{owner}/{name}".lower())
        if repo is None:
            return None

        def pull_request(info: Any, number: int) -> Json | None:
            if not any(i["number"] == number for i in repo.issues):
                return None

            def review_threads(
                info: Any, first: int | None = None, after: str | None = None, **_: Any
            ) -> Json:
                page = _page(repo.threads.get(number, []), first, after)
                return {**page, "nodes": [_thread_view(t) for t in page["nodes"]]}

            return {"number": number, "reviewThreads": review_threads}

        return {"nameWithOwner": repo.name, "pullRequest": pull_request}

    return repository


def find_thread(gh: FakeGitHub, thread_id: str) -> tuple[RepoState, Json]:
    """The repository and thread with id `thread_id`; GraphQLError NOT_FOUND otherwise."""
    for repo in gh.repos.values():
        for threads in repo.threads.values():
            for thread in threads:
                if thread["id"] == thread_id:
                    return repo, thread
    raise GraphQLError(
        f"Could not resolve to a node with the global id of '{thread_id}'",
        extensions={"type": "NOT_FOUND"},
    )


def _mutations(gh: FakeGitHub) -> dict[str, Callable[..., Json]]:
    def add_reply(info: Any, input: Json) -> Json:
        gh.mutations.append(("addPullRequestReviewThreadReply", input))
        _, thread = find_thread(gh, input["pullRequestReviewThreadId"])
        n = len(thread["comments"])
        comment = {
            "__typename": "PullRequestReviewComment",
            "id": f"{thread['id']}_C{n}",
            "body": input["body"],
            "url": f"https://github.example/r/pull/1#discussion_{thread['id']}_{n}",
            "author": {"__typename": "Bot", "login": "github-actions"},
        }
        thread["comments"].append(comment)
        return {"comment": comment, "clientMutationId": None}

    def resolve(info: Any, input: Json) -> Json:
        gh.mutations.append(("resolveReviewThread", input))
        _, thread = find_thread(gh, input["threadId"])
        thread["isResolved"] = True
        return {"thread": _thread_view(thread), "clientMutationId": None}

    return {"addPullRequestReviewThreadReply": add_reply, "resolveReviewThread": resolve}


def _error_json(error: GraphQLError) -> Json:
    found: Json = {"message": error.message}
    kind = (error.extensions or {}).get("type")
    if kind:
        found["type"] = kind
    if error.path:
        found["path"] = list(error.path)
    return found


def answer(gh: FakeGitHub, body: Json) -> tuple[int, Json]:
    """Execute one GraphQL request `{query, variables, operationName}` against the fake state.

    Scripted errors (`FakeGitHub.fail_graphql`) for the request's root field come first, as
    GitHub sends them: status 200, `data` null, `errors[]` with `type` and `message`.
    """
    query = str(body.get("query", ""))
    for scripted in gh.graphql_failures:
        if scripted.times > 0 and scripted.field in query:
            scripted.times -= 1
            return 200, {"data": None, "errors": scripted.errors}
    root = {"repository": _repository(gh), **_mutations(gh)}
    result = graphql_sync(
        schema(),
        query,
        root_value=root,
        variable_values=body.get("variables"),
        operation_name=body.get("operationName"),
    )
    out: Json = {"data": result.data}
    if result.errors:
        out["errors"] = [_error_json(e) for e in result.errors]
    return 200, out
