"""The gql adapter against the fake GitHub server (which executes every request against GitHub's
published schema), and every `.graphql` document validated against that schema."""

from __future__ import annotations

import re
import socket
from importlib import resources

import pytest
from graphql import parse, validate

from fixbot.core.errors import GitHubError
from fixbot.github.api import batch
from fixbot.github.api.graphql import GraphQL, document
from tests.fakes.github_graphql import schema
from tests.fakes.github_server import FakeGitHub

REPO = "octo/app"
NUMBER = 7
DOCUMENTS = sorted(
    p.name.removesuffix(".graphql")
    for p in (resources.files("fixbot.github.api") / "queries").iterdir()
    if p.name.endswith(".graphql")
)


def client(server: FakeGitHub) -> GraphQL:
    return GraphQL.connect("ghs_token", server.url + "/graphql")


def seed_pr(server: FakeGitHub, number: int = NUMBER) -> None:
    state = server.repo(REPO)
    state.issues.append(server.issue_json(state, number, {"title": "a PR"}, pull=True))


def graphql_requests(server: FakeGitHub) -> list[dict[str, object]]:
    return [r.body for r in server.requests if r.path == "/graphql"]


def test_the_package_ships_the_two_documents() -> None:
    assert DOCUMENTS == ["resolve_and_reply", "review_threads"]


def test_the_one_thread_batch_is_the_shipped_document() -> None:
    shipped = "".join(
        line + "\n"
        for line in document("resolve_and_reply").splitlines()
        if not line.startswith("#")
    )
    assert batch.document(1) == shipped


@pytest.mark.parametrize("count", [1, 2, batch.BATCH])
def test_batched_mutations_are_valid_against_githubs_schema(count: int) -> None:
    ast = parse(batch.document(count))
    assert validate(schema(), ast) == []
    assert len(ast.definitions[0].selection_set.selections) == 2 * count  # type: ignore[attr-defined]


def test_a_batch_holds_one_to_twenty_threads() -> None:
    with pytest.raises(ValueError, match="1 to 20"):
        batch.document(21)
    assert [len(c) for c in batch.chunks(list(range(45)))] == [20, 20, 5]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_document_is_valid_against_githubs_schema(name: str) -> None:
    ast = parse(document(name))
    assert validate(schema(), ast) == []
    assert len(ast.definitions) == 1  # one named operation per file


def test_schema_validation_catches_a_wrong_field() -> None:
    broken = document("resolve_and_reply").replace("isResolved", "isResolvd")
    errors = validate(schema(), parse(broken))
    assert [e.message for e in errors] == [
        "Cannot query field 'isResolvd' on type 'PullRequestReviewThread'."
        " Did you mean 'isResolved'?"
    ]


