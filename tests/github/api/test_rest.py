"""The PyGithub adapter against the fake GitHub server: writes, retries, permission messages,
and every route called checked against GitHub's OpenAPI description."""

from __future__ import annotations

import time

import pytest

from fixbot.core.errors import GitHubError
from fixbot.github.api.rest import GitHub, default_retry
from fixbot.github.publish.plan import PullRequestPlan
from fixbot.github.publish.render import STATUS_MARKER
from tests.fakes.github_server import ROUTES, FakeGitHub
from tests.fakes.paths import DATA

REPO = "octo/app"
ROUTES_FILE = DATA / "github-rest-routes.txt"


def openapi_routes() -> set[str]:
    """`METHOD /path` lines of the vendored @octokit/openapi extract."""
    lines = ROUTES_FILE.read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def client(server: FakeGitHub) -> GitHub:
    return GitHub.connect("ghs_token", server.url, REPO, retry=default_retry(0.01, 0.01))


def seed_pr(server: FakeGitHub, number: int = 7) -> None:
    state = server.repo(REPO)
    state.issues.append(server.issue_json(state, number, {"title": "a PR"}, pull=True))


def test_open_pull_request_is_labelled_and_sends_the_token(github_server: FakeGitHub) -> None:
    url = client(github_server).open_pull_request(
        PullRequestPlan(base="main", head="fixbot/main-1", draft=True), "title", "body"
    )
    pull = github_server.repo(REPO).pulls[0]
    assert url == pull["html_url"]
    assert (pull["head"]["ref"], pull["base"]["ref"], pull["draft"]) == (
        "fixbot/main-1",
        "main",
        True,
    )
    assert [lab["name"] for lab in github_server.repo(REPO).issues[0]["labels"]] == ["fixbot"]
    assert github_server.requests[0].headers["Authorization"] == "token ghs_token"


