"""GitHub-side faults and hostile events, end to end.

`python -m fixbot action` in a subprocess (`ActionSandbox`) against the fake GitHub server on
127.0.0.1, which answers scripted faults (`FakeGitHub.fail`): the 403s GitHub gives to a pull
request the workflow may not open, secondary rate limits that lift or never do, GraphQL 502s;
and events that must be refused or handled as data: a pull request whose fork was deleted, a
branch named like a shell command. Every wait is `Retry-After: 1` (GitHub's own header), so
each test ends in seconds; the adapters' unit tests use a retry policy with no wait.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fixbot.core.errors import GitHubError
from fixbot.github.api.graphql import GraphQL
from fixbot.github.api.rest import GitHub, default_retry
from fixbot.github.events.commands.comment import COMMENT_LIMIT
from fixbot.github.publish.plan import PullRequestPlan
from tests.fakes.action_env import REPOSITORY, ActionRun, ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.repo import git

pytestmark = pytest.mark.slow
RUFF = {"check-command": "ruff check --no-cache .", "fix-commands": "ruff check --no-cache --fix ."}
BROKEN = {"app.py": "import os\nprint('hi')\n"}
PULLS = "/repos/{owner}/{repo}/pulls"
COMMENTS = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
NOT_PERMITTED = "GitHub Actions is not permitted to create or approve pull requests."
NOT_ACCESSIBLE = "Resource not accessible by integration"
SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
WAIT_1S = {"Retry-After": "1"}
RESCUE = "fixbot/main-77"  # the branch a push to the default branch goes to (run id 77)


@pytest.fixture
def sandbox(tmp_path: Path, github_server: FakeGitHub) -> ActionSandbox:
    box = ActionSandbox(tmp_path, github_server)
    box.commit("main", {"app.py": "print('hi')\n"}, "initial")
    return box


def fix_main(sandbox: ActionSandbox) -> tuple[ActionRun, str]:
    """Break main, run the Action on the push: it fixes and opens a PR from `RESCUE`."""
    sha = sandbox.commit("main", BROKEN, "break main")
    ws = sandbox.workspace("main")
    return sandbox.run(sandbox.env("push", sandbox.push_event("main", sha), ws, RUFF)), sha


def fix_pull_request(sandbox: ActionSandbox, branch: str = "changes") -> tuple[ActionRun, str]:
    """Break `branch` (PR #2), run the Action on the pull request: it pushes the fix."""
    sha = sandbox.commit(branch, BROKEN, "break it")
    ws = sandbox.workspace(branch, merge_into="main")
    event = sandbox.pull_request_event(branch, sha)
    return sandbox.run(sandbox.env("pull_request", event, ws, RUFF)), sha


def assert_fix_kept_on(sandbox: ActionSandbox, branch: str, parent: str) -> None:
    """`branch` on origin holds the verified fix, one commit on top of `parent`."""
    pushed = sandbox.origin_sha(branch)
    assert pushed is not None, f"{branch} was not pushed"
    assert git(sandbox.origin, "rev-parse", f"{pushed}^") == parent
    assert git(sandbox.origin, "show", f"{pushed}:app.py") == "print('hi')"


def calls(github: FakeGitHub, method: str, route: str) -> int:
    return sum(1 for r in github.requests if r.route == f"{method} {route}")


def no_traceback(run: ActionRun) -> None:
    assert "Traceback" not in run.stderr + run.stdout, run.stderr


# ---- 403 on pull request creation


def test_prs_not_permitted_keeps_the_fix_on_its_branch_and_names_the_setting(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail("POST", PULLS, 403, body={"message": NOT_PERMITTED})
    run, sha = fix_main(sandbox)

    no_traceback(run)
    assert run.code == 2 and run.outputs["outcome"] == "error"
    assert_fix_kept_on(sandbox, RESCUE, sha)
    # the outputs still name the pushed commit and the attempt that made it
    assert run.outputs["commit-sha"] == sandbox.origin_sha(RESCUE)
    assert run.outputs["attempts"] == "1"
    assert sandbox.origin_sha("main") == sha
    assert github_server.repo(REPOSITORY).pulls == []
    for text in (run.outputs["reason"], run.summary):
        assert "Allow GitHub Actions to create and approve pull requests" in text
        assert "Settings > Actions > General > Workflow permissions" in text
        assert f"`{RESCUE}`" in text and "by hand" in text
    assert "::error title=fixbot::" in run.stdout
    assert calls(github_server, "POST", PULLS) == 1  # a refusal is not retried


def test_a_plain_403_on_pr_creation_names_the_permission(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail("POST", PULLS, 403, body={"message": NOT_ACCESSIBLE})
    run, sha = fix_main(sandbox)

    no_traceback(run)
    assert run.code == 2 and run.outputs["outcome"] == "error"
    assert_fix_kept_on(sandbox, RESCUE, sha)
    reason = run.outputs["reason"]
    assert "`permissions: pull-requests: write`" in reason and NOT_ACCESSIBLE in reason
    assert f"`{RESCUE}`" in reason


# ---- secondary rate limits


@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_rate_limit_on_pr_creation_is_waited_out(
    sandbox: ActionSandbox, github_server: FakeGitHub, status: int
) -> None:
    github_server.fail("POST", PULLS, status, times=2, headers=WAIT_1S, body={"message": SECONDARY})
    started = time.monotonic()
    run, sha = fix_main(sandbox)

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert time.monotonic() - started >= 2  # Retry-After: 1, twice
    assert calls(github_server, "POST", PULLS) == 3
    pulls = github_server.repo(REPOSITORY).pulls
    assert [p["head"]["ref"] for p in pulls] == [RESCUE]  # exactly one pull request
    assert run.outputs["pr-url"] == pulls[0]["html_url"]
    assert_fix_kept_on(sandbox, RESCUE, sha)


def test_a_secondary_rate_limit_on_the_status_comment_is_waited_out(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail("POST", COMMENTS, 429, headers=WAIT_1S, body={"message": SECONDARY})
    run, sha = fix_pull_request(sandbox)

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert calls(github_server, "POST", COMMENTS) == 2
    assert len(github_server.repo(REPOSITORY).comments) == 1
    assert_fix_kept_on(sandbox, "changes", sha)


def test_a_rate_limit_that_never_lifts_ends_in_bounded_time_with_the_fix_kept(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail(
        "POST", PULLS, 403, times=1_000, headers=WAIT_1S, body={"message": SECONDARY}
    )
    started = time.monotonic()
    run, sha = fix_main(sandbox)
    took = time.monotonic() - started

    no_traceback(run)
    assert run.code == 2 and run.outputs["outcome"] == "error"
    assert took < 60, took  # 5 retries of Retry-After: 1, plus the run
    assert calls(github_server, "POST", PULLS) == 6  # the first try and 5 retries
    reason = run.outputs["reason"]
    assert "rate limit" in reason and "re-run the job later" in reason
    assert "pull-requests: write" not in reason  # not mistaken for a missing permission
    assert f"`{RESCUE}`" in reason
    assert_fix_kept_on(sandbox, RESCUE, sha)
    assert github_server.repo(REPOSITORY).pulls == []


# ---- GraphQL faults


def test_a_graphql_502_that_persists_is_a_note_and_the_fix_still_lands(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail("POST", "/graphql", 502, times=1_000, body={"message": "Server Error"})
    run, sha = fix_pull_request(sandbox)

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert_fix_kept_on(sandbox, "changes", sha)
    assert calls(github_server, "POST", "/graphql") == 4  # the first try and 3 retries
    assert "review threads were not read: GitHub answered 502" in run.summary
    assert "after fixbot's retries" in run.summary
    assert "GITHUB_GRAPHQL_URL" not in run.summary  # it was reached: not a network problem


def test_a_graphql_secondary_rate_limit_is_retried_then_the_threads_are_read(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    github_server.fail("POST", "/graphql", 403, headers=WAIT_1S, body={"message": SECONDARY})
    github_server.add_thread(REPOSITORY, 2, "app.py", "Say hello.", author="alice")
    github_server.repo(REPOSITORY).permissions["alice"] = "write"
    run, sha = fix_pull_request(sandbox)

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert calls(github_server, "POST", "/graphql") >= 2
    assert "review threads were not read" not in run.summary
    assert "1 open review thread(s) given to the model" in run.stdout
    assert_fix_kept_on(sandbox, "changes", sha)


# ---- hostile events


def test_a_pull_request_from_a_deleted_fork_is_refused_and_nothing_is_pushed(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", BROKEN, "break it")
    before = git(sandbox.origin, "for-each-ref")
    ws = sandbox.workspace("changes", merge_into="main")
    event = sandbox.pull_request_event("changes", sha)
    event["pull_request"]["head"]["repo"] = None  # GitHub sends null once the fork is gone
    run = sandbox.run(sandbox.env("pull_request", event, ws, RUFF))

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "refused"
    assert "head repository of pull request #2 was deleted" in run.outputs["reason"]
    assert "was deleted" in run.summary
    assert git(sandbox.origin, "for-each-ref") == before  # nothing pushed
    assert github_server.requests == []  # no pull request, no comment, no API call


def test_a_retry_command_on_a_pull_request_whose_fork_was_deleted_is_refused(
    sandbox: ActionSandbox, github_server: FakeGitHub
) -> None:
    sha = sandbox.commit("changes", BROKEN, "break it")
    sandbox.register_pull("changes", sha)
    github_server.repo(REPOSITORY).pulls[-1]["head"]["repo"] = None
    github_server.repo(REPOSITORY).permissions["alice"] = "write"
    before = git(sandbox.origin, "for-each-ref")
    event = sandbox.comment_event("/fixbot retry", "alice")
    ws = sandbox.workspace("main")
    run = sandbox.run(sandbox.env("issue_comment", event, ws, RUFF))

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "refused"
    assert "was deleted" in run.outputs["reason"]
    assert git(sandbox.origin, "for-each-ref") == before
    state = github_server.repo(REPOSITORY)
    assert len(state.pulls) == 1  # only the registered one: none opened
    replies = [c["body"] for c in state.comments if c["user"]["login"] == "github-actions[bot]"]
    assert len(replies) == 1 and "was deleted" in replies[0]


def test_a_branch_named_like_shell_commands_is_only_ever_data(
    sandbox: ActionSandbox, github_server: FakeGitHub, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    # git accepts every one of these characters in a branch name; a shell would run them all.
    branch = (
        f"fix/a;touch${{IFS}}{marker}1$(touch${{IFS}}{marker}2)`touch${{IFS}}{marker}3`"
        f"|touch${{IFS}}{marker}4&&touch${{IFS}}{marker}5'\"$HOME"
    )
    assert git(tmp_path, "check-ref-format", "--branch", branch) == branch
    run, sha = fix_pull_request(sandbox, branch)

    no_traceback(run)
    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert_fix_kept_on(sandbox, branch, sha)
    assert run.outputs["commit-sha"] == sandbox.origin_sha(branch)
    ran = [n for n in range(1, 6) if Path(f"{marker}{n}").exists()]
    assert ran == [], f"commands in the branch name ran: {ran}"
    assert len(github_server.repo(REPOSITORY).comments) == 1


# ---- the adapters on their own (no wait between retries)


def rest(server: FakeGitHub) -> GitHub:
    return GitHub.connect("ghs_token", server.url, "octo/app", retry=default_retry(0.01, 0.01))


def test_rest_rate_limit_without_retry_after_waits_the_secondary_wait(
    github_server: FakeGitHub,
) -> None:
    """No `Retry-After`: PyGithub recognises the limit from the message and waits
    `secondary_rate_wait` (60 s in production, 0.01 s here) before each retry."""
    github_server.fail("POST", PULLS, 403, times=2, body={"message": SECONDARY})
    url = rest(github_server).open_pull_request(PullRequestPlan(base="main", head="b"), "t", "b")
    assert url.endswith("/pull/101") and calls(github_server, "POST", PULLS) == 3


def test_a_primary_rate_limit_past_the_wait_cap_is_an_error_at_once(
    github_server: FakeGitHub,
) -> None:
    """A reset an hour away is not waited for (the cap is 600 s): the error says when."""
    reset = str(int(time.time()) + 3600)
    github_server.fail(
        "POST",
        PULLS,
        403,
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        body={"message": "API rate limit exceeded for installation ID 1."},
    )
    started = time.monotonic()
    with pytest.raises(GitHubError, match=r"rate limit.*re-run the job later.*`b`"):
        rest(github_server).open_pull_request(PullRequestPlan(base="main", head="b"), "t", "b")
    assert time.monotonic() - started < 60  # waiting would take 600 s or more


@pytest.mark.parametrize("api", ["rest", "graphql"])
@pytest.mark.parametrize("status", [403, 429])
def test_a_retry_after_longer_than_the_cap_is_an_error_at_once(
    github_server: FakeGitHub, api: str, status: int
) -> None:
    """urllib3 sleeps whatever `Retry-After` says; fixbot gives up at once past 600 s."""
    hour = {"Retry-After": "3600"}
    github_server.fail("POST", PULLS, status, headers=hour, body={"message": SECONDARY})
    github_server.fail("POST", "/graphql", status, headers=hour, body={"message": SECONDARY})
    started = time.monotonic()
    with pytest.raises(GitHubError, match=r"rate limit.*wait 3600 s.*re-run the job later"):
        if api == "rest":
            rest(github_server).open_pull_request(PullRequestPlan(base="main", head="b"), "t", "b")
        else:
            GraphQL.connect("t", github_server.url + "/graphql").fetch_threads("o", "a", 2, 5)
    assert time.monotonic() - started < 60  # waiting would take 600 s or more
    assert len(github_server.requests) == 1


def test_an_unreachable_rest_api_is_a_github_error_naming_the_url_variable() -> None:
    gh = GitHub.connect("t", "http://127.0.0.1:9", "octo/app", retry=default_retry(0, 0, total=0))
    with pytest.raises(GitHubError, match="GITHUB_API_URL"):
        gh.comment(1, "hi")


def test_login_under_a_rate_limit_is_an_error_not_the_bot_login(
    github_server: FakeGitHub,
) -> None:
    """A 403 on `GET /user` means an installation token (github-actions[bot]), unless it is a
    rate limit: then guessing the login would make a second status comment."""
    github_server.fail("GET", "/user", 403, times=1_000, body={"message": SECONDARY})
    with pytest.raises(GitHubError, match="rate limit"):
        rest(github_server).login()


def test_graphql_secondary_limit_that_never_lifts_names_the_rate_limit(
    github_server: FakeGitHub,
) -> None:
    github_server.fail("POST", "/graphql", 403, times=1_000, body={"message": SECONDARY})
    gql = GraphQL.connect("t", github_server.url + "/graphql", retry=default_retry(0, 0, total=2))
    with pytest.raises(GitHubError, match=r"rate limit.*re-run the job later"):
        gql.fetch_threads("octo", "app", 2, 5)
    assert calls(github_server, "POST", "/graphql") == 3


def test_a_graphql_403_that_is_no_rate_limit_names_the_permission(
    github_server: FakeGitHub,
) -> None:
    github_server.fail("POST", "/graphql", 403, body={"message": NOT_ACCESSIBLE})
    gql = GraphQL.connect("t", github_server.url + "/graphql", retry=default_retry(0, 0))
    with pytest.raises(GitHubError, match=r"`permissions: pull-requests: read`"):
        gql.fetch_threads("octo", "app", 2, 5)
    assert calls(github_server, "POST", "/graphql") == 1  # not retried


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"pull_request": {"head": ', "cannot read the event payload"),  # truncated
        (b"\xff\xfe\x00{", "cannot read the event payload"),  # not UTF-8
        (b'{"pull_request": [], "repository": {"full_name": "x/y"}}', "not shaped as GitHub"),
        (b'{"pull_request": {"number": 1e400}}', "not shaped as GitHub"),  # infinity
    ],
    ids=["truncated", "not-utf8", "list-for-object", "infinite-number"],
)
def test_a_malformed_event_file_is_a_clear_error_without_side_effects(
    sandbox: ActionSandbox, github_server: FakeGitHub, data: bytes, expected: str
) -> None:
    sha = sandbox.commit("changes", BROKEN, "break it")
    before = git(sandbox.origin, "for-each-ref")
    ws = sandbox.workspace("changes", merge_into="main")
    env = sandbox.env("pull_request", sandbox.pull_request_event("changes", sha), ws, RUFF)
    Path(env["GITHUB_EVENT_PATH"]).write_bytes(data)
    run = sandbox.run(env)

    no_traceback(run)
    assert run.code == 2 and run.outputs["outcome"] == "error"
    assert expected in run.outputs["reason"] and "GITHUB_EVENT_PATH" in run.outputs["reason"]
    assert git(sandbox.origin, "for-each-ref") == before
    assert github_server.requests == []


MEGABYTE = 1_000_000


@pytest.mark.parametrize("command", ["", "/fixbot help"])
def test_a_one_megabyte_comment_is_answered_without_echoing_it(
    sandbox: ActionSandbox, github_server: FakeGitHub, command: str
) -> None:
    """A 1 MB comment: no command, refused quietly; a command within its first 65,536
    characters (all GitHub would accept, and all fixbot reads), answered with the help text
    alone (GitHub refuses comments over 65,536 characters, and so does the fake)."""
    github_server.repo(REPOSITORY).permissions["alice"] = "write"
    sandbox.register_pull("main", str(sandbox.origin_sha("main")))  # PR #2, where it comments
    lorem = "lorem ipsum " * (MEGABYTE // 12)
    body = lorem[: COMMENT_LIMIT - 100] + "\n\n" + command + "\n\n" + lorem
    before = git(sandbox.origin, "for-each-ref")
    ws = sandbox.workspace("main")
    started = time.monotonic()
    run = sandbox.run(sandbox.env("issue_comment", sandbox.comment_event(body, "alice"), ws, RUFF))

    no_traceback(run)
    assert time.monotonic() - started < 30
    assert run.code == 0 and run.outputs["outcome"] == "refused"
    assert git(sandbox.origin, "for-each-ref") == before
    for text in (run.summary, run.stdout, run.stderr, *run.outputs.values()):
        assert "lorem ipsum lorem" not in text and len(text) < 20_000
    written = [c for c in github_server.repo(REPOSITORY).comments if c["body"] != body]
    if command:
        assert len(written) == 1 and "/fixbot retry [hint]" in written[0]["body"]
        assert "lorem" not in written[0]["body"]
    else:
        assert written == [] and github_server.requests == []
