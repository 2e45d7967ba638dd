"""The gql adapter against the fake GitHub server (which executes every request against GitHub's
published schema), and every `.graphql` document validated against that schema."""

from __future__ import annotations

import socket
from importlib import resources

import pytest
from graphql import parse, validate

from fixbot.errors import GitHubError
from fixbot.github.graphql import GraphQL, document
from tests.fakes.github_graphql import schema
from tests.fakes.github_server import FakeGitHub

REPO = "octo/app"
NUMBER = 7
DOCUMENTS = sorted(
    p.name.removesuffix(".graphql")
    for p in (resources.files("fixbot.github") / "queries").iterdir()
    if p.name.endswith(".graphql")
)


def client(server: FakeGitHub) -> GraphQL:
    return GraphQL.connect("ghs_token", server.url + "/graphql")


def seed_pr(server: FakeGitHub, number: int = NUMBER) -> None:
    state = server.repo(REPO)
    state.issues.append(server.issue_json(state, number, {"title": "a PR"}, pull=True))


def graphql_requests(server: FakeGitHub) -> list[dict[str, object]]:
    return [r.body for r in server.requests if r.path == "/graphql"]


def test_the_package_ships_the_three_documents() -> None:
    assert DOCUMENTS == ["add_thread_reply", "resolve_thread", "review_threads"]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_document_is_valid_against_githubs_schema(name: str) -> None:
    ast = parse(document(name))
    assert validate(schema(), ast) == []
    assert len(ast.definitions) == 1  # one named operation per file


def test_schema_validation_catches_a_wrong_field() -> None:
    broken = document("resolve_thread").replace("isResolved", "isResolvd")
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


def test_reply_and_resolve_change_only_that_thread(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    one = github_server.add_thread(REPO, NUMBER, "a.py", "first")
    two = github_server.add_thread(REPO, NUMBER, "b.py", "second")
    gql = client(github_server)

    url = gql.reply(one, "done in abc")
    gql.resolve(one)

    thread = github_server.review_thread(one)
    assert thread["isResolved"] and [c["body"] for c in thread["comments"]] == [
        "first",
        "done in abc",
    ]
    assert url == thread["comments"][1]["url"]
    assert github_server.review_thread(two)["isResolved"] is False
    reply = {"pullRequestReviewThreadId": one, "body": "done in abc"}
    assert github_server.mutations == [
        ("addPullRequestReviewThreadReply", reply),
        ("resolveReviewThread", {"threadId": one}),
    ]
    assert {r.headers["Authorization"] for r in github_server.requests} == {"bearer ghs_token"}


def test_missing_permission_names_pull_requests_write(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    tid = github_server.add_thread(REPO, NUMBER, "a.py", "b")
    github_server.fail_graphql(
        "resolveReviewThread", "FORBIDDEN", "Resource not accessible by integration"
    )
    with pytest.raises(GitHubError, match=r"permissions: pull-requests: write") as info:
        client(github_server).resolve(tid)
    assert "Resource not accessible by integration" in str(info.value)
    assert github_server.review_thread(tid)["isResolved"] is False


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
    with pytest.raises(GitHubError, match=r"401.*`github-token` input"):
        client(github_server).resolve("PRRT_1")


def test_a_502_is_retried(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    tid = github_server.add_thread(REPO, NUMBER, "a.py", "b")
    github_server.fail("POST", "/graphql", 502)
    client(github_server).resolve(tid)
    assert github_server.review_thread(tid)["isResolved"] is True
    assert len(graphql_requests(github_server)) == 2


def test_unreachable_endpoint_names_github_graphql_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    gql = GraphQL.connect("t", f"http://127.0.0.1:{port}/graphql", retries=0)
    with pytest.raises(GitHubError, match=r"GITHUB_GRAPHQL_URL"):
        gql.resolve("PRRT_1")