def test_status_comment_is_created_once_then_edited(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    gh = client(github_server)
    assert gh.upsert_status_comment(7, STATUS_MARKER + "\nfirst", create=False) is None
    first = gh.upsert_status_comment(7, STATUS_MARKER + "\nfirst")
    second = gh.upsert_status_comment(7, STATUS_MARKER + "\nsecond")
    comments = github_server.repo(REPO).comments
    assert first == second and len(comments) == 1
    assert comments[0]["body"].endswith("second")


def test_escalation_issue_is_one_per_branch(github_server: FakeGitHub) -> None:
    gh = client(github_server)
    one = gh.upsert_issue("main", "t", "<!-- fixbot:escalation branch=main -->\nfirst")
    again = gh.upsert_issue("main", "t", "<!-- fixbot:escalation branch=main -->\nsecond")
    other = gh.upsert_issue("dev", "t", "<!-- fixbot:escalation branch=dev -->\nx")
    issues = github_server.repo(REPO).issues
    assert one == again != other and len(issues) == 2
    assert issues[0]["body"].endswith("second")


def test_server_errors_and_secondary_rate_limits_are_retried(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    github_server.fail("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", 502)
    github_server.fail(
        "POST",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        403,
        headers={"Retry-After": "1"},
        body={"message": "You have exceeded a secondary rate limit."},
    )
    started = time.monotonic()
    client(github_server).upsert_status_comment(7, STATUS_MARKER)
    assert time.monotonic() - started >= 1.0  # Retry-After was honoured
    methods = [r.method for r in github_server.requests]
    assert methods == ["GET", "GET", "POST", "POST"]
    assert len(github_server.repo(REPO).comments) == 1


def test_refused_pull_request_names_the_repository_setting(github_server: FakeGitHub) -> None:
    github_server.fail(
        "POST",
        "/repos/{owner}/{repo}/pulls",
        403,
        body={"message": "GitHub Actions is not permitted to create or approve pull requests."},
    )
    with pytest.raises(
        GitHubError, match="Allow GitHub Actions to create and approve pull requests"
    ):
        client(github_server).open_pull_request(PullRequestPlan(base="main", head="x"), "t", "b")


@pytest.mark.parametrize(("status", "expected"), [(404, "issues: write"), (401, "github-token")])
def test_permission_errors_name_the_missing_permission(
    github_server: FakeGitHub, status: int, expected: str
) -> None:
    seed_pr(github_server)
    github_server.fail("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", status)
    with pytest.raises(GitHubError, match=expected):
        client(github_server).upsert_status_comment(7, STATUS_MARKER)


def test_every_route_called_is_in_githubs_openapi_description(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    gh = client(github_server)
    gh.open_pull_request(PullRequestPlan(base="main", head="b"), "t", "b")
    gh.upsert_status_comment(7, STATUS_MARKER + "\na")
    gh.upsert_status_comment(7, STATUS_MARKER + "\nb")
    gh.upsert_issue("main", "t", "<!-- fixbot:escalation branch=main -->")
    gh.upsert_issue("main", "t", "<!-- fixbot:escalation branch=main -->")
    assert github_server.unmatched == []
    known = openapi_routes()
    assert github_server.routes_called() <= known
    assert len(github_server.routes_called()) >= 7


def test_the_fake_servers_routes_are_githubs() -> None:
    assert set(ROUTES) <= openapi_routes()


def test_the_tokens_login_is_the_user_or_the_actions_bot(github_server: FakeGitHub) -> None:
    assert client(github_server).login() == "github-actions[bot]"  # GITHUB_TOKEN: 403
    github_server.token_login = "fixbot-maintainer"
    assert client(github_server).login() == "fixbot-maintainer"


def test_the_status_comment_is_found_by_marker_and_fixbots_login(
    github_server: FakeGitHub,
) -> None:
    seed_pr(github_server)
    spoof = github_server.add_comment(REPO, 7, STATUS_MARKER + "\nfake history", "mallory")
    gh = client(github_server)
    assert gh.status_comment(7, "github-actions[bot]") is None
    gh.upsert_status_comment(7, STATUS_MARKER + "\nreal", login="github-actions[bot]")
    gh.upsert_status_comment(7, STATUS_MARKER + "\nreal again", login="github-actions[bot]")
    comments = github_server.repo(REPO).comments
    assert spoof["body"].endswith("fake history")  # never edited
    assert [c["body"].split("\n")[1] for c in comments] == ["fake history", "real again"]
    found = gh.status_comment(7, "GitHub-Actions[bot]")
    assert found is not None and found[0] == comments[1]["id"]


def test_reactions_runs_permissions_and_pull_requests(github_server: FakeGitHub) -> None:
    seed_pr(github_server)
    state = github_server.repo(REPO)
    state.pulls.append({"number": 7, "state": "open", "head": {"ref": "x", "sha": "1"}})
    state.runs[5] = "in_progress"
    state.permissions["ann"] = "maintain"
    comment = github_server.add_comment(REPO, 7, "/fixbot retry", "ann")
    gh = client(github_server)
    gh.react(comment["id"], "eyes")
    gh.react(comment["id"], "rocket")
    assert comment["reactions"] == ["eyes", "rocket"]
    with pytest.raises(ValueError):
        gh.react(comment["id"], "heart")
    assert gh.run_status("5") == "in_progress"
    assert gh.permission("ann").value == "maintain" and gh.permission("zed").value == "none"
    assert gh.pull_request(7)["head"]["ref"] == "x"
    gh.comment(7, "a reply")
    assert github_server.unmatched == []
    assert github_server.routes_called() <= openapi_routes()
    with pytest.raises(GitHubError, match="actions: read"):
        gh.run_status("6")


def test_the_identity_probes_expected_403_is_not_logged_as_a_failure(
    github_server: FakeGitHub, caplog: pytest.LogCaptureFixture
) -> None:
    """With an Actions token `GET /user` answers 403 on every run: an expected answer, so
    PyGithub's INFO line "Request GET /user failed with 403" is not shown, whatever the
    logging set-up; other 403s still are."""
    import logging

    with caplog.at_level(logging.INFO):
        assert client(github_server).login() == "github-actions[bot]"
    assert not [r for r in caplog.records if "failed with 403" in r.getMessage()], caplog.text
    assert logging.getLogger("github.GithubRetry").level == logging.NOTSET  # put back