def test_threads_are_paginated_and_filtered(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    expected = []
    for i in range(60):  # 50 on the first page, 10 on the second
        resolved, outdated = i % 7 == 0, i % 11 == 5
        tid = github_server.add_thread(
            REPO, NUMBER, f"src/f{i}.py", f"body {i}", line=i + 1, author=f"u{i}",
            resolved=resolved, outdated=outdated,
        )  # fmt: skip
        if not resolved and not outdated:
            expected.append((tid, f"src/f{i}.py", i + 1, f"u{i}", f"body {i}"))

    found = client(github_server).fetch_threads("octo", "app", NUMBER, 100)

    assert [(t.id, t.path, t.line, t.author, t.body) for t in found] == expected
    assert len(expected) > 50 - 8  # the second page held kept threads too
    cursors = [b["variables"]["cursor"] for b in graphql_requests(github_server)]  # type: ignore[index]
    assert cursors == [None, "50"]
    assert found[0].url and found[0].url.endswith(found[0].id)


def test_paging_stops_once_the_limit_is_reached(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    ids = [github_server.add_thread(REPO, NUMBER, "a.py", f"b{i}") for i in range(70)]

    found = client(github_server).fetch_threads("octo", "app", NUMBER, 3)

    assert [t.id for t in found] == ids[:3]
    assert len(graphql_requests(github_server)) == 1


def test_limit_zero_makes_no_request(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    github_server.add_thread(REPO, NUMBER, "a.py", "b")
    assert client(github_server).fetch_threads("octo", "app", NUMBER, 0) == []
    assert github_server.requests == []


def test_a_deleted_author_is_ghost(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    tid = github_server.add_thread(REPO, NUMBER, "a.py", "b")
    github_server.review_thread(tid)["comments"][0]["author"] = None
    assert client(github_server).fetch_threads("octo", "app", NUMBER, 5)[0].author == "ghost"


def test_resolve_and_reply_change_only_those_threads(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    one = github_server.add_thread(REPO, NUMBER, "a.py", "first")
    two = github_server.add_thread(REPO, NUMBER, "b.py", "second")
    gql = client(github_server)

    done, why = gql.resolve_and_reply([one], "done in abc")

    assert why is None and done.resolved == done.replied == [one]
    thread = github_server.review_thread(one)
    assert thread["isResolved"] and [c["body"] for c in thread["comments"]] == [
        "first",
        "done in abc",
    ]
    assert github_server.review_thread(two)["isResolved"] is False
    reply = {"pullRequestReviewThreadId": one, "body": "done in abc"}
    assert github_server.mutations == [  # the reply first, then resolved
        ("addPullRequestReviewThreadReply", reply),
        ("resolveReviewThread", {"threadId": one}),
    ]
    assert {r.headers["Authorization"] for r in github_server.requests} == {"bearer ghs_token"}


def test_45_threads_take_three_mutation_requests(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    ids = [github_server.add_thread(REPO, NUMBER, f"f{i}.py", f"b{i}") for i in range(45)]

    done, why = client(github_server).resolve_and_reply(ids, "fixed")

    assert why is None and done.resolved == ids and done.replied == ids
    sizes = [len(b["variables"]) // 2 for b in graphql_requests(github_server)]  # type: ignore[arg-type]
    assert sizes == [20, 20, 5]
    assert all(github_server.review_thread(t)["isResolved"] for t in ids)
    assert all(len(github_server.review_thread(t)["comments"]) == 2 for t in ids)


def test_a_thread_gone_in_the_middle_of_a_batch_is_named(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    one = github_server.add_thread(REPO, NUMBER, "a.py", "first")
    three = github_server.add_thread(REPO, NUMBER, "c.py", "third")

    done, why = client(github_server).resolve_and_reply([one, "PRRT_gone", three], "ok")

    assert done.resolved == [one, three] and done.replied == [one, three]
    assert why is not None and "PRRT_gone" in why


def test_missing_permission_names_pull_requests_write(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    tid = github_server.add_thread(REPO, NUMBER, "a.py", "b")
    github_server.fail_graphql(
        "resolveReviewThread", "FORBIDDEN", "Resource not accessible by integration"
    )
    done, why = client(github_server).resolve_and_reply([tid, tid + "x"], "ok")
    assert done.resolved == done.replied == []
    assert why is not None and "permissions: pull-requests: write" in why
    assert "Resource not accessible by integration" in why
    assert github_server.review_thread(tid)["isResolved"] is False
    assert len(graphql_requests(github_server)) == 1  # the batches after a refusal are not sent


def test_read_refusal_names_pull_requests_read(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    github_server.fail_graphql("reviewThreads", "FORBIDDEN", "Resource not accessible")
    with pytest.raises(GitHubError, match=r"permissions: pull-requests: read"):
        client(github_server).fetch_threads("octo", "app", NUMBER, 5)


def test_unknown_pull_request_says_what_to_check(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    with pytest.raises(GitHubError, match=r"no pull request #99 in octo/app"):
        client(github_server).fetch_threads("octo", "app", 99, 5)


def test_bad_token_points_at_the_github_token_input(github_server: FakeGitHub) -> None:
    github_server.fail("POST", "/graphql", 401, body={"message": "Bad credentials"})
    done, why = client(github_server).resolve_and_reply(["PRRT_1"], "ok")
    assert done.resolved == [] and why is not None
    assert re.search(r"401.*`github-token` input", why)


def test_a_502_is_retried(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    tid = github_server.add_thread(REPO, NUMBER, "a.py", "b")
    github_server.fail("POST", "/graphql", 502)
    client(github_server).resolve_and_reply([tid], "ok")
    assert github_server.review_thread(tid)["isResolved"] is True
    assert len(graphql_requests(github_server)) == 2


def test_unreachable_endpoint_names_github_graphql_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    gql = GraphQL.connect("t", f"http://127.0.0.1:{port}/graphql", retries=0)
    done, why = gql.resolve_and_reply(["PRRT_1"], "ok")
    assert done.resolved == [] and why is not None and "GITHUB_GRAPHQL_URL" in why
